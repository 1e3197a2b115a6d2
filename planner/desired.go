package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/rare"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// HashFunc returns the content hash of a file, by path relative to the
// manifest directory. A missing file is FileHash{Exists: false}, not an error.
type HashFunc func(path string) (state.FileHash, error)

// ProbeFunc returns the duration in seconds of an audio file, by path
// relative to the manifest directory (audio.Probe in production).
type ProbeFunc func(path string) (float64, error)

// Desired is one resource as the manifest wants it, in a form the planner can
// diff field by field.
type Desired struct {
	Address string        `json:"address"`
	Kind    manifest.Kind `json:"kind"`
	// Block is the address of the block the resource was expanded from
	// (synthesis.menu for synthesis.menu["a"]).
	Block string `json:"block"`
	// Wire is the exact request the executor sends (see Wire).
	Wire Wire `json:"wire"`
	// request is the canonical form of Wire with the content hashes of its
	// inputs (see Build), as canonical JSON (Canonical), of a resource
	// whose request is not derived (see derive); RequestJSON returns it.
	// Fingerprint is the SHA-256 of the request with the kind (see
	// Fingerprint).
	request     json.RawMessage
	Fingerprint string `json:"fingerprint"`
	// Outputs are the files the resource writes.
	Outputs []Output `json:"outputs"`
	// Characters is what a synthesis bills (code points of the text; of
	// every chunk's text, repeated audio tags included, when it is split).
	Characters int64 `json:"characters,omitempty"`

	// What the executor needs of a synthesis beyond Wire: its transport
	// and its voice as the manifest names it. Not saved in plan files: a
	// saved plan is applied as it is planned again from the manifest.
	Transport string `json:"-"`
	Voice     string `json:"-"`

	// details are the fields most resources leave empty (see
	// DesiredDetails), held out of line.
	details rare.Of[DesiredDetails]
	// derive, for a synthesis, is how its canonical request is made again
	// from Wire when it is asked for: a synthesis waiting to be applied
	// holds its typed request, not its bytes beside it.
	derive *derivation
	// prior is the resource's record in the state it was built against,
	// so that a plan against that state does not look it up again.
	prior priorRecord
}

// priorRecord is a desired resource's record in one state: r is nil when
// that state has none.
type priorRecord struct {
	in *state.File
	r  *state.Resource
}

// derivation is what a synthesis's canonical request is made of besides
// its wire request (see Desired.RequestJSON). Without an embedding it is
// shared by every synthesis that asks the same but for its text.
type derivation struct {
	// canonical is the request as the documented profile sends it, which
	// the fingerprint covers, but for its text, which is Wire's; unset
	// (sameWire) when the whole request is Wire's.
	canonical contract.SynthesisRequest
	sameWire  bool
	// embedding is the speaker embedding by content (nil: the model
	// takes none).
	embedding map[string]any
}

// wireIsCanonical is the derivation of every synthesis whose wire request
// is its canonical one and that takes no embedding (read-only).
var wireIsCanonical = &derivation{sameWire: true}

// RequestJSON is the canonical request the fingerprint covers, as
// canonical JSON: made again from the typed request for a synthesis (and
// refused if it no longer matches the fingerprint), as planned otherwise.
// The state records these bytes (state.Resource.SetRequestJSON): nothing
// modifies them.
func (d *Desired) RequestJSON() (json.RawMessage, error) {
	if d.derive == nil {
		return d.request, nil
	}
	buf := make([]byte, 0, 512) // a synthesis's request, without growing
	req, err := d.deriveInto(&buf)
	return bytes.Clone(req), err
}

// CheckRequest says whether d's request can be made again as it was
// fingerprinted (see RequestJSON), holding nothing: apply asks it before
// the service is paid, not when the result is recorded.
func (d *Desired) CheckRequest() error {
	if d.derive == nil {
		return nil
	}
	buf := deriveBuffers.Get().(*[]byte)
	defer deriveBuffers.Put(buf)
	_, err := d.deriveInto(buf)
	return err
}

// deriveBuffers are CheckRequest's scratch buffers.
var deriveBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// deriveInto writes d's derived request into *scratch and returns it
// (valid until *scratch is written again), or an error when it does not
// match d's fingerprint.
func (d *Desired) deriveInto(scratch *[]byte) ([]byte, error) {
	w := d.Wire.Synthesis
	if w == nil {
		return nil, fmt.Errorf("%s: no request to derive the canonical one from", d.Address)
	}
	if !d.derive.sameWire {
		c := d.derive.canonical
		c.Text = w.Text
		w = &c
	}
	req := synthesisRequest(w, d.derive.embedding)
	if chunks := d.Details().Chunks; len(chunks) > 0 {
		fps := make([]any, len(chunks))
		for i, c := range chunks {
			fps[i] = c.Fingerprint
		}
		req["chunks"] = fps
	}
	raw, fp, err := canonicalRequest(scratch, string(d.Kind), req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Address, err)
	}
	if string(fp[:]) != d.Fingerprint {
		return nil, fmt.Errorf("%s: its request made again has fingerprint %s, not the planned %s", d.Address, fp[:], d.Fingerprint)
	}
	return raw, nil
}

// WithRequest makes d hold raw as its canonical request (not derived)
// and returns d: a desired resource made elsewhere than Build.
func (d *Desired) WithRequest(raw json.RawMessage) *Desired {
	d.request, d.derive = raw, nil
	return d
}

// holdRequest makes d hold its canonical request's bytes rather than
// derive them (a copy of d given another fingerprint).
func (d *Desired) holdRequest() error {
	raw, err := d.RequestJSON()
	if err != nil {
		return err
	}
	d.request, d.derive = raw, nil
	return nil
}

// DesiredDetails are the fields of a desired resource that a plain
// synthesis leaves empty: its inputs and dependencies, the chunks of a
// split text, what its block declares beyond the request (listen:,
// deliver:, lifecycle:), and the manifest resource of the other kinds.
// A Desired holds them out of line, as state.Resource holds its Details;
// the instances of a block that declares only what all of them share
// share one. A DesiredDetails a resource holds is never changed in place
// (see Desired.Edit).
type DesiredDetails struct {
	// Sources are the input files (or URLs) the request depends on.
	Sources []Source `json:"sources,omitempty"`
	// DependsOn are the addresses this resource needs first (a vc-v1
	// synthesis needs its embedding).
	DependsOn []string `json:"depends_on,omitempty"`
	// Chunks are the requests of a synthesis whose text is longer than a
	// request takes, in order (see DesiredChunk); empty when the text is
	// sent whole. The fingerprint covers their fingerprints.
	Chunks []DesiredChunk `json:"chunks,omitempty"`
	// Consent is an embedding's consent note, for the state's audit trail.
	Consent string `json:"consent,omitempty"`
	// Recorded, for a synthesis whose output is a recording (recorded:),
	// is the recording: no service call makes it (see recorded).
	Recorded *Recording `json:"recorded,omitempty"`

	// Not saved in plan files (see Desired.Transport):
	// Written is a synthesis's text as written when it has cue files
	// (what the cues say).
	Written string `json:"-"`
	// Listen is a synthesis's declared listening check (shared by the
	// instances of its block; nil without listen:). The action's
	// ListenWork is saved.
	Listen *manifest.Listen `json:"-"`
	// Deliver are a synthesis's delivered outputs (shared by the
	// instances of its block; read-only); each is in Outputs, of format
	// DeliverFormat(profile name).
	Deliver []manifest.Delivery `json:"-"`
	// Lifecycle is a synthesis's lifecycle: (see LifecycleOf), and
	// LifecyclePos where prevent_destroy is declared. A pinned resource
	// is in the plan's Pinned.
	Lifecycle    manifest.Lifecycle `json:"-"`
	LifecyclePos manifest.Pos       `json:"-"`
	// The manifest resource of an embedding, a transcription or a
	// package, for the executor.
	Embedding     *manifest.Embedding     `json:"-"`
	Package       *manifest.Package       `json:"-"`
	Transcription *manifest.Transcription `json:"-"`
}

// Details returns d's details: a copy, the zero DesiredDetails when it
// has none. Change them with Edit.
func (d *Desired) Details() DesiredDetails { return d.details.Get() }

// Edit returns d's details to change: a copy of them that d now holds,
// for d alone (a copy of d made before, or another instance of its block,
// keeps the details it had).
func (d *Desired) Edit() *DesiredDetails { return d.details.Edit() }

// WithDetails gives d the details x (none when x is the zero
// DesiredDetails) and returns d.
func (d *Desired) WithDetails(x DesiredDetails) *Desired {
	d.details.Set(x, x.isZero())
	return d
}

// isZero says whether every field of x is empty, without reflect's
// allocation (TestDesiredDetailsIsZero checks it knows every field).
func (x *DesiredDetails) isZero() bool {
	return len(x.Sources) == 0 && len(x.DependsOn) == 0 && len(x.Chunks) == 0 && x.Consent == "" && x.Recorded == nil &&
		x.Written == "" && x.Listen == nil && len(x.Deliver) == 0 && x.Lifecycle == (manifest.Lifecycle{}) &&
		x.LifecyclePos == (manifest.Pos{}) && x.Embedding == nil && x.Package == nil && x.Transcription == nil
}

// desiredJSON is a Desired in a plan file: its fields and those of its
// details, in the order they have always been written.
type desiredJSON struct {
	Address     string          `json:"address"`
	Kind        manifest.Kind   `json:"kind"`
	Block       string          `json:"block"`
	Wire        Wire            `json:"wire"`
	Request     json.RawMessage `json:"request"`
	Fingerprint string          `json:"fingerprint"`
	Sources     []Source        `json:"sources,omitempty"`
	DependsOn   []string        `json:"depends_on,omitempty"`
	Outputs     []Output        `json:"outputs"`
	Characters  int64           `json:"characters,omitempty"`
	Chunks      []DesiredChunk  `json:"chunks,omitempty"`
	Consent     string          `json:"consent,omitempty"`
	Recorded    *Recording      `json:"recorded,omitempty"`
}

// MarshalJSON writes d as a plan file holds it.
func (d *Desired) MarshalJSON() ([]byte, error) {
	x := d.Details()
	req, err := d.RequestJSON()
	if err != nil {
		return nil, err
	}
	return marshalNoEscape(desiredJSON{Address: d.Address, Kind: d.Kind, Block: d.Block, Wire: d.Wire, Request: req,
		Fingerprint: d.Fingerprint, Sources: x.Sources, DependsOn: x.DependsOn, Outputs: d.Outputs, Characters: d.Characters,
		Chunks: x.Chunks, Consent: x.Consent, Recorded: x.Recorded})
}

// marshalNoEscape is v as JSON with no HTML escaping: the encoder of the
// plan that calls a MarshalJSON escapes, or not.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// UnmarshalJSON reads d as MarshalJSON wrote it.
func (d *Desired) UnmarshalJSON(b []byte) error {
	var j desiredJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Desired{Address: j.Address, Kind: j.Kind, Block: j.Block, Wire: j.Wire, request: j.Request,
		Fingerprint: j.Fingerprint, Outputs: j.Outputs, Characters: j.Characters}
	d.WithDetails(DesiredDetails{Sources: j.Sources, DependsOn: j.DependsOn, Chunks: j.Chunks, Consent: j.Consent, Recorded: j.Recorded})
	return nil
}

// RequestFields is Request decoded (nil if it does not decode), for
// reasons and display: numbers are float64s, as in a decoded state.
func (d *Desired) RequestFields() map[string]any {
	var m map[string]any
	raw, err := d.RequestJSON()
	if err != nil || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// Wire is the request of a resource as the executor sends it: the field of
// its kind is set. The fingerprint covers its canonical form, so what is
// planned (and shown, and saved in a plan file) is exactly what is sent.
type Wire struct {
	Synthesis     *contract.SynthesisRequest     `json:"synthesis,omitempty"`
	Embedding     *contract.EmbeddingRequest     `json:"embedding,omitempty"`
	Transcription *contract.TranscriptionRequest `json:"transcription,omitempty"`
}

// Source is an input of a resource.
type Source struct {
	// Role is reference_audio, source (a transcription input) or
	// embedding (the speaker embedding of a vc-v1 synthesis).
	Role string `json:"role"`
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// SHA256 is the content hash at planning time; empty for URLs and for
	// an embedding produced by an action of the same plan (see From).
	SHA256 string `json:"sha256,omitempty"`
	// From is the address of the resource that writes Path.
	From string `json:"from,omitempty"`
}

// Output is a file a resource writes.
type Output struct {
	Path string `json:"path"`
	// Format is a transcript format (json, txt, srt, vtt), a
	// synthesis's cue file (CuesJSON, CuesVTT) or delivered output
	// (DeliverFormat); empty for audio and embeddings.
	Format string `json:"format,omitempty"`
}

// The formats of a synthesis's cue files (manifest.Cues). They are
// outputs like the audio, owned and recorded, but not part of the
// fingerprint: they are made from the audio and the text as written.
const (
	CuesJSON = "cues.json"
	CuesVTT  = "cues.vtt"
)

// synthesisOutputs are the files a synthesis writes: its audio first,
// then its cue files, then its delivered outputs.
func synthesisOutputs(s *manifest.Synthesis) []Output {
	outs := []Output{{Path: s.Output}}
	sd := s.Details()
	if c := sd.Cues; c != nil {
		if c.JSON != "" {
			outs = append(outs, Output{Path: c.JSON, Format: CuesJSON})
		}
		if c.VTT != "" {
			outs = append(outs, Output{Path: c.VTT, Format: CuesVTT})
		}
	}
	for _, dl := range sd.Deliver {
		outs = append(outs, Output{Path: dl.Output, Format: DeliverFormat(dl.Profile.Name)})
	}
	return outs
}

// InputFiles lists the local input files of m whose content hashes Build
// needs: reference recordings, embedding files, transcription sources and
// the recordings of recorded syntheses.
func InputFiles(m *manifest.Manifest) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range m.Embeddings {
		add(e.ReferenceAudio)
	}
	for _, s := range m.Syntheses {
		if sd := s.Details(); contract.ProfileDocumented.SynthesisModel(s.Model).NeedsEmbedding && sd.EmbeddingName == "" {
			add(sd.EmbeddingFile)
		}
	}
	for _, t := range m.Transcriptions {
		if !t.IsURL {
			add(t.Input)
		}
	}
	for _, s := range m.Syntheses {
		if r := s.Details().Recorded; r != nil {
			add(r.Path)
		}
	}
	sort.Strings(out)
	return out
}

// Build returns the desired resources of m, sorted by address. hash gives
// the content of input files (see InputFiles); a missing input is an error
// at the position that names it.
func Build(m *manifest.Manifest, hash HashFunc) ([]*Desired, error) {
	return BuildWith(m, hash, BuildOptions{})
}

// BuildOptions are what a plan's Build knows beyond the manifest.
type BuildOptions struct {
	// State is the state the plan compares against (nil: none): a
	// resource whose canonical request is the one State records holds
	// State's bytes of it and its fingerprint, not a copy (the plan of an
	// unchanged project holds the requests once). Each resource keeps its
	// record in State for a Compute against State, which must not change
	// in between (Compute lets go of them).
	State *state.File
	// Release lets go of each synthesis of the manifest once its desired
	// resource is built (its slot in m.Syntheses is set to nil), for a
	// caller that reads only the manifest's settings afterwards: a
	// manifest of 100,000 syntheses is not held beside the resources
	// built from it.
	Release bool
}

// BuildWith is Build with o.
func BuildWith(m *manifest.Manifest, hash HashFunc, o BuildOptions) ([]*Desired, error) {
	st := o.State
	profile, err := contract.ParseProfile(string(m.Service.Profile))
	if err != nil {
		return nil, err
	}
	out := make([]*Desired, 0, len(m.Embeddings)+len(m.Syntheses)+len(m.Transcriptions))
	b := &builder{profile: profile, maxText: m.Service.MaxTextChars, embs: m.Embeddings, embFP: map[string]string{}, hash: hash, dir: m.Dir,
		configs: map[wireFormat]*contract.AudioConfig{}, canonical: map[contract.Format]map[string]any{}, blocks: map[blockName]string{}}
	b.st = st
	for _, e := range m.Embeddings {
		d, err := b.embedding(e)
		if err != nil {
			return nil, err
		}
		b.embFP[e.Name] = d.Fingerprint
		out = append(out, d)
	}
	for i, s := range m.Syntheses {
		d, err := b.synthesis(s)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		if o.Release {
			m.Syntheses[i] = nil
		}
	}
	for _, t := range m.Transcriptions {
		d, err := b.transcription(t)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if len(m.Packages) > 0 {
		fps, outs := map[string]string{}, map[string]string{}
		for _, d := range out {
			if d.Kind == manifest.KindSynthesis {
				fps[d.Address], outs[d.Address] = d.Fingerprint, d.Outputs[0].Path
			}
		}
		for _, p := range m.Packages {
			d, err := b.pkg(p, fps, outs)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
	}
	for _, d := range out {
		b.priorOf(d) // kept for Compute: most were looked up above
	}
	sortByAddress(out)
	return out, nil
}

// builder builds the desired resources of one manifest (see Build),
// sharing what many of them hold alike.
type builder struct {
	profile   contract.Profile
	maxText   int
	embs      []*manifest.Embedding
	embFP     map[string]string // embedding fingerprints by name
	hash      HashFunc
	enc       EncoderFunc                          // identifies the encoder of recordings encoded (recordingEncoder)
	dir       string                               // the manifest directory, for what is stat'ed before it is hashed
	scratch   []byte                               // the canonical JSON being hashed
	request   map[string]any                       // the canonical request being hashed
	configs   map[wireFormat]*contract.AudioConfig // one wire audio_config per format and profile (read-only)
	canonical map[contract.Format]map[string]any   // one canonical audio_config per format (read-only)
	blocks    map[blockName]string                 // one block address per block
	st        *state.File                          // the state planned against; nil: none
	shared    map[sharedDetails]*DesiredDetails    // see blockDetails
	// derivations are the shared derivations (see documented).
	derivations map[contract.SynthesisRequest]*derivation
}

// block is the address of the block named kind.name, shared by its
// resources.
func (b *builder) block(kind, name string) string {
	if s, ok := b.blocks[blockName{kind, name}]; ok {
		return s
	}
	key := kind + "." + name
	b.blocks[blockName{kind, name}] = key
	return key
}

// blockName is a block's kind and name.
type blockName struct{ kind, name string }

// blockDetails are the details of a synthesis of s's block that the block
// declares for all of its instances (listen:, deliver:, lifecycle:), one
// DesiredDetails shared by the instances declaring the same (nil when
// none is declared): 100,000 prompts of one block with listen: do not
// hold 100,000 copies. Desired.Edit copies them before a change.
func (b *builder) blockDetails(s *manifest.Synthesis) *DesiredDetails {
	sd := s.Details()
	x := DesiredDetails{Listen: sd.Listen, Deliver: sd.Deliver, Lifecycle: sd.Lifecycle}
	if sd.Lifecycle.PreventDestroy { // where it is declared, for the plan that refuses
		x.LifecyclePos = manifest.FieldPos(s.Fields, "lifecycle.prevent_destroy", s.Pos)
	}
	if x.isZero() {
		return nil
	}
	key := sharedDetails{listen: sd.Listen, deliveries: len(sd.Deliver), lifecycle: sd.Lifecycle, pos: x.LifecyclePos}
	if len(sd.Deliver) > 0 {
		key.deliver = &sd.Deliver[0]
	}
	if p, ok := b.shared[key]; ok {
		return p
	}
	if b.shared == nil {
		b.shared = map[sharedDetails]*DesiredDetails{}
	}
	p := new(DesiredDetails) // x stays on the stack: most calls return nil
	*p = x
	b.shared[key] = p
	return p
}

// sharedDetails identifies the details blockDetails shares.
type sharedDetails struct {
	listen     *manifest.Listen
	deliver    *manifest.Delivery // the first of them: they are shared
	deliveries int
	lifecycle  manifest.Lifecycle
	pos        manifest.Pos
}

// encode sets d's request and d.Fingerprint from req, the canonical
// request.
func (b *builder) encode(d *Desired, req map[string]any) error {
	var err error
	d.request, d.Fingerprint, err = encodeRequest(&b.scratch, string(d.Kind), req, b.priorOf(d))
	return err
}

// priorOf is d's record in the state built against (nil: none), looked
// up once and kept in d.
func (b *builder) priorOf(d *Desired) *state.Resource {
	if b.st == nil {
		return nil
	}
	if d.prior.in != b.st {
		d.prior = priorRecord{b.st, b.st.Resources[d.Address]}
	}
	return d.prior.r
}

// derived sets d.Fingerprint from req, the canonical request of the
// synthesis d, and how d's request is made again when asked for (see
// Desired.RequestJSON): from canonical when it is not d's wire request,
// with emb, its embedding by content. A request the state records as it
// is shares the recorded bytes instead.
func (b *builder) derived(d *Desired, req map[string]any, canonical *contract.SynthesisRequest, emb map[string]any) error {
	raw, fp, err := canonicalRequest(&b.scratch, string(d.Kind), req)
	if err != nil {
		return err
	}
	if prior := b.priorOf(d); prior != nil && prior.Fingerprint == string(fp[:]) {
		if recorded := prior.RequestJSON(); bytes.Equal(recorded, raw) {
			// Unchanged: the recorded bytes are shared, nothing is held
			// for it (the plan after an apply of 100,000).
			d.request, d.Fingerprint, d.derive = recorded, prior.Fingerprint, nil
			return nil
		}
	}
	d.Fingerprint = string(fp[:])
	switch {
	case canonical == d.Wire.Synthesis && emb == nil:
		d.derive = wireIsCanonical
	case canonical == d.Wire.Synthesis:
		d.derive = &derivation{sameWire: true, embedding: emb}
	default:
		d.derive = b.documented(canonical, emb)
	}
	return nil
}

// documented is the derivation of a synthesis whose canonical request is
// not its wire request: canonical without its text, with emb. Without an
// embedding, one is shared by all the syntheses that ask the same (the
// 100,000 prompts of a block hold one).
func (b *builder) documented(canonical *contract.SynthesisRequest, emb map[string]any) *derivation {
	x := derivation{canonical: *canonical, embedding: emb}
	x.canonical.Text = ""
	if emb != nil {
		return &x
	}
	if p, ok := b.derivations[x.canonical]; ok {
		return p
	}
	if b.derivations == nil {
		b.derivations = map[contract.SynthesisRequest]*derivation{}
	}
	p := &x
	b.derivations[x.canonical] = p
	return p
}

// synthesisRequest is synthesisRequest in the builder's map, with the
// canonical audio_config shared by every request of its format. The map is
// the builder's until the next call.
func (b *builder) synthesisRequest(w *contract.SynthesisRequest, embedding map[string]any) map[string]any {
	if b.request == nil {
		b.request = make(map[string]any, 8)
	}
	clear(b.request)
	format, _ := contract.Resolve(w.AudioConfig)
	audio, ok := b.canonical[format]
	if !ok {
		audio = format.Canonical()
		b.canonical[format] = audio
	}
	return requestInto(b.request, w, embedding, audio)
}

func inputHash(hash HashFunc, pos manifest.Pos, what, path string) (string, error) {
	h, err := hash(path)
	if err != nil {
		return "", fmt.Errorf("%s: %s %s: %w", pos, what, path, err)
	}
	if !h.Exists {
		return "", fmt.Errorf("%s: %s %s: no such file", pos, what, path)
	}
	return h.SHA256, nil
}

func (b *builder) embedding(e *manifest.Embedding) (*Desired, error) {
	sum, err := inputHash(b.hash, fieldPos(e.Fields, "reference_audio", e.Pos), "reference audio", e.ReferenceAudio)
	if err != nil {
		return nil, err
	}
	d := (&Desired{
		Address: e.Address,
		Kind:    manifest.KindEmbedding,
		Block:   e.Address,
		Wire:    Wire{Embedding: &contract.EmbeddingRequest{ReferenceAudio: e.ReferenceAudio}},
		Outputs: []Output{{Path: e.Output}},
	}).WithDetails(DesiredDetails{
		Sources:   []Source{{Role: "reference_audio", Path: e.ReferenceAudio, SHA256: sum}},
		Consent:   e.Consent,
		Embedding: e,
	})
	return d, b.encode(d, embeddingRequest(sum))
}

func (b *builder) synthesis(s *manifest.Synthesis) (*Desired, error) {
	text, applied := sentText(s)
	d := &Desired{
		Address:    s.Address,
		Kind:       manifest.KindSynthesis,
		Block:      b.block("synthesis", s.Name),
		Outputs:    synthesisOutputs(s),
		Characters: BilledCharacters(text),
		Transport:  s.Transport,
		Voice:      s.Voice,
	}
	d.details.Hold(b.blockDetails(s)) // shared by the block's instances: never written in place
	sd := s.Details()
	if sd.Recorded != nil {
		w := b.synthesisWire(s, text, b.profile) // the text, for checks and the report
		d.Wire.Synthesis = &w
		return d, b.recorded(d, s)
	}
	if sd.Cues != nil {
		d.Edit().Written = s.Text
	}
	emb, err := b.embeddingOf(s, d)
	if err != nil {
		return nil, err
	}
	// What is sent depends on the profile; the fingerprint does not: it
	// covers the request as the documents spell it, so that switching
	// profile replaces nothing.
	wire := b.synthesisWire(s, text, b.profile)
	d.Wire.Synthesis = &wire
	canonical := &wire
	if b.profile != contract.ProfileDocumented {
		documented := b.synthesisWire(s, text, contract.ProfileDocumented)
		canonical = &documented
	}
	req := b.synthesisRequest(canonical, emb)
	model := b.profile.SynthesisModel(s.Model)
	maxText := b.maxText
	if maxText <= 0 {
		maxText = model.MaxChars
	}
	if err := d.split(req, text, applied, maxText, model.RendersTags, canonical, emb); err != nil {
		return nil, err
	}
	return d, b.derived(d, req, canonical, emb)
}

// embeddingOf is the speaker embedding of s in its canonical request (nil
// for a model that takes none), naming d's embedding source and
// dependency.
func (b *builder) embeddingOf(s *manifest.Synthesis, d *Desired) (map[string]any, error) {
	sd := s.Details()
	if !contract.ProfileDocumented.SynthesisModel(s.Model).NeedsEmbedding {
		return nil, nil
	}
	switch {
	case sd.EmbeddingName != "":
		fp, ok := b.embFP[sd.EmbeddingName]
		if !ok {
			return nil, fmt.Errorf("%s: %s: unknown embedding %q", s.Pos, s.Address, sd.EmbeddingName)
		}
		addr := "embedding." + sd.EmbeddingName
		d.Edit().DependsOn = []string{addr}
		d.Edit().Sources = []Source{{Role: "embedding", Path: embeddingOutput(b.embs, sd.EmbeddingName), From: addr}}
		return map[string]any{"embedding_fingerprint": fp}, nil
	case sd.EmbeddingFile != "":
		sum, err := inputHash(b.hash, fieldPos(s.Fields, "voice", s.Pos), "embedding file", sd.EmbeddingFile)
		if err != nil {
			return nil, err
		}
		d.Edit().Sources = []Source{{Role: "embedding", Path: sd.EmbeddingFile, SHA256: sum}}
		return map[string]any{"file_sha256": sum}, nil
	}
	return nil, fmt.Errorf("%s: %s: voice %s (vc-v1) names no embedding", s.Pos, s.Address, s.Voice)
}

func embeddingOutput(embs []*manifest.Embedding, name string) string {
	for _, e := range embs {
		if e.Name == name {
			return e.Output
		}
	}
	return ""
}

func (b *builder) transcription(t *manifest.Transcription) (*Desired, error) {
	d := (&Desired{
		Address: t.Address,
		Kind:    manifest.KindTranscription,
		Block:   b.block("transcription", t.Name),
	}).WithDetails(DesiredDetails{Transcription: t})
	var sum string
	if t.IsURL {
		d.Edit().Sources = []Source{{Role: "source", URL: t.Key}} // never a pre-signed query
	} else {
		var err error
		sum, err = inputHash(b.hash, t.Pos, "input", t.Input)
		if err != nil {
			return nil, err
		}
		d.Edit().Sources = []Source{{Role: "source", Path: t.Input, SHA256: sum}}
	}
	formats := make([]string, 0, len(t.Outputs))
	for f := range t.Outputs {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	for _, f := range formats {
		d.Outputs = append(d.Outputs, Output{Path: t.Outputs[f], Format: f})
	}
	if t.RedactedAudio != "" {
		d.Outputs = append(d.Outputs, Output{Path: t.RedactedAudio, Format: RedactedAudioFormat})
	}
	d.Wire.Transcription = transcriptionWire(t)
	req := transcriptionRequest(d.Wire.Transcription, t.Key, sum)
	if err := renderRequest(req, t); err != nil {
		return nil, err
	}
	return d, b.encode(d, req)
}

func fieldPos(fields map[string]manifest.Pos, name string, def manifest.Pos) manifest.Pos {
	if p, ok := fields[name]; ok {
		return p
	}
	return def
}

// Fingerprint is the SHA-256 (hex) of the canonical JSON of a kind and its
// canonical request.
func Fingerprint(kind string, request map[string]any) (string, error) {
	_, fp, err := encodeRequest(nil, kind, request, nil)
	return fp, err
}
