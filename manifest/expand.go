package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/state"
)

// hashed is one input of Manifest.Hash.
type hashed struct {
	name string
	data []byte
}

// expander turns a Raw into typed resources.
type expander struct {
	raw       *Raw
	opts      LoadOptions
	ds        Diagnostics
	ip        *interpolator
	m         *Manifest
	vars      map[string]value
	varNames  []string
	hashFiles []hashed
	dataSeen  map[string]bool
	dataCache map[string]*dataFile
	// texts and lexicons hold the text files and lexicons read, by path
	// relative to the manifest directory, so that each is read once.
	texts    map[string]*textFile
	lexicons map[string]*lexiconFile
	// spoken bounds the texts with their lexicons applied (spokenBound).
	spoken spokenCount
	voices map[string]*Voice
	// voiceNames lists the voices once they are all expanded.
	voiceNames []string
	// sg answers every "did you mean" of the expansion.
	sg        Suggester
	inherited map[inheritKey]map[string]Pos
	sharedAC  map[*yaml.Node]*AudioConfig
	listens   map[*yaml.Node]*Listen
	// delivers holds the deliver: values evaluated (see blockDeliver);
	// deliverErrs the positions of delivered outputs reported.
	delivers    map[*yaml.Node]*deliverSpec
	deliverErrs map[Pos]bool
	// badProfiles are the delivery_profiles: entries refused (reported);
	// profileNames lists every entry, profileCandidates them and the
	// built-ins, for "did you mean".
	badProfiles       map[string]bool
	profileNames      []string
	profileCandidates []string
	// synthByAddr holds the syntheses expanded, by address, once a
	// chapter names one (see knownSynthesis); synthDropped
	// the blocks with a refused instance (or refused whole), whose
	// instances a chapter may name without a second error.
	synthByAddr  map[string]*Synthesis
	synthDropped map[string]bool
	// covers holds the cover images read (bound into the hash once).
	covers   map[string]bool
	curBlock *Block // the synthesis block being expanded
	// instances counts the syntheses expanded (see MaxSyntheses);
	// synthesesOver is set once the limit is reported.
	instances     int
	synthesesOver bool
	// walks holds the files below each input pattern's directory prefix;
	// globMatches counts the names matched against patterns (see
	// MaxGlobMatches).
	walks       map[string]*walked
	globMatches int
	// failed is set when a value fails to evaluate (and is reported); an
	// instance with a failed value is dropped, so that its empty value is
	// not reported again by later rules.
	failed bool
}

// Expand resolves variables, defaults, for_each and transcription inputs of
// a parsed manifest into typed resources sorted by address. Blocks marked
// broken (by schema validation) are skipped. Semantic rules beyond what
// expansion needs (models, limits, formats) are the schema package's.
func Expand(raw *Raw, opts LoadOptions) (*Manifest, Diagnostics) {
	defer raw.closeInputs()
	files := make(map[string]*File, len(raw.Files))
	for _, f := range raw.Files {
		files[f.Name] = f
	}
	x := &expander{
		raw:       raw,
		opts:      opts,
		ip:        &interpolator{files: files, lines: map[string][]int{}, literals: map[*yaml.Node][]Span{}},
		m:         &Manifest{Dir: raw.Dir, Version: 1, Variables: map[string]any{}},
		dataSeen:  map[string]bool{},
		dataCache: map[string]*dataFile{},
		texts:     map[string]*textFile{},
		lexicons:  map[string]*lexiconFile{},
		voices:    map[string]*Voice{},
		inherited: map[inheritKey]map[string]Pos{},
		sharedAC:  map[*yaml.Node]*AudioConfig{},
		listens:   map[*yaml.Node]*Listen{},
		walks:     map[string]*walked{},
		delivers:  map[*yaml.Node]*deliverSpec{},
		covers:    map[string]bool{},

		deliverErrs:  map[Pos]bool{},
		synthDropped: map[string]bool{},
	}
	for _, f := range raw.Files {
		x.m.Files = append(x.m.Files, f.Name)
		x.hashFiles = append(x.hashFiles, hashed{name: "manifest:" + f.Name, data: f.Src})
	}
	x.m.VarFiles = append([]string(nil), opts.VarFiles...)
	x.vars = x.resolveVars()
	for k, v := range x.vars {
		x.m.Variables[k] = v.V
	}
	x.varNames = mapKeys(x.vars)
	x.version()
	x.service()
	x.cache()
	x.backend()
	x.catalog()
	x.budget()
	x.loudness()
	x.deliveryProfiles()
	x.expandVoices()
	x.voiceNames = mapKeys(x.voices)
	x.expandEmbeddings()
	x.expandSyntheses()
	x.packages()
	x.expandTranscriptions()
	x.finish()
	x.ds.Sort()
	return x.m, x.ds
}

func (x *expander) scope() *scope {
	return &scope{vars: x.vars, varNames: x.varNames, sg: &x.sg, eachErrs: map[string]bool{}}
}

// singleton returns the fields of a singleton section, or nil.
func (x *expander) singleton(sec string) (*Block, map[string]*field) {
	b := x.raw.Blocks[sec][""]
	if b == nil || x.raw.isBroken(sec, "") {
		return nil, nil
	}
	fs := fieldsOf(b.File, b.Node)
	x.raw.dropBroken(sec, "", fs)
	return b, fs
}

func (x *expander) version() {
	b := x.raw.Blocks["version"][""]
	if b == nil || x.raw.isBroken("version", "") {
		return
	}
	x.m.VersionPos = nodePos(b.File, b.Node)
	v, ok := asInt(scalarValueOf(b))
	if !ok || v != 1 {
		x.ds.Errorf(x.m.VersionPos, "unsupported manifest version %s", b.Node.Value).
			WithHint("this voxform reads version: 1")
		return
	}
	x.m.Version = int(v)
}

func scalarValueOf(b *Block) any {
	if b.Node == nil || b.Node.Kind != yaml.ScalarNode {
		return nil
	}
	return scalarValue(b.Node)
}

// pace evaluates service.realtime_pace: a multiple of real time above 0
// and at most contract.MaxPace, or "unlimited" (contract.PaceUnlimited).
// A value it cannot take is one error, and 0, the profile's pace.
func (x *expander) pace(f *field, sc *scope) float64 {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0
	}
	if s, isString := v.(string); isString && strings.TrimSpace(s) == "unlimited" {
		return contract.PaceUnlimited
	}
	if n, ok := asFloat(v); ok && n > 0 && n <= contract.MaxPace {
		return n
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "service.realtime_pace %s is not a multiple of real time above 0 and at most %d, or unlimited", quoteValue(v), contract.MaxPace).
		WithHint("1 sends audio as it is spoken, as the live service expects")
	return 0
}

func (x *expander) service() {
	b, fs := x.singleton("service")
	s := &x.m.Service
	s.APIKeyEnv = "VOXFORM_API_KEY"
	if b != nil {
		sc := x.scope()
		s.Pos = b.Pos()
		s.Fields = fieldPositions(fs)
		if v, _, ok := x.str(fs["profile"], sc); ok {
			s.Profile = contract.Profile(v)
		}
		s.BaseURL, _, _ = x.str(fs["base_url"], sc)
		s.WSBaseURL, _, _ = x.str(fs["ws_base_url"], sc)
		if v, _, ok := x.str(fs["api_key_env"], sc); ok {
			s.APIKeyEnv = v
		}
		s.Timeout, _ = x.duration(fs["timeout"], sc)
		if v, ok := x.integer(fs["retries"], sc); ok {
			s.Retries = int(v)
		}
		s.RequestsPerSecond, _ = x.number(fs["requests_per_second"], sc)
		if v, ok := x.integer(fs["parallelism"], sc); ok {
			s.Parallelism = int(v)
		}
		s.RealtimePace = x.pace(fs["realtime_pace"], sc)
		if v, ok := x.integer(fs["max_text_chars"], sc); ok {
			s.MaxTextChars = int(v)
		}
		if f := fs["paths"]; f != nil {
			s.Paths = map[string]string{}
			for name, pf := range fieldsOf(f.File, deref(f.Val)) {
				if v, _, ok := x.str(pf, sc); ok {
					s.Paths[name] = v
					s.Fields["paths."+name] = valuePos(pf.File, pf.Val)
				}
			}
		}
	}
	for _, kv := range x.opts.Environ {
		if v, ok := strings.CutPrefix(kv, "VOXFORM_BASE_URL="); ok && v != "" {
			s.BaseURL = v
		}
		if v, ok := strings.CutPrefix(kv, "VOXFORM_PROFILE="); ok && v != "" {
			s.Profile = contract.Profile(v)
			if s.Fields == nil {
				s.Fields = map[string]Pos{}
			}
			s.Fields["profile"] = Pos{File: "VOXFORM_PROFILE"} // what a problem with it points at
		}
	}
	if s.Profile == "" {
		s.Profile = contract.DefaultProfile
	}
}

func (x *expander) catalog() {
	b, fs := x.singleton("catalog")
	if b == nil {
		return
	}
	c := &x.m.Catalog
	c.Pos = b.Pos()
	c.Fields = fieldPositions(fs)
	sc := x.scope()
	names := 0
	// take keeps a list within MaxCatalogNames names in all; the first
	// name past it is refused.
	take := func(l []string, pos []Pos) []string {
		keep := min(len(l), max(MaxCatalogNames-names, 0))
		if keep < len(l) && names <= MaxCatalogNames {
			x.ds.Errorf(pos[keep], "catalog: %q is past the %s names a catalog: block may add", l[keep], numfmt.Thousands(MaxCatalogNames)).
				WithHint("declare only what the service has added since this voxform was built")
		}
		names += len(l)
		return l[:keep]
	}
	listMap := func(name string) map[string][]string {
		f := fs[name]
		if f == nil {
			return nil
		}
		out := map[string][]string{}
		for _, e := range entries(f.Val) {
			lf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
			l, pos, _ := x.strList(lf, sc)
			out[lf.Name] = take(l, pos)
			c.Fields[name+"."+lf.Name] = nodePos(lf.File, lf.Key)
		}
		return out
	}
	models, pos, _ := x.strList(fs["models"], sc)
	c.Models = take(models, pos)
	c.Voices = listMap("voices")
	c.Languages = listMap("languages")
	c.RecognitionLanguages = listMap("recognition_languages")
}

// envField is an environment variable that sets a field of a block.
type envField struct{ name, field string }

// cacheEnv are the environment variables that set cache: fields.
var cacheEnv = []envField{
	{"VOXFORM_CACHE_DIR", "dir"}, {"VOXFORM_CACHE_REMOTE", "remote"},
	{"VOXFORM_CACHE_ENDPOINT", "endpoint"}, {"VOXFORM_CACHE_REGION", "region"},
}

// fromEnv sets the fields (by name) that a non-empty variable of vars
// names, recording the variable as where the value came from.
func (x *expander) fromEnv(vars []envField, fields map[string]*string, pos map[string]Pos) {
	for _, kv := range x.opts.Environ {
		for _, e := range vars {
			if v, ok := strings.CutPrefix(kv, e.name+"="); ok && v != "" {
				*fields[e.field] = v
				pos[e.field] = Pos{File: e.name} // what a problem with it points at
			}
		}
	}
}

func (x *expander) cache() {
	c := &x.m.Cache
	c.Fields = map[string]Pos{}
	b, fs := x.singleton("cache")
	if b != nil {
		sc := x.scope()
		c.Pos = b.Pos()
		c.Fields = fieldPositions(fs)
		c.Dir, _, _ = x.str(fs["dir"], sc)
		c.Remote, _, _ = x.str(fs["remote"], sc)
		c.Endpoint, _, _ = x.str(fs["endpoint"], sc)
		c.Region, _, _ = x.str(fs["region"], sc)
	}
	x.fromEnv(cacheEnv, map[string]*string{"dir": &c.Dir, "remote": &c.Remote, "endpoint": &c.Endpoint, "region": &c.Region}, c.Fields)
}

func (x *expander) budget() {
	b, fs := x.singleton("budget")
	if b == nil {
		return
	}
	sc := x.scope()
	bu := &Budget{Pos: b.Pos(), Fields: fieldPositions(fs)}
	if v, ok := x.integer(fs["max_characters"], sc); ok {
		bu.MaxCharacters = &v
	}
	if v, ok := x.number(fs["max_audio_seconds"], sc); ok {
		bu.MaxAudioSeconds = &v
	}
	x.m.Budget = bu
}

func (x *expander) loudness() {
	b, fs := x.singleton("loudness")
	if b == nil {
		return
	}
	sc := x.scope()
	l := &Loudness{Pos: b.Pos(), Fields: fieldPositions(fs)}
	if v, ok := x.number(fs["max_deviation"], sc); ok {
		l.MaxDeviation = &v
	}
	if v, ok := x.number(fs["max_true_peak"], sc); ok {
		l.MaxTruePeak = &v
	}
	x.m.Loudness = l
}

// fieldPositions records where each present field's value is.
func fieldPositions(fs map[string]*field) map[string]Pos {
	out := make(map[string]Pos, len(fs))
	for n, f := range fs {
		out[n] = valuePos(f.File, f.Val)
	}
	return out
}

// Address returns the address of a resource: KIND.NAME, or
// KIND.NAME["KEY"] for an instance of a block, spelled as the state reads
// it back (state.Address, the grammar's one home).
func Address(kind Kind, name string, key string, hasKey bool) string {
	return state.Address{Kind: string(kind), Name: name, Key: key, HasKey: hasKey}.String()
}

// finish sorts resources and computes the hash.
func (x *expander) finish() {
	m := x.m
	sort.Slice(m.Voices, func(i, j int) bool { return m.Voices[i].Address < m.Voices[j].Address })
	sort.Slice(m.Embeddings, func(i, j int) bool { return m.Embeddings[i].Address < m.Embeddings[j].Address })
	sort.Slice(m.Syntheses, func(i, j int) bool { return m.Syntheses[i].Address < m.Syntheses[j].Address })
	sort.Slice(m.Transcriptions, func(i, j int) bool { return m.Transcriptions[i].Address < m.Transcriptions[j].Address })
	for name := range x.dataSeen {
		m.DataFiles = append(m.DataFiles, name)
	}
	sort.Strings(m.DataFiles)
	m.TextFiles = x.textInputs()
	h := sha256.New()
	for _, f := range x.hashFiles {
		h.Write([]byte(f.name))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(f.data))))
		h.Write([]byte{0})
		h.Write(f.data)
	}
	m.Hash = hex.EncodeToString(h.Sum(nil))
}
