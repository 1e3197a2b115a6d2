package workspace

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// ListenCheck is one listening check as CheckListen found it: the audio
// of a synthesis sent whole (Chunk -1), or chunk Chunk of Of of a split
// one, Start to End seconds into its joined output.
type ListenCheck struct {
	Address string  `json:"address"`
	Path    string  `json:"path"`
	Chunk   int     `json:"chunk"`
	Of      int     `json:"of,omitempty"`
	Start   float64 `json:"start_seconds,omitempty"`
	End     float64 `json:"end_seconds,omitempty"`
	// Text is the text sent (the lexicon applied, audio tags and all),
	// what the transcript was judged against.
	Text string `json:"-"`
	// Spec is the check the manifest declares: its limits.
	Spec *manifest.Listen `json:"-"`
	// Record is a copy of the recorded check judged again at the
	// manifest's current limits, its span placed in the joined output
	// (Start added); nil when Unchecked.
	Record *state.Listen `json:"listen,omitempty"`
	Pass   bool          `json:"pass"`
	// Unchecked says why the output declares a check that is not
	// recorded for its current audio ("not checked", "its check is
	// pending"): such a check fails, it is never taken as passed.
	Unchecked string `json:"unchecked,omitempty"`
}

// Item names the check for a reader: "listen build/x.wav", or "listen
// chunk 12 of 30 (143.2-274.9 s)" (without its place when the state
// records none).
func (c *ListenCheck) Item() string {
	switch {
	case c.Chunk < 0:
		return "listen " + c.Path
	case c.End <= c.Start:
		return "listen " + planner.ChunkName(c.Chunk, c.Of)
	}
	return fmt.Sprintf("listen %s (%.1f-%.1f s)", planner.ChunkName(c.Chunk, c.Of), c.Start, c.End)
}

// SeamCheck is one chunk boundary of a joined output (planner.Seams).
type SeamCheck struct {
	Address string
	Path    string
	// Of is how many chunks the output has; Limits the manifest's.
	Of     int
	Limits manifest.Seams
	Seam   planner.Seam
}

// Item names the seam for a reader: "seam 12|13 at 274.9 s".
func (s *SeamCheck) Item() string {
	return fmt.Sprintf("seam %d|%d at %.1f s", s.Seam.Index+1, s.Seam.Index+2, s.Seam.At)
}

// ListenReport is the result of CheckListen.
type ListenReport struct {
	// Checks are every check the manifest declares, by address then
	// chunk; Seams every boundary of the joined outputs among them.
	Checks []ListenCheck
	Seams  []SeamCheck
}

// Failed counts the checks and seams that fail (unchecked ones included).
func (r *ListenReport) Failed() (checks, seams int) {
	for i := range r.Checks {
		if !r.Checks[i].Pass {
			checks++
		}
	}
	for i := range r.Seams {
		if !r.Seams[i].Seam.Pass {
			seams++
		}
	}
	return checks, seams
}

// Unchecked lists the declared checks not recorded for their audio:
// "synthesis.x: build/x.wav: not checked".
func (r *ListenReport) Unchecked() []string {
	var out []string
	for i := range r.Checks {
		if c := &r.Checks[i]; c.Unchecked != "" {
			out = append(out, c.Address+": "+c.Item()+": "+c.Unchecked)
		}
	}
	return out
}

// Reasons a declared check has no verdict for the audio on disk.
const (
	NotMade      = "not made: the output is not recorded complete"
	NotCurrent   = "the recorded output is not the manifest's current request"
	ChangedSince = "its file changed since it was checked"
	NotChecked   = "not checked"
	CheckPending = "its check is pending (a batch job)"
)

// CheckListen judges again, at the manifest's current limits, every
// listening check recorded in st for the syntheses of m that declare
// listen:, and computes the seams of each joined output from its chunk
// records. Nothing calls the service: the recorded transcripts are
// judged (planner.Judge) against the text the manifest sends. changed
// are the outputs whose content no longer matches the state (Verify): a
// check of them says nothing of the file on disk. A declared check
// without a verdict for the recorded audio is reported Unchecked.
func (w *Workspace) CheckListen(ctx context.Context, m *manifest.Manifest, st *state.File, changed map[string]bool) (*ListenReport, error) {
	desired, err := w.listenDesired(ctx, m)
	if err != nil {
		return nil, err
	}
	rep := &ListenReport{}
	for _, d := range desired {
		rep.add(d, st.Resources[d.Address], changed)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range rep.Checks {
		c := &rep.Checks[i]
		if c.Record == nil {
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			judge(c)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return rep, nil
}

// listenDesired builds the desired resources of the syntheses of m that
// declare listen: (with the embeddings they name), and only those: a
// verify of a large manifest builds no more than it judges.
func (w *Workspace) listenDesired(ctx context.Context, m *manifest.Manifest) ([]*planner.Desired, error) {
	part := ListenPart(m)
	if part == nil {
		return nil, nil
	}
	sub := *part
	desired, err := w.build(ctx, &sub)
	if err != nil {
		return nil, fmt.Errorf("verify listen: %w", err)
	}
	return desired, nil
}

// add appends the checks (and seams) of the desired synthesis d, recorded
// as r (nil: not recorded). Its items and what the state records of each
// are the planner's (planner.ListenItems of a Check of r).
func (rep *ListenReport) add(d *planner.Desired, r *state.Resource, changed map[string]bool) {
	if was := planner.PinnedAs(d, r); was != nil {
		d = was // judged as approved, as the plan checks it
	}
	path := d.Outputs[0].Path
	why := ""
	switch {
	case r == nil || r.Status != state.StatusComplete:
		why = NotMade
	case r.Fingerprint != d.Fingerprint:
		why = NotCurrent
	case changed[path]:
		why = ChangedSince
	case len(d.Details().Chunks) > 0 && len(r.Details().Chunks) != len(d.Details().Chunks):
		why = NotChecked + ": its chunks are not recorded"
	}
	var items []planner.ListenItem
	if why == "" {
		items = planner.ListenItems(&planner.Action{Address: d.Address, Type: planner.Check, Desired: d, Prior: r})
	}
	code, how := d.ListenLanguage()
	n := max(len(d.Details().Chunks), 1)
	for i := range n {
		c := ListenCheck{Address: d.Address, Path: path, Chunk: -1, Text: d.Wire.Synthesis.Text, Spec: d.Details().Listen, Unchecked: why}
		if len(d.Details().Chunks) > 0 {
			c.Chunk, c.Of, c.Text = i, len(d.Details().Chunks), d.Details().Chunks[i].Text
		}
		if why == "" {
			if c.Chunk >= 0 { // the resource's fingerprint covers its chunks': r.Chunks are d's
				c.Start, c.End = r.Details().Chunks[i].Start, r.Details().Chunks[i].End
			}
			c.take(&items[i], code, how)
		}
		rep.Checks = append(rep.Checks, c)
	}
	if why == "" && len(d.Details().Chunks) > 0 {
		for _, s := range planner.Seams(r.Details().Chunks, d.Details().Listen.Seams) {
			rep.Seams = append(rep.Seams, SeamCheck{Address: d.Address, Path: path, Of: len(d.Details().Chunks), Limits: d.Details().Listen.Seams, Seam: s})
		}
	}
}

// take sets c.Record to a copy of the item's record when it is a verdict
// on the item's audio in the language the manifest asks (code, how:
// planner.ListenItem.Recorded), and otherwise c.Unchecked to why not.
func (c *ListenCheck) take(it *planner.ListenItem, code, how string) {
	l := it.Record
	switch {
	case l == nil || l.Fingerprint == "":
		c.Unchecked = NotChecked
	case l.Status == state.CheckPending:
		c.Unchecked = CheckPending
	case code == "":
		c.Unchecked = NotChecked + ": no recognition language hears it (" + how + ")"
	case l.LanguageCode != code:
		c.Unchecked = fmt.Sprintf("%s in %s: heard in %s", NotChecked, code, l.LanguageCode)
	case !it.Recorded(code):
		c.Unchecked = NotChecked + ": its recorded check is of other audio"
	default:
		cp := *l
		c.Record = &cp
	}
}

// judge judges c's record again under c.Spec. The span's time, which the
// apply that made the check may have taken from the service's timings,
// is kept when the same words diverge; it is then placed in the joined
// output. A transcript that cannot be judged (over listen's bounds)
// fails, saying why.
func judge(c *ListenCheck) {
	l := c.Record
	var was *state.ListenSpan
	if l.Span != nil {
		s := *l.Span
		was = &s
	}
	if err := planner.Judge(l, c.Text, c.Spec); err != nil {
		l.Pass, l.Span, l.Failures = false, nil, []string{err.Error()}
	}
	if s := l.Span; s != nil && was != nil && was.From == s.From && was.To == s.To {
		s.Start = was.Start
	}
	c.Record = planner.Placed(l, c.Start)
	c.Pass = l.Pass
}

// ListenChecks plans m against the locked state and returns the plan of
// its Check actions only (planner.Check: outputs kept as they are whose
// declared checks are not recorded for their audio), as Pull takes the
// restores: 'verify -listen -make' makes checks, never a synthesis, so
// each is carried out without its regeneration (its worst case is its
// cost). The budget is held against what the checks cost, not against
// the rest of the plan, which is left for apply. It consumes m's
// syntheses, as Plan does.
func (s *Session) ListenChecks(ctx context.Context, m *manifest.Manifest, opts planner.Options) (*planner.Plan, error) {
	p, err := s.Plan(ctx, m, opts)
	if err != nil && !(p != nil && errors.Is(err, planner.ErrBudget)) {
		return nil, err
	}
	checks := ChecksOnly(p)
	return checks, planner.CheckBudget(checks.Cost, m.Budget)
}

// ChecksOnly is the plan of the Check actions of p, each a copy without
// regeneration: the action's and its check's Regenerate are 0 and its
// worst case is its cost, so that no take is billed.
func ChecksOnly(p *planner.Plan) *planner.Plan {
	sub := p.Subset(func(a *planner.Action) bool { return a.Type == planner.Check })
	for i, a := range sub.Actions {
		c := *a
		if c.Listen != nil {
			w := *c.Listen
			w.Regenerate, w.Worst = 0, c.Cost
			c.Listen = &w
		}
		if c.Desired != nil && c.Desired.Details().Listen != nil {
			d, l := *c.Desired, *c.Desired.Details().Listen // shared by the block's instances: copied
			l.Regenerate = 0
			d.Edit().Listen = &l
			c.Desired = &d
		}
		sub.Actions[i] = &c
	}
	sub.Worst = sub.Cost
	return sub
}

// ListenPart is m with only what judging its listening checks needs: its
// syntheses that declare listen: and the embeddings they name (nil when
// none declares one), so that an apply keeps no more of a large manifest
// than its checks.
func ListenPart(m *manifest.Manifest) *manifest.Manifest {
	sub := Settings(m)
	named := map[string]bool{}
	for _, s := range m.Syntheses {
		if sd := s.Details(); sd.Listen != nil {
			sub.Syntheses = append(sub.Syntheses, s)
			named[sd.EmbeddingName] = true
		}
	}
	if len(sub.Syntheses) == 0 {
		return nil
	}
	for _, e := range m.Embeddings {
		if named[e.Name] {
			sub.Embeddings = append(sub.Embeddings, e)
		}
	}
	return sub
}

// ListenVerdicts lists, for a state, every declared listening check of m
// that fails at m's current limits or is not made for its output's audio,
// and every failing seam, as an apply's summary lists them
// (executor.Options.ListenVerdicts): the one rule of what keeps an apply
// red is CheckListen's, verify -listen's. Checks m no longer declares
// are not listed. An error judging them is one failure, so that a check
// is never taken for passed.
func (w *Workspace) ListenVerdicts(ctx context.Context, m *manifest.Manifest) func(*state.File) ([]executor.ListenFailure, int) {
	return func(st *state.File) ([]executor.ListenFailure, int) {
		if m == nil {
			return nil, 0
		}
		rep, err := w.CheckListen(ctx, m, st, nil)
		if err != nil {
			return []executor.ListenFailure{{Address: "listen", Chunk: -1, Why: err.Error()}}, 1
		}
		var out []executor.ListenFailure
		for i := range rep.Checks {
			c := &rep.Checks[i]
			if c.Pass {
				continue
			}
			f := executor.ListenFailure{Address: c.Address, Chunk: c.Chunk, Of: c.Of, Start: c.Start, End: c.End, Why: c.Unchecked}
			if c.Record != nil {
				f.Why, f.Takes = planner.FailureLine(c.Record), c.Record.Takes
			}
			out = append(out, f)
		}
		for i := range rep.Seams {
			if sc := &rep.Seams[i]; !sc.Seam.Pass {
				out = append(out, executor.ListenFailure{Address: sc.Address, Chunk: sc.Seam.Index, Of: sc.Of, Seam: true, Start: sc.Seam.At, Why: strings.Join(sc.Seam.Failures, "; ")})
			}
		}
		n := len(out)
		return out[:min(n, executor.MaxListenFailuresListed)], n
	}
}
