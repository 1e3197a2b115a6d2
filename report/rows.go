package report

import (
	"fmt"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// page is everything index.html shows.
type page struct {
	Title string
	// Mode is "plan" (a saved plan) or "state" (the last apply).
	Mode string
	// Against says what the changes are measured against.
	Against string
	Made    string
	Items   []item
	// Cost is the plan's cost, or what the state records as billed.
	Cost planner.Cost
	// Counts are the rows by action (or by status without one).
	Counts map[string]int
	// Omitted counts resources over MaxResources, not listed.
	Omitted int
	// Compared is set when the rows know whether they changed (a plan, or
	// a state with its previous state).
	Compared bool
	// listening judges the rows' listening checks and holds the table of
	// limits they were judged at.
	listening *listening
	// manifest is Input.Manifest; texts its syntheses' texts by address,
	// made on first use (see declaredText).
	manifest *manifest.Manifest
	texts    map[string]string
}

// declaredText is the text the manifest declares for the synthesis at
// addr ("" without a manifest): a recorded synthesis's request is its
// recording, not its text, which the row still shows.
func (p *page) declaredText(addr string) string {
	if p.manifest == nil {
		return ""
	}
	if p.texts == nil {
		p.texts = make(map[string]string, len(p.manifest.Syntheses))
		for _, s := range p.manifest.Syntheses {
			p.texts[s.Address] = s.Text
		}
	}
	return clipText(p.texts[addr])
}

// fillText gives a row of a recorded synthesis, whose request holds no
// text, the text declared for it.
func (p *page) fillText(it *item) {
	if it.Text == "" && it.Recording != "" {
		it.Text = p.declaredText(it.Address)
	}
}

// item is one row: a resource with what the page shows of it. The JSON
// names are the page script's.
type item struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
	// Action is the plan's action, or the change since the previous state
	// (create, replace, move, delete, no-op); empty when not known.
	Action  string   `json:"action,omitempty"`
	Status  string   `json:"status,omitempty"`
	Changed bool     `json:"changed"`
	Reasons []string `json:"reasons,omitempty"`
	Text    string   `json:"text,omitempty"`
	// Diff is the word-level diff of the previous text to Text on a
	// replace whose text changed.
	Diff     []diffOp `json:"diff,omitempty"`
	Model    string   `json:"model,omitempty"`
	Voice    string   `json:"voice,omitempty"`
	Language string   `json:"language,omitempty"`
	// Origin is where the recorded outputs came from when not the
	// service: "imported", or "take" and the take's fingerprint (see
	// state.Resource.Origin).
	Origin string `json:"origin,omitempty"`
	// Recording is, for a synthesis whose output is a human recording
	// (recorded:), the recording's path as its request names it.
	Recording string `json:"recording,omitempty"`
	// Made: the row's resource is recorded with outputs (Origin says
	// where they came from; none: the service).
	Made bool `json:"made,omitempty"`
	// Approval is the sign-off recorded for the resource (nil: none).
	Approval *approvalView `json:"approval,omitempty"`
	// Approvable: the resource is made, complete and left as it is, so
	// 'voxform approve' may be asked for it; the page offers a tick box.
	// Digest is then its outputs digest (state.OutputsDigest): the page's
	// command approves it only if its outputs are still these (-expect).
	Approvable bool   `json:"approvable,omitempty"`
	Digest     string `json:"digest,omitempty"`
	// Duration is in seconds: the audio's, or the transcribed source's.
	Duration float64  `json:"duration,omitempty"`
	Size     int64    `json:"size,omitempty"`
	Cost     string   `json:"cost"`
	Outputs  []string `json:"outputs,omitempty"`
	Audio    *clip    `json:"audio,omitempty"`
	// Previous is the audio before a replace, or why it is not shown.
	Previous   *clip           `json:"previous,omitempty"`
	Transcript *transcriptView `json:"transcript,omitempty"`
	// Check is the listening check of a synthesis sent whole.
	Check *checkView `json:"check,omitempty"`
	// Chunks are the cues of a synthesis sent in chunks, in order; their
	// times are "recorded", "estimated" (a state from before voxform
	// recorded them) or "" (not known: the cues do not seek), as
	// ChunkTimes says; ChunkNote says what is estimated or not shown.
	Chunks     []cueView `json:"chunks,omitempty"`
	ChunkTimes string    `json:"chunk_times,omitempty"`
	ChunkNote  string    `json:"chunk_note,omitempty"`
	// Fails counts the row's failing listening checks and seams.
	Fails int `json:"listen_fails,omitempty"`

	// What fillItem places: the audio of now and before, the transcript.
	cur, prev   audioRef
	transcriptJ audioRef
	// What fillListen shows: the record whose audio cur is (its checks
	// and chunks), the planned chunks, and the declared listen: limits
	// with their index in the page's table.
	rec     *state.Resource
	planned []planner.DesiredChunk
	spec    *manifest.Listen
	limits  int
}

// audioRef says where a file may be found: on disk at Path while it holds
// SHA256, else in the cache under Fingerprint (Role).
type audioRef struct {
	// Label names the file on the page when it cannot be shown.
	Label       string
	Path        string
	SHA256      string
	Fingerprint string
	Role        string
	// Raw is the request's audio_config, for headerless audio.
	Raw map[string]any
	// Missing says why there is no file to look for ("made by apply").
	Missing string
	// Loudness is what the state recorded of the output as it was written.
	Loudness *state.Loudness
	// Roles names a transcript's channels (the request's channels).
	Roles map[int]string
}

// approvalView is an approval as a row shows it.
type approvalView struct {
	// State is ApprovalHolds, ApprovalLost or ApprovalEnds.
	State string `json:"state"`
	By    string `json:"by"`
	// At is when, in UTC (RFC 3339).
	At   string `json:"at"`
	Note string `json:"note,omitempty"`
}

// States of a row's approval (approvalView.State).
const (
	// ApprovalHolds: the recorded outputs are the bytes approved.
	ApprovalHolds = "approved"
	// ApprovalLost: the outputs changed since they were approved.
	ApprovalLost = "lost"
	// ApprovalEnds: it holds now, and the saved plan replaces the outputs.
	ApprovalEnds = "ends"
)

// approvalOf is the approval recorded for r, as a row shows it (nil when
// there is none).
func approvalOf(r *state.Resource) *approvalView {
	a := r.Details().Approval
	if a == nil {
		return nil
	}
	v := &approvalView{State: ApprovalLost, By: a.By, At: a.At.UTC().Format(time.RFC3339), Note: a.Note}
	if a.Holds(r) {
		v.State = ApprovalHolds
	}
	return v
}

// offerApproval offers a tick box when 'voxform approve' may be asked for
// r as it is recorded (complete, with outputs, its approval not holding
// already), with the digest of the outputs the reviewer hears.
func (it *item) offerApproval(r *state.Resource) {
	if r.Status == state.StatusComplete && len(r.Outputs) > 0 && !r.Approved() {
		it.Approvable, it.Digest = true, state.OutputsDigest(r.Outputs)
	}
}

func (r audioRef) wanted() bool { return r.Path != "" || r.Fingerprint != "" || r.Missing != "" }

// rows builds the page's rows from the input.
func rows(in Input) (*page, error) {
	p := &page{Title: in.Title, Made: in.Now.UTC().Format("2006-01-02 15:04 UTC"), Counts: map[string]int{}, listening: newListening(in.Manifest), manifest: in.Manifest}
	var err error
	if in.Plan != nil {
		err = planRows(in, p)
	} else {
		stateRows(in, p)
	}
	if err != nil {
		return nil, err
	}
	if len(p.Items) > MaxResources {
		p.Omitted = len(p.Items) - MaxResources
		p.Items = p.Items[:MaxResources]
	}
	for i := range p.Items {
		p.listening.prepare(&p.Items[i])
		k := p.Items[i].Action
		if k == "" {
			k = p.Items[i].Status
		}
		p.Counts[k]++
	}
	return p, nil
}

// stateRows lists every recorded resource, against the previous state when
// there is one (deleted resources last).
func stateRows(in Input, p *page) {
	p.Mode = "state"
	st, prev := in.State, in.Previous
	p.Compared = prev != nil
	nm, prevNm := namesOf(st), namesOf(prev)
	if prev != nil {
		p.Against = fmt.Sprintf("the previous state (serial %d)", prev.Serial)
	}
	for _, addr := range st.Addresses() {
		r := st.Resources[addr]
		it := describe(addr, r, nm)
		it.Status = r.Status
		it.cur, it.rec = outputRef(r), r
		it.Cost = billed(r).Short()
		it.offerApproval(r)
		p.fillText(&it)
		if prev != nil {
			old := prev.Resources[addr]
			switch {
			case old == nil:
				it.Action = string(planner.Create)
			case old.Fingerprint != r.Fingerprint:
				it.Action = string(planner.Replace)
				setPrevious(&it, old, prevNm, cacheOnly(outputRef(old)))
			case !samePaths(old, r):
				it.Action = string(planner.Move)
			default:
				it.Action = string(planner.NoOp)
			}
			it.Changed = it.Action != string(planner.NoOp)
		}
		if prev == nil || it.Action == string(planner.Create) || it.Action == string(planner.Replace) {
			p.Cost = p.Cost.Add(billed(r))
		}
		p.Items = append(p.Items, it)
	}
	if prev == nil {
		return
	}
	for _, addr := range prev.Addresses() {
		if _, ok := st.Resources[addr]; ok {
			continue
		}
		old := prev.Resources[addr]
		it := describe(addr, old, prevNm)
		it.Action, it.Changed, it.Cost = string(planner.Delete), true, "free"
		it.cur = audioRef{}
		setPrevious(&it, old, prevNm, cacheOnly(outputRef(old)))
		p.Items = append(p.Items, it)
	}
}

// planRows lists every action of the saved plan, then the recorded
// resources it leaves alone.
func planRows(in Input, p *page) error {
	p.Mode, p.Compared = "plan", true
	plan := in.Plan.Plan
	p.Against = fmt.Sprintf("the state (serial %d)", plan.Serial)
	p.Cost = plan.Cost
	seen := map[string]bool{}
	for _, pin := range plan.Pinned {
		seen[pin.Address] = true
	}
	nm := namesOf(in.State)
	for _, a := range plan.Actions {
		seen[a.Address] = true
		if a.Details().MovedFrom != "" {
			seen[a.Details().MovedFrom] = true
		}
		it, err := actionRow(a, nm)
		if err != nil {
			return err
		}
		p.Items = append(p.Items, it)
	}
	for _, addr := range in.State.Addresses() {
		if seen[addr] {
			continue
		}
		r := in.State.Resources[addr]
		it := describe(addr, r, nm)
		it.Action, it.Status, it.Cost = string(planner.NoOp), r.Status, "free"
		it.cur, it.rec = outputRef(r), r
		it.offerApproval(r)
		p.fillText(&it)
		p.Items = append(p.Items, it)
	}
	for _, pin := range plan.Pinned {
		r := in.State.Resources[pin.Address]
		if r == nil {
			continue
		}
		it := describe(pin.Address, r, nm)
		it.Action, it.Status, it.Cost = string(planner.NoOp), r.Status, "free"
		it.Reasons = []string{"pinned (approved): " + pin.Reason()}
		it.cur, it.rec = outputRef(r), r
		p.fillText(&it)
		p.Items = append(p.Items, it)
	}
	return nil
}

// actionRow is the row of one planned action.
func actionRow(a *planner.Action, nm names) (item, error) {
	var it item
	switch {
	case a.Desired != nil:
		d := a.Desired
		r := d.Entry()
		it = describe(a.Address, r, nm)
		it.Outputs = nil
		for _, o := range d.Outputs {
			it.Outputs = append(it.Outputs, o.Path)
		}
		it.planned = d.Details().Chunks
		if it.Text == "" && d.Wire.Synthesis != nil { // a recording's request holds no text
			it.Text = clipText(d.Wire.Synthesis.Text)
		}
	case a.Prior != nil:
		it = describe(a.Address, a.Prior, nm)
	default:
		return item{}, fmt.Errorf("report: %s: a %s with neither the desired nor the recorded resource", a.Address, a.Type)
	}
	it.Action, it.Changed, it.Reasons, it.Cost = string(a.Type), true, a.Reasons, a.Cost.Short()
	synth := it.Kind == "synthesis"
	switch {
	case !synth && a.Desired != nil:
		it.cur = outputRef(a.Desired.Entry()) // the source audio
	case !synth:
		it.cur = outputRef(a.Prior)
	case a.Type == planner.Create || a.Type == planner.Replace || a.Type == planner.Repair:
		it.cur = audioRef{Fingerprint: a.Desired.Fingerprint, Role: "audio", Missing: "made by apply", Raw: audioConfig(a.Desired.RequestFields())}
	case a.Type == planner.Restore:
		it.cur = audioRef{Fingerprint: a.Desired.Fingerprint, Role: "audio", Missing: "restored by apply from " + a.Details().RestoreFrom, Raw: audioConfig(a.Desired.RequestFields())}
	default: // move, resume, delete, check: what is recorded
		it.cur, it.rec = outputRef(a.Prior), a.Prior
	}
	if a.Prior != nil && a.Desired != nil && a.Prior.Fingerprint != a.Desired.Fingerprint {
		setPrevious(&it, a.Prior, nm, outputRef(a.Prior))
	}
	if a.Prior != nil && a.Desired != nil {
		it.Approval = approvalOf(a.Prior)
		if it.Approval != nil && it.Approval.State == ApprovalHolds && a.Type == planner.Replace {
			it.Approval.State = ApprovalEnds
		}
		if a.Type == planner.Replace { // where the outputs it replaces came from
			it.Origin = a.Prior.OriginLabel()
		}
	}
	return it, nil
}

// describe fills the fields of a row that the request and the record say.
func describe(addr string, r *state.Resource, nm names) item {
	it := item{Address: addr, Kind: r.Kind}
	req := r.RequestFields()
	it.Text = clipText(str(req, "text"))
	it.Model = str(req, "model")
	it.Voice = str(req, "voice")
	it.Language = str(req, "language")
	if it.Model == "" {
		it.Model = r.Details().Model
	}
	if it.Language == "" {
		it.Language = r.Details().DetectedLanguage
	}
	if it.Language == "" {
		it.Language = str(req, "language_code")
	}
	if emb, ok := req["speaker_embedding"].(map[string]any); ok && it.Voice == "" {
		it.Voice = "cloned voice"
		if fp, _ := emb["embedding_fingerprint"].(string); fp != "" {
			if a := nm[fp]; a != "" {
				it.Voice = "cloned: " + a
			}
		}
	}
	for _, o := range r.Outputs {
		it.Outputs = append(it.Outputs, o.Path)
		it.Size += o.Size
	}
	it.Duration = r.Details().DurationSeconds
	it.Origin, it.Recording = r.OriginLabel(), clipText(r.RecordingPath())
	it.Made = r.Status == state.StatusComplete && len(r.Outputs) > 0
	it.Approval = approvalOf(r)
	if r.Kind == "transcription" && r.Details().Source != nil && r.Details().Source.Path != "" {
		it.transcriptJ = transcriptRef(r)
	}
	return it
}

// setPrevious fills the previous text and audio of a replaced resource.
func setPrevious(it *item, old *state.Resource, nm names, ref audioRef) {
	before := describe(it.Address, old, nm)
	if before.Text != it.Text && before.Text != "" {
		it.Diff = wordDiff(before.Text, it.Text)
	}
	if old.Kind == "synthesis" {
		it.prev = ref
	}
}

// outputRef is where the audio output of a recorded synthesis (or an
// embedding's reference recording) is.
func outputRef(r *state.Resource) audioRef {
	if r == nil {
		return audioRef{}
	}
	switch r.Kind {
	case "synthesis":
		if len(r.Outputs) == 0 {
			return audioRef{Missing: "no output recorded"}
		}
		o := r.Outputs[0]
		// In the cache where the record keeps its bytes (a take's own
		// fingerprint, an imported file's content key).
		return audioRef{Label: o.Path, Path: o.Path, SHA256: o.SHA256, Fingerprint: r.CacheKey(), Role: "audio", Raw: audioConfig(r.RequestFields()), Loudness: o.Loudness}
	case "embedding", "transcription":
		if r.Details().Redaction != nil {
			return redactedRef(r)
		}
		if r.Details().Source != nil && r.Details().Source.Path != "" {
			return audioRef{Label: r.Details().Source.Path, Path: r.Details().Source.Path, SHA256: r.Details().Source.SHA256}
		}
		if r.Details().Source != nil && r.Details().Source.URL != "" {
			return audioRef{Missing: "the source is a URL, not copied into the report"}
		}
	}
	return audioRef{}
}

// redactedRef is the audio a redacted transcription shows: its redacted
// copy of the recording, never the recording itself, which says what the
// transcript hides.
func redactedRef(r *state.Resource) audioRef {
	for _, o := range r.Outputs {
		if o.Format == planner.RedactedAudioFormat {
			return audioRef{Label: o.Path, Path: o.Path, SHA256: o.SHA256, Fingerprint: r.Fingerprint, Role: planner.RedactedAudioFormat}
		}
	}
	return audioRef{Missing: "redacted: the recording is not copied into the report (redact.audio makes a copy that is)"}
}

// transcriptRef is where the transcript JSON of a transcription is.
func transcriptRef(r *state.Resource) audioRef {
	for _, o := range r.Outputs {
		if o.Format == "json" {
			return audioRef{Label: o.Path, Path: o.Path, SHA256: o.SHA256, Fingerprint: r.Fingerprint, Role: "json", Roles: channelRoles(r)}
		}
	}
	return audioRef{Fingerprint: r.Fingerprint, Role: "json", Roles: channelRoles(r)}
}

// channelRoles are the roles a transcription's request names its
// channels by (channels:), nil when none.
func channelRoles(r *state.Resource) map[int]string {
	m, _ := r.RequestFields()["channels"].(map[string]any)
	var roles map[int]string
	for k, v := range m {
		ch, err := strconv.Atoi(k)
		role, ok := v.(string)
		if err != nil || !ok {
			continue
		}
		if roles == nil {
			roles = map[int]string{}
		}
		roles[ch] = clipText(role)
	}
	return roles
}

// cacheOnly is ref looked for in the cache only: the path now holds
// something newer.
func cacheOnly(ref audioRef) audioRef {
	ref.Path = ""
	if ref.Fingerprint == "" && ref.Missing == "" {
		ref.Missing = "not in the output cache"
	}
	return ref
}

func billed(r *state.Resource) planner.Cost {
	return planner.Cost{Characters: r.BilledCharacters, AudioSeconds: r.Details().BilledAudioSeconds}
}

func samePaths(a, b *state.Resource) bool {
	if len(a.Outputs) != len(b.Outputs) {
		return false
	}
	for i := range a.Outputs {
		if a.Outputs[i].Path != b.Outputs[i].Path {
			return false
		}
	}
	return true
}

// names maps the fingerprints of a state's embeddings to their addresses,
// so that a synthesis in a cloned voice names its embedding.
type names map[string]string

func namesOf(st *state.File) names {
	n := names{}
	if st == nil {
		return n
	}
	addrs := st.Addresses()
	sort.Sort(sort.Reverse(sort.StringSlice(addrs))) // the first address wins
	for _, a := range addrs {
		if r := st.Resources[a]; r.Kind == "embedding" {
			n[r.Fingerprint] = a
		}
	}
	return n
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func audioConfig(req map[string]any) map[string]any {
	c, _ := req["audio_config"].(map[string]any)
	return c
}

// clipText cuts a text over MaxTextRunes characters.
func clipText(s string) string {
	if utf8.RuneCountInString(s) <= MaxTextRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxTextRunes {
			return s[:i] + fmt.Sprintf(" [... %d more characters]", utf8.RuneCountInString(s[i:]))
		}
		n++
	}
	return s
}
