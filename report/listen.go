package report

import (
	"math"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Limits of the listening part of a row.
const (
	// MaxDiffWords is the most words the aligned diff of one failing
	// check shows, both sides counted; the words past it are counted.
	MaxDiffWords = 1_000
	// MaxChunkTextRunes bounds the chunk texts of one row, all its cues
	// together; the cues past it are listed without their text.
	MaxChunkTextRunes = 200_000
	// diffContext is how many matching words a diff keeps on each side
	// of a divergence: a longer run of matches is shown as its count.
	diffContext = 5
	// maxOpRunes bounds the text of one run of a diff (one word of a
	// transcript may be any length).
	maxOpRunes = 500
)

// checkView is a listening check as the page shows it: the verdict and
// its measures, and for a failing check why, the aligned diff and where
// to listen. A passing check carries its figures only, so that 100,000
// passing prompts add a few dozen bytes each.
type checkView struct {
	Pass bool `json:"pass"`
	// Pending is set while the check's batch job runs: no verdict yet.
	Pending bool `json:"pending,omitempty"`
	// The measures (absent when zero).
	CER  float64 `json:"cer,omitempty"`
	WER  float64 `json:"wer,omitempty"`
	Run  int     `json:"longest_run,omitempty"`
	Tail int     `json:"missing_tail,omitempty"`
	// Limits indexes data.limits: the manifest's limits the verdict was
	// judged at. 0 (data.limits[0] is null) is the verdict as recorded,
	// under limits the page does not know (no manifest, or no listen:
	// for the resource in it).
	Limits int `json:"limits,omitempty"`
	Takes  int `json:"takes,omitempty"`
	// Failures says why the check fails, one line per failing measure.
	Failures []string `json:"failures,omitempty"`
	// Diff aligns the words sent with the words heard; DiffMore counts
	// the words past MaxDiffWords.
	Diff     []alignOp `json:"diff,omitempty"`
	DiffMore int       `json:"diff_more,omitempty"`
	// PlayFrom is where the player starts to hear the longest diverging
	// run: a second before it, in seconds of the output's audio.
	PlayFrom *float64 `json:"play_from,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// alignOp is one run of an aligned diff: Op is match, substitute, delete
// (sent, not heard) or insert (heard, not sent). Skip, on a match, counts
// the matching words not shown.
type alignOp struct {
	Op    string `json:"op"`
	Sent  string `json:"sent,omitempty"`
	Heard string `json:"heard,omitempty"`
	Skip  int    `json:"skip,omitempty"`
}

// limitsView is one set of listening limits a verdict was judged at.
type limitsView struct {
	MaxCER         float64 `json:"max_cer"`
	MaxWER         float64 `json:"max_wer"`
	MaxRun         int     `json:"max_run"`
	MaxMissingTail int     `json:"max_missing_tail"`
}

// cueView is one chunk of a joined output: where it plays (see
// item.ChunkTimes), what it says, its check, and the seam after it when
// that fails.
type cueView struct {
	Start float64    `json:"start"`
	End   float64    `json:"end"`
	Text  string     `json:"text,omitempty"`
	Check *checkView `json:"check,omitempty"`
	Seam  *seamView  `json:"seam,omitempty"`
}

// seamView is a failing boundary after a chunk: At seconds into the
// output, why it fails.
type seamView struct {
	At       float64  `json:"at"`
	Failures []string `json:"failures"`
}

// listening holds what the rows' checks are judged with: the manifest's
// listen: limits by address and its max_text_chars, and the table of
// limits the page lists once.
type listening struct {
	specs   map[string]*manifest.Listen
	index   map[*manifest.Listen]int
	limits  []*limitsView
	maxText int
}

func newListening(m *manifest.Manifest) *listening {
	l := &listening{specs: map[string]*manifest.Listen{}, index: map[*manifest.Listen]int{}, limits: []*limitsView{nil}}
	if m == nil {
		return l
	}
	l.maxText = m.Service.MaxTextChars
	for _, s := range m.Syntheses {
		if spec := s.Details().Listen; spec != nil {
			l.specs[s.Address] = spec
		}
	}
	return l
}

// prepare gives a synthesis row its declared limits (serially: the limits
// table is shared).
func (l *listening) prepare(it *item) {
	spec := l.specs[it.Address]
	if spec == nil || it.Kind != string(manifest.KindSynthesis) {
		return
	}
	it.spec = spec
	i, ok := l.index[spec]
	if !ok {
		t := spec.Thresholds
		i = len(l.limits)
		l.limits = append(l.limits, &limitsView{MaxCER: t.MaxCER, MaxWER: t.MaxWER, MaxRun: t.MaxRun, MaxMissingTail: t.MaxMissingTail})
		l.index[spec] = i
	}
	it.limits = i
}

// fillListen sets the row's check (an output sent whole) or its chunk
// cues with theirs, once its audio is placed (its duration known).
func (l *listening) fillListen(it *item) {
	r := it.rec
	switch {
	case (r != nil && len(r.Details().Chunks) > 0) || (r == nil && len(it.planned) > 0):
		l.fillChunks(it)
	case r != nil && len(r.Outputs) > 0 && r.Outputs[0].Listen != nil:
		sent, ok := r.RequestFields()["text"].(string)
		it.Check = it.check(r.Outputs[0].Listen, sent, ok, 0, true)
	}
	it.Fails = fails(it.Check)
	for _, c := range it.Chunks {
		it.Fails += fails(c.Check)
		if c.Seam != nil {
			it.Fails++
		}
	}
}

// fails is 1 for a check with a failing verdict.
func fails(c *checkView) int {
	if c == nil || c.Pass || c.Pending {
		return 0
	}
	return 1
}

// check is the view of the recorded check rec of audio that starts base
// seconds into the output (timed: that start is known). It is judged
// again at the row's limits when it was judged at others and sent (the
// text sent, known) is known; otherwise the recorded verdict is shown.
func (it *item) check(rec *state.Listen, sent string, known bool, base float64, timed bool) *checkView {
	if rec.Status == state.CheckPending {
		return &checkView{Pending: true, Note: "the check's batch job has not ended"}
	}
	v := *rec
	c := &checkView{}
	switch {
	case it.spec == nil: // the page says "as recorded" of a check without limits
	case !known:
		c.Note = "the verdict as recorded: the text sent is not known"
	case v.Judged == it.spec.Hash:
		c.Limits = it.limits
	default:
		if err := planner.Judge(&v, sent, it.spec); err != nil {
			v, c.Note = *rec, "the verdict as recorded: judging again: "+err.Error()
		} else {
			c.Limits = it.limits
		}
	}
	c.Pass, c.CER, c.WER, c.Run, c.Tail, c.Takes = v.Pass, v.CER, v.WER, v.LongestRun, v.MissingTail, v.Takes
	if v.Pass {
		return c
	}
	for _, f := range v.Failures {
		c.Failures = append(c.Failures, untrusted.Escape(f))
	}
	if known {
		c.Diff, c.DiffMore, c.Note = diffOrNote(sent, v.Heard, c.Note)
	} else if s := v.Span; s != nil {
		c.Diff = []alignOp{{Op: "substitute", Sent: clipRunes(s.Sent, maxOpRunes), Heard: untrusted.Escape(clipRunes(s.Heard, maxOpRunes))}}
	}
	if s := v.Span; s != nil && timed {
		at := math.Max(0, math.Round((base+s.Start-1)*10)/10)
		c.PlayFrom = &at
	}
	return c
}

// diffOrNote is the aligned diff of sent and heard, or note saying why
// there is none.
func diffOrNote(sent, heard, note string) ([]alignOp, int, string) {
	d, more, err := alignDiff(sent, heard)
	if err != nil {
		if note != "" {
			note += "; "
		}
		return nil, 0, note + "no diff: " + err.Error()
	}
	return d, more, note
}

// alignDiff aligns the words of sent (its audio tags removed, as the check
// compares it) with those heard, both normalized as the check does
// (listen.Normalize, listen.Align), as runs of one kind of edit. Each run
// shows the stretch of its text the words came from; heard text is made
// inert (untrusted.Escape). Runs of matches longer than twice
// diffContext keep diffContext words at each end.
func alignDiff(sent, heard string) ([]alignOp, int, error) {
	s, h := listen.Normalize(narration.Spoken(sent)), listen.Normalize(heard)
	edits, err := listen.Align(s.Strings(), h.Strings())
	if err != nil {
		return nil, 0, err
	}
	var d aligner
	for i := 0; i < len(edits); {
		j := i
		for j < len(edits) && edits[j].Op == edits[i].Op {
			j++
		}
		d.run(edits[i:j], s, h, i == 0, j == len(edits))
		i = j
	}
	return d.ops, d.more, nil
}

// aligner collects the runs of an aligned diff within MaxDiffWords.
type aligner struct {
	ops   []alignOp
	words int
	more  int
}

// run adds one run of edits of one kind (first and last: it starts or
// ends the text).
func (d *aligner) run(e []listen.Edit, s, h listen.Normalized, first, last bool) {
	n := len(e)
	if d.words >= MaxDiffWords {
		d.more += n
		return
	}
	if e[0].Op != listen.Match {
		take := min(n, MaxDiffWords-d.words)
		d.words += take
		d.more += n - take
		d.ops = append(d.ops, edit(e[:take], s, h))
		return
	}
	head, tail := diffContext, diffContext
	if first {
		head = 0
	}
	if last {
		tail = 0
	}
	if n <= head+tail+1 {
		head, tail = n, 0
	}
	if head > 0 {
		d.add(e[:head], s, h)
	}
	if skip := n - head - tail; skip > 0 {
		d.ops = append(d.ops, alignOp{Op: "match", Skip: skip})
	}
	if tail > 0 {
		d.add(e[n-tail:], s, h)
	}
}

// add adds matching words, within MaxDiffWords.
func (d *aligner) add(e []listen.Edit, s, h listen.Normalized) {
	take := min(len(e), MaxDiffWords-d.words)
	d.words += take
	d.more += len(e) - take
	if take > 0 {
		d.ops = append(d.ops, edit(e[:take], s, h))
	}
}

// edit is the run of edits e (of one kind) with the text of each side.
func edit(e []listen.Edit, s, h listen.Normalized) alignOp {
	op := alignOp{Op: e[0].Op.String()}
	switch e[0].Op {
	case listen.Match, listen.Delete:
		op.Sent = stretch(s, e[0].Ref, e[len(e)-1].Ref+1)
	case listen.Insert:
		op.Heard = untrusted.Escape(stretch(h, e[0].Hyp, e[len(e)-1].Hyp+1))
	case listen.Substitute:
		op.Sent = stretch(s, e[0].Ref, e[len(e)-1].Ref+1)
		op.Heard = untrusted.Escape(stretch(h, e[0].Hyp, e[len(e)-1].Hyp+1))
	}
	return op
}

// stretch is the text words [i, j) of n were made from, cut at maxOpRunes.
func stretch(n listen.Normalized, i, j int) string {
	if i >= j || j > len(n.Words) {
		return ""
	}
	start, end := n.Words[i].Start, n.Words[i].End
	for _, w := range n.Words[i:j] {
		start, end = min(start, w.Start), max(end, w.End)
	}
	return clipRunes(n.Text[start:end], maxOpRunes)
}

// clipRunes cuts s after n characters, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// fillChunks sets the cues of a chunked output: the recorded chunks with
// their times, checks and failing seams; or, for audio not made yet, the
// planned chunks' texts alone.
func (l *listening) fillChunks(it *item) {
	r := it.rec
	texts := l.chunkTexts(r, it.planned)
	if r == nil || len(r.Details().Chunks) == 0 {
		it.Chunks = make([]cueView, len(it.planned))
		it.setCueTexts(texts)
		return
	}
	starts, ends, how := chunkTimes(r.Details().Chunks, it.Duration)
	it.ChunkTimes = how
	switch {
	case how == "estimated":
		it.ChunkNote = "chunk times are estimated from the chunks' characters: the state predates recorded chunk times"
	case how == "":
		it.ChunkNote = "chunk times are not known: the state predates recorded chunk times and the audio's duration is not known"
	}
	if texts == nil {
		it.ChunkNote = joinNote(it.ChunkNote, "chunk texts are not shown: the recorded text does not split into the recorded chunks")
	}
	it.Chunks = make([]cueView, len(r.Details().Chunks))
	for i, c := range r.Details().Chunks {
		cue := &it.Chunks[i]
		cue.Start, cue.End = starts[i], ends[i]
		if c.Listen != nil {
			var sent string
			if texts != nil {
				sent = texts[i]
			}
			cue.Check = it.check(c.Listen, sent, texts != nil, starts[i], how != "")
		}
	}
	it.setCueTexts(texts)
	it.setSeams(r.Details().Chunks)
}

// setSeams marks the cues followed by a failing seam (planner.Seams) at
// the row's limits, else the default ones.
func (it *item) setSeams(cs []state.ChunkRecord) {
	limits := manifest.DefaultSeams()
	if it.spec != nil {
		limits = it.spec.Seams
	}
	for _, s := range planner.Seams(cs, limits) {
		if !s.Pass {
			it.Chunks[s.Index].Seam = &seamView{At: s.At, Failures: s.Failures}
		}
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// setCueTexts gives the cues their texts, within MaxChunkTextRunes for
// the row; when every cue has its text, the row's text (the same words,
// clipped) is left to them.
func (it *item) setCueTexts(texts []string) {
	if texts == nil {
		return
	}
	left := MaxChunkTextRunes
	all := true
	for i, t := range texts {
		n := utf8.RuneCountInString(t)
		if n > left {
			all = false
			break
		}
		left -= n
		it.Chunks[i].Text = t
	}
	if all {
		it.Text = ""
	} else {
		it.ChunkNote = joinNote(it.ChunkNote, "the texts of later chunks are not shown: the page shows at most "+numfmt.Thousands(int64(MaxChunkTextRunes))+" characters of one output's chunks")
	}
}

// chunkTimes places each chunk in the joined output: as recorded
// ("recorded"); for a state that predates recorded times, in proportion
// to the chunks' characters over the output's duration ("estimated");
// else not at all ("").
func chunkTimes(cs []state.ChunkRecord, duration float64) (starts, ends []float64, how string) {
	starts, ends = make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		starts[i], ends[i] = c.Start, c.End
		if c.End > 0 {
			how = "recorded"
		}
	}
	if how != "" {
		return starts, ends, how
	}
	var total int64
	for _, c := range cs {
		total += c.Characters
	}
	if total <= 0 || !(duration > 0) {
		return starts, ends, ""
	}
	var at int64
	for i, c := range cs {
		starts[i] = math.Round(duration*float64(at)/float64(total)*100) / 100
		at += c.Characters
		ends[i] = math.Round(duration*float64(at)/float64(total)*100) / 100
	}
	return starts, ends, "estimated"
}

// chunkTexts is the text each chunk sent: the plan's when the row is a
// planned action whose chunks are those recorded (or nothing is
// recorded); else the recorded request's text split again as the planner
// split it (narration.Split at the manifest's max_text_chars, else the
// model's), taken only when every part's fingerprint is the recorded
// chunk's. Nil when neither gives them.
func (l *listening) chunkTexts(r *state.Resource, planned []planner.DesiredChunk) []string {
	if r == nil || len(r.Details().Chunks) == 0 {
		return plannedTexts(planned)
	}
	if len(planned) == len(r.Details().Chunks) {
		same := true
		for i := range planned {
			same = same && planned[i].Fingerprint == r.Details().Chunks[i].Fingerprint
		}
		if same {
			return plannedTexts(planned)
		}
	}
	return l.splitRecorded(r)
}

func plannedTexts(planned []planner.DesiredChunk) []string {
	if len(planned) == 0 {
		return nil
	}
	out := make([]string, len(planned))
	for i, c := range planned {
		out[i] = c.Text
	}
	return out
}

// splitRecorded splits the recorded text of r into its recorded chunks.
func (l *listening) splitRecorded(r *state.Resource) []string {
	req := r.RequestFields()
	text, ok := req["text"].(string)
	if !ok {
		return nil
	}
	model := contract.ProfileDocumented.SynthesisModel(str(req, "model"))
	base := make(map[string]any, len(req))
	for k, v := range req {
		if k != "chunks" {
			base[k] = v
		}
	}
	for _, max := range []int{l.maxText, model.MaxChars} {
		if max <= 0 {
			continue
		}
		parts := narration.Split(text, max, narration.Options{RendersTags: model.RendersTags})
		if texts := matching(parts, r.Details().Chunks, base); texts != nil {
			return texts
		}
	}
	return nil
}

// matching is the texts of parts when each part's request (base with its
// text) has the fingerprint of the recorded chunk at its place.
func matching(parts []narration.Chunk, cs []state.ChunkRecord, base map[string]any) []string {
	if len(parts) != len(cs) {
		return nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		base["text"] = p.Text
		fp, err := planner.Fingerprint(string(manifest.KindSynthesis), base)
		if err != nil || fp != cs[i].Fingerprint {
			return nil
		}
		out[i] = p.Text
	}
	return out
}
