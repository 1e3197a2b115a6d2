package manifest

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
)

// speed evaluates a speed: a number or slow/medium/fast.
func (x *expander) speed(f *field, sc *scope) (*float64, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return nil, false
	}
	if s, isStr := v.(string); isStr {
		if n, ok := contract.SpeedNames[strings.TrimSpace(s)]; ok {
			return &n, true
		}
	}
	n, ok := asFloat(v)
	if !ok {
		x.failed = true
		d := x.ds.Errorf(f.Pos(), "speed %s is neither a number nor slow, medium or fast", quoteValue(v))
		if s, isStr := v.(string); isStr {
			if sg := Suggest(s, contract.SpeedWords); sg != "" {
				d.WithHint("did you mean %q?", sg)
			}
		}
		return nil, false
	}
	return &n, true
}

func (x *expander) expandVoices() {
	for _, name := range x.raw.sortedNames("voices") {
		b := x.raw.Blocks["voices"][name]
		if x.raw.isBroken("voices", name) {
			x.voices[name] = nil
			continue
		}
		fs := fieldsOf(b.File, b.Node)
		v := &Voice{Name: name, Address: Address(KindVoice, name, "", false), Pos: b.Pos(), Fields: fieldPositions(fs)}
		x.raw.dropBroken("voices", name, fs)
		sc := x.scope()
		x.failed = false
		v.Model, _, _ = x.str(fs["model"], sc)
		// Either spelling of a model (tts-v2.5, timbre-v2.5) is one model:
		// the rest of voxform, the fingerprint included, sees the
		// documented name; the profile decides what is sent.
		v.Model = contract.CanonicalModel(v.Model)
		v.Voice, _, _ = x.str(fs["voice"], sc)
		v.Language, _, _ = x.str(fs["language"], sc)
		v.Speed, _ = x.speed(fs["speed"], sc)
		v.Embedding, _, _ = x.str(fs["embedding"], sc)
		if p, _, ok := x.str(fs["embedding_file"], sc); ok {
			v.EmbeddingFile = cleanRel(p)
		}
		if x.failed {
			x.voices[name] = nil // reported; syntheses using it are skipped
			continue
		}
		x.voices[name] = v
		x.m.Voices = append(x.m.Voices, v)
	}
}

func (x *expander) expandEmbeddings() {
	for _, name := range x.raw.sortedNames("embeddings") {
		b := x.raw.Blocks["embeddings"][name]
		if x.raw.isBroken("embeddings", name) {
			continue
		}
		fs := fieldsOf(b.File, b.Node)
		e := &Embedding{Name: name, Address: Address(KindEmbedding, name, "", false), Pos: b.Pos(), Fields: fieldPositions(fs)}
		x.raw.dropBroken("embeddings", name, fs)
		sc := x.scope()
		x.failed = false
		if p, _, ok := x.str(fs["reference_audio"], sc); ok {
			e.ReferenceAudio = cleanRel(p)
		}
		if p, _, ok := x.str(fs["output"], sc); ok {
			e.Output = cleanRel(p)
		}
		e.Consent, _, _ = x.str(fs["consent"], sc)
		if x.failed {
			continue // reported
		}
		x.m.Embeddings = append(x.m.Embeddings, e)
	}
}

// cleanRel cleans a manifest path and writes it with forward slashes.
func cleanRel(p string) string {
	if p == "" {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
}

// synthesisFields merges a synthesis block with defaults.synthesis: a field
// the block sets replaces the default as a whole.
func (x *expander) synthesisFields(b *Block) map[string]*field {
	fs := fieldsOf(b.File, b.Node)
	db := x.raw.Blocks["defaults"][""]
	if db == nil || x.raw.isBroken("defaults", "") || x.raw.brokenField("defaults", "", "synthesis") {
		return fs
	}
	dn := lookup(db.Node, "synthesis")
	for name, f := range fieldsOf(db.File, dn) {
		if _, set := fs[name]; !set && name != "for_each" {
			fs[name] = f
		}
	}
	return fs
}

func (x *expander) expandSyntheses() {
	for _, name := range x.raw.sortedNames("syntheses") {
		b := x.raw.Blocks["syntheses"][name]
		if x.raw.isBroken("syntheses", name) {
			x.synthDropped[name] = true
			continue
		}
		x.curBlock = b
		fs := x.synthesisFields(b)
		pos := fieldPositions(fs)
		for _, sub := range []string{"audio_config", "cues", "listen", "lifecycle", "recorded"} {
			subPositions(pos, sub, fs[sub])
		}
		if f := fs["listen"]; f != nil {
			subPositions(pos, "listen.seams", fieldsOf(f.File, deref(f.Val))["seams"])
		}
		x.raw.dropBroken("syntheses", b.Name, fs)
		sc := x.scope()
		if x.raw.brokenField("syntheses", name, "for_each") {
			x.synthDropped[name] = true
			continue
		}
		room := MaxSyntheses - x.instances
		fe := fieldsOf(b.File, b.Node)["for_each"]
		if fe == nil {
			if room == 0 {
				x.tooManySyntheses(b.Pos(), fmt.Sprintf("synthesis %q", name))
				return
			}
			x.instances++
			x.addSynthesis(name, x.synthesis(b, fs, pos, sc, nil))
			continue
		}
		nd := len(x.ds)
		elems, ok := x.forEach(fe.File, fe.Val, sc, room)
		if !ok {
			x.synthDropped[name] = true
			continue
		}
		if len(elems) == 0 && len(x.ds) == nd {
			x.ds.Warnf(fe.Pos(), "for_each of synthesis %q has no elements", name)
		}
		x.instances += len(elems)
		x.m.Syntheses = slices.Grow(x.m.Syntheses, len(elems))
		for i, ev := range elems {
			sc.each = ev
			x.addSynthesis(name, x.synthesis(b, fs, pos, sc, ev))
			elems[i] = nil // its rows' memory goes once they are all expanded
		}
		sc.each = nil
		if x.synthesesOver {
			return
		}
	}
}

// addSynthesis adds an expanded synthesis instance of block name; nil,
// a refused one (reported), marks the block for knownSynthesis.
func (x *expander) addSynthesis(name string, s *Synthesis) {
	if s == nil {
		x.synthDropped[name] = true
		return
	}
	x.m.Syntheses = append(x.m.Syntheses, s)
	if x.synthByAddr != nil {
		x.synthByAddr[s.Address] = s
	}
}

// subPositions records in pos where each field of the map f is written,
// as "prefix.name".
func subPositions(pos map[string]Pos, prefix string, f *field) {
	if f == nil {
		return
	}
	for name, sf := range fieldsOf(f.File, deref(f.Val)) {
		pos[prefix+"."+name] = sf.Pos()
	}
}

// tooManySyntheses refuses the synthesis (what names it) that brings the
// syntheses past MaxSyntheses; the syntheses after it are not expanded.
func (x *expander) tooManySyntheses(at Pos, what string) {
	x.synthesesOver = true
	x.ds.Errorf(at, "%s brings the syntheses of this manifest over %s, the limit for one manifest", what, numfmt.Thousands(MaxSyntheses)).
		WithHint("split the work into several manifest directories, each with its own state")
}

// synthesis builds one synthesis instance; nil when one of its values
// failed to evaluate (that is reported). Instances of one block that use
// the same voice share one Fields map; it is read-only.
func (x *expander) synthesis(b *Block, fs map[string]*field, pos map[string]Pos, sc *scope, ev *eachValue) *Synthesis {
	x.failed = false
	s := &Synthesis{Name: b.Name, Pos: b.Pos(), Fields: pos, Transport: TransportREST}
	if ev != nil {
		s.Key, _ = ev.Key.V.(string)
		s.HasKey = true
		s.KeyPos = ev.Key.Pos
	}
	s.Address = Address(KindSynthesis, b.Name, s.Key, s.HasKey)
	s.Voice, _, _ = x.str(fs["voice"], sc)
	var d SynthesisDetails
	x.synthesisText(s, &d, fs, sc)
	x.synthesisLexicon(&d, fs, sc)
	if t, _, ok := x.str(fs["transport"], sc); ok {
		s.Transport = t
	}
	if o, _, ok := x.str(fs["output"], sc); ok {
		s.Output = cleanRel(o)
	}
	d.Cues = x.cues(fs["cues"], sc)
	d.Deliver = x.deliveries(s, fs["deliver"], sc)
	s.AudioConfig = x.blockAudioConfig(fs["audio_config"], sc)
	d.Listen = x.blockListen(fs["listen"], sc)
	d.Lifecycle = x.lifecycle(fs["lifecycle"], sc)
	d.Recorded = x.recorded(fs["recorded"], sc)
	lang, _, hasLang := x.str(fs["language"], sc)
	speed, hasSpeed := x.speed(fs["speed"], sc)
	v, known := x.voices[s.Voice]
	switch {
	case s.Voice == "":
	case !known && x.raw.isBroken("voices", ""):
		return nil // the voices: section is broken and reported
	case !known:
		if sc.eachErrs["voice:"+s.Voice] {
			return nil // reported for an earlier instance
		}
		sc.eachErrs["voice:"+s.Voice] = true
		d := x.ds.Errorf(s.Fields["voice"], "synthesis %q refers to unknown voice %q", b.Name, s.Voice)
		if sg := x.sg.Suggest(s.Voice, x.voiceNames); sg != "" {
			d.WithHint("did you mean %q?", sg)
		} else {
			d.WithHint("declare it under voices:")
		}
		return nil
	case v == nil: // the voice itself is broken and reported
		return nil
	default:
		s.Model, s.VoiceName = v.Model, v.Voice
		d.EmbeddingName, d.EmbeddingFile = v.Embedding, v.EmbeddingFile
		inherit := (!hasLang && v.Language != "") || (!hasSpeed && v.Speed != nil)
		if !hasLang && v.Language != "" {
			lang = v.Language
		}
		if !hasSpeed && v.Speed != nil {
			speed = v.Speed
		}
		if inherit {
			s.Fields = x.inheritedFields(pos, v, hasLang, hasSpeed)
		}
	}
	s.Language, s.Speed = lang, speed
	x.spokenBound(s, &d, fs["lexicon"])
	if x.failed {
		return nil
	}
	return s.WithDetails(d)
}

// inheritedFields returns a block's field positions with the language and
// speed positions of the voice they are inherited from, memoised per
// block map and voice.
func (x *expander) inheritedFields(pos map[string]Pos, v *Voice, hasLang, hasSpeed bool) map[string]Pos {
	key := inheritKey{x.curBlock, v.Name, hasLang, hasSpeed}
	if m, ok := x.inherited[key]; ok {
		return m
	}
	m := maps.Clone(pos)
	if !hasLang && v.Language != "" {
		m["language"] = v.Fields["language"]
	}
	if !hasSpeed && v.Speed != nil {
		m["speed"] = v.Fields["speed"]
	}
	x.inherited[key] = m
	return m
}

type inheritKey struct {
	block             *Block
	voice             string
	hasLang, hasSpeed bool
}

// blockAudioConfig evaluates an audio_config; one without references is
// evaluated once and shared by the instances of a block (it is read-only:
// rules that change it replace the pointer).
func (x *expander) blockAudioConfig(f *field, sc *scope) *AudioConfig {
	if f == nil || sc.each == nil {
		return x.audioConfig(f, sc)
	}
	n := deref(f.Val)
	if ac, ok := x.sharedAC[n]; ok {
		return ac
	}
	ac := x.audioConfig(f, sc)
	if !x.failed && !hasReference(n) {
		x.sharedAC[n] = ac
	}
	return ac
}

// hasReference reports whether any scalar below n holds a ${ reference.
func hasReference(n *yaml.Node) bool {
	for _, e := range entries(n) {
		v := deref(e.Val)
		if v != nil && strings.Contains(v.Value, "${") {
			return true
		}
	}
	return false
}

// cues evaluates a synthesis's cues map (json, vtt: output paths); nil
// when not set.
func (x *expander) cues(f *field, sc *scope) *Cues {
	if f == nil || isNull(f.Val) {
		return nil
	}
	c := &Cues{}
	for _, e := range entries(f.Val) {
		sf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
		v, _, ok := x.str(sf, sc)
		if !ok {
			continue
		}
		switch e.Key.Value {
		case "json":
			c.JSON = cleanRel(v)
		case "vtt":
			c.VTT = cleanRel(v)
		}
	}
	if c.JSON == "" && c.VTT == "" {
		return nil
	}
	return c
}

// lifecycle evaluates a synthesis's lifecycle: map (keep_approved,
// prevent_destroy); the zero value when not set.
func (x *expander) lifecycle(f *field, sc *scope) Lifecycle {
	var l Lifecycle
	if f == nil || isNull(f.Val) {
		return l
	}
	for _, e := range entries(f.Val) {
		sf := &field{Name: e.Key.Value, File: f.File, Key: e.Key, Val: e.Val}
		switch sf.Name {
		case "keep_approved":
			l.KeepApproved, _ = x.boolean(sf, sc)
		case "prevent_destroy":
			l.PreventDestroy, _ = x.boolean(sf, sc)
		}
	}
	return l
}

// audioConfig evaluates an audio_config map; nil when not set.
func (x *expander) audioConfig(f *field, sc *scope) *AudioConfig {
	if f == nil || isNull(f.Val) {
		return nil
	}
	ac := &AudioConfig{}
	for _, e := range entries(f.Val) {
		name := e.Key.Value
		sf := &field{Name: name, File: f.File, Key: e.Key, Val: e.Val}
		switch name {
		case "sample_rate", "num_channels", "sample_width":
			v, ok := x.integer(sf, sc)
			if !ok {
				continue
			}
			switch name {
			case "sample_rate":
				ac.SampleRate = int(v)
			case "num_channels":
				ac.NumChannels = int(v)
			case "sample_width":
				ac.SampleWidth = int(v)
			}
		case "encoding", "container", "bitrate":
			v, _, ok := x.str(sf, sc)
			if !ok {
				continue
			}
			switch name {
			case "encoding":
				ac.Encoding = v
			case "container":
				ac.Container = v
			case "bitrate":
				ac.Bitrate = v
			}
		}
	}
	return ac
}
