package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// makeHint says how to make the checks verify -listen found missing.
const makeHint = "run 'voxform apply', or 'voxform verify -listen -make' to make only the checks"

// checkListenFlags refuses the flags of -make without it, and -make
// without -listen.
func (o *verifyOptions) checkListenFlags() error {
	if o.make && !o.listen {
		return usageErrorf("verify: -make goes with -listen")
	}
	for _, name := range []string{"auto-approve", "parallelism", "emulate", "cache", "lock-timeout"} {
		if o.set[name] && !o.make {
			return usageErrorf("verify: -%s goes with -listen -make", name)
		}
	}
	return nil
}

// interrupted reports whether err ends the command: an interrupt.
func interrupted(err error) bool {
	var ee *exitError
	return errors.Is(err, context.Canceled) || (errors.As(err, &ee) && ee.code == ExitInterrupted)
}

// makeChecks makes the listening checks the plan would make and nothing
// else (workspace.Session.ListenChecks): those the output cache holds at
// once, those that bill with -auto-approve or a terminal's "yes". Without
// either, the billed ones are left and said so; they are then reported
// as not checked.
func makeChecks(ctx context.Context, env *Env, o *verifyOptions) error {
	f := &o.apply
	f.plan.refresh, f.plan.jsonOut = true, o.json
	if f.plan.service.emulate {
		announceEmulated(env, "verify -listen -make", "-emulate")
	}
	ws, err := openWorkspace(env, &f.plan.vars, f.plan.lockTimeout)
	if err != nil {
		return err
	}
	ws.Emulated = f.plan.service.emulate
	pr := &preparedPlan{ws: ws}
	defer pr.release()
	if pr.session, err = ws.Lock(ctx, "verify"); err != nil {
		return err
	}
	m, err := loadManifest(env, &f.plan.vars)
	if err != nil {
		return err
	}
	pr.manifest, pr.listen = workspace.Settings(m), workspace.ListenPart(m)
	checks, err := pr.session.ListenChecks(ctx, m, f.plan.options())
	if checks == nil {
		return err
	}
	if !o.json {
		writeChecks(env.Stdout, checks)
	}
	if err != nil {
		return withHint(err, "raise the budget in the manifest, or make fewer checks at once")
	}
	if pr.plan = approvedChecks(ctx, env, o, checks); pr.plan == nil || !pr.plan.HasChanges() {
		return ctx.Err()
	}
	if pr.plan.CallsService() {
		if err := checkService(ctx, env, pr.manifest, f.plan.service); err != nil {
			return err
		}
	}
	return execute(ctx, env, f, pr)
}

// approvedChecks is the checks to make: all of them with -auto-approve or
// a terminal's "yes"; else those that bill nothing, the others said to be
// left. Nil when the question was refused.
func approvedChecks(ctx context.Context, env *Env, o *verifyOptions, checks *planner.Plan) *planner.Plan {
	if checks.Cost == (planner.Cost{}) || o.apply.autoApprove {
		return checks
	}
	if env.Interactive && !o.json {
		if err := confirm(ctx, env, &o.apply, false); err != nil {
			fmt.Fprintf(env.Stderr, "voxform: %s\n", untrusted.Lines(err.Error()))
			return nil
		}
		return checks
	}
	free := checks.Subset(func(a *planner.Action) bool { return a.Cost == (planner.Cost{}) })
	free.Worst = free.Cost
	fmt.Fprintf(env.Stderr, "voxform: %d listening check(s) that bill were not made (%s): pass -auto-approve to make them\n",
		len(checks.Actions)-len(free.Actions), checks.Cost.Short())
	return free
}

// writeChecks lists the checks a plan makes, as pull lists what it
// leaves, and their cost.
func writeChecks(w io.Writer, p *planner.Plan) {
	if !p.HasChanges() {
		fmt.Fprintln(w, "No listening check to make: every declared check is recorded for its audio, or waits for apply.")
		return
	}
	fmt.Fprintf(w, "Listening checks to make (%d):\n", len(p.Actions))
	for _, a := range p.Actions {
		fmt.Fprintf(w, "  %s %s: %s (%s)\n", a.Type.Symbol(), untrusted.Escape(a.Address), untrusted.Escape(strings.Join(a.Reasons, "; ")), a.Cost.Short())
	}
	fmt.Fprintln(w, p.Cost.Line())
}

// listenFindings adds to f what rep says fails.
func listenFindings(rep *workspace.ListenReport, f *findings) {
	checks, seams := rep.Failed()
	unchecked := len(rep.Unchecked())
	if n := checks - unchecked; n > 0 {
		f.add(fmt.Sprintf("%d listening check(s) fail", n), "'voxform apply -replace ADDR' makes a failing output again; or widen the limits of its listen: block")
	}
	if unchecked > 0 {
		f.add(fmt.Sprintf("%d declared listening check(s) are not checked", unchecked), makeHint)
	}
	if seams > 0 {
		f.add(fmt.Sprintf("%d seam(s) of joined outputs are outside their limits", seams), "widen listen.seams, or make the chunks on either side again")
	}
}

// writeListen reports the checks and seams that fail as a table (or every
// check and seam as JSON objects), then a summary line; it returns how
// many fail. Texts heard come from the service: they are shown inert
// (untrusted.Excerpt).
func writeListen(w io.Writer, rep *workspace.ListenReport, jsonOut bool) int {
	checks, seams := rep.Failed()
	if jsonOut {
		for i := range rep.Checks {
			writeJSONLine(w, listenJSONOf(&rep.Checks[i]))
		}
		for i := range rep.Seams {
			writeJSONLine(w, seamJSONOf(&rep.Seams[i]))
		}
		return checks + seams
	}
	if checks+seams > 0 {
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ADDRESS\tITEM\tVERDICT\tWHY")
		for i := range rep.Checks {
			if c := &rep.Checks[i]; !c.Pass {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", untrusted.Escape(c.Address), untrusted.Escape(c.Item()), verdict(c), checkWhy(c))
			}
		}
		for i := range rep.Seams {
			if s := &rep.Seams[i]; !s.Seam.Pass {
				fmt.Fprintf(tw, "%s\t%s\tfail\t%s\n", untrusted.Escape(s.Address), s.Item(), seamFigures(s))
			}
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "Listening checks: %d declared, %d fail (%d not checked); seams: %d, %d outside their limits.\n",
		len(rep.Checks), checks, len(rep.Unchecked()), len(rep.Seams), seams)
	return checks + seams
}

// verdict is a check's verdict in a word.
func verdict(c *workspace.ListenCheck) string {
	switch {
	case c.Unchecked != "":
		return "unchecked"
	case c.Pass:
		return "pass"
	}
	return "fail"
}

// checkWhy says why a check fails, or that it passes, with its figures:
// "longest_run: 4 words over 2: … at 151.0 s: sent "…", heard "…"; cer
// 0.083 (max 0.2), …". Each text from the record is an excerpt, inert.
func checkWhy(c *workspace.ListenCheck) string {
	if c.Unchecked != "" {
		return untrusted.Escape(c.Unchecked)
	}
	l := c.Record
	var parts []string
	for _, f := range l.Failures {
		parts = append(parts, untrusted.Excerpt(f))
	}
	why := strings.Join(parts, "; ")
	if s := l.Span; s != nil && !l.Pass {
		why += fmt.Sprintf(" at %.1f s: sent \"%s\", heard \"%s\"", s.Start, untrusted.Excerpt(s.Sent), untrusted.Excerpt(s.Heard))
	}
	if why != "" {
		why += "; "
	}
	return why + listenFigures(c)
}

// listenFigures states a check's measures beside its limits.
func listenFigures(c *workspace.ListenCheck) string {
	l, t := c.Record, c.Spec.Thresholds
	return fmt.Sprintf("cer %.3f (max %g), wer %.3f (max %g), longest_run %d words (max %d), missing_tail %d words (max %d)",
		l.CER, t.MaxCER, l.WER, t.MaxWER, l.LongestRun, t.MaxRun, l.MissingTail, t.MaxMissingTail)
}

// seamFigures states a seam's measures beside its limits, the failing
// first: "step 4.10 LU > 3 LU; gap 0.42 s within 0-2 s".
func seamFigures(s *workspace.SeamCheck) string {
	lim := s.Limits
	parts := append([]string(nil), s.Seam.Failures...)
	if math.IsNaN(s.Seam.Step) {
		parts = append(parts, "no step (a silent chunk)")
	} else if s.Seam.Step <= lim.MaxStep {
		parts = append(parts, fmt.Sprintf("step %.2f LU within %g LU", s.Seam.Step, lim.MaxStep))
	}
	if g := s.Seam.Gap; g >= lim.MinGap.Seconds() && g <= lim.MaxGap.Seconds() {
		parts = append(parts, fmt.Sprintf("gap %.2f s within %g-%g s", g, lim.MinGap.Seconds(), lim.MaxGap.Seconds()))
	}
	return strings.Join(parts, "; ")
}

// listenJSON is a check as verify -listen -json writes it.
type listenJSON struct {
	Kind      string   `json:"kind"`
	Address   string   `json:"address"`
	Path      string   `json:"path"`
	Item      string   `json:"item"`
	Chunk     *int     `json:"chunk,omitempty"`
	Of        int      `json:"of,omitempty"`
	Start     float64  `json:"start_seconds,omitempty"`
	End       float64  `json:"end_seconds,omitempty"`
	Pass      bool     `json:"pass"`
	Unchecked string   `json:"unchecked,omitempty"`
	Measures  any      `json:"measures,omitempty"`
	Limits    any      `json:"limits,omitempty"`
	Span      any      `json:"span,omitempty"`
	Failures  []string `json:"failures,omitempty"`
}

func listenJSONOf(c *workspace.ListenCheck) listenJSON {
	j := listenJSON{Kind: "listen", Address: c.Address, Path: c.Path, Item: c.Item(), Of: c.Of, Start: c.Start, End: c.End, Pass: c.Pass, Unchecked: c.Unchecked}
	if c.Chunk >= 0 {
		j.Chunk = &c.Chunk
	}
	if l := c.Record; l != nil {
		t := c.Spec.Thresholds
		j.Measures = map[string]any{"cer": l.CER, "wer": l.WER, "longest_run": l.LongestRun, "missing_tail": l.MissingTail}
		j.Limits = map[string]any{"max_cer": t.MaxCER, "max_wer": t.MaxWER, "max_run": t.MaxRun, "max_missing_tail": t.MaxMissingTail, "noise_words": t.NoiseWords}
		if l.Span != nil {
			j.Span = l.Span
		}
		j.Failures = l.Failures
	}
	return j
}

// seamJSON is a seam as verify -listen -json writes it; Step is null
// when either chunk is silent.
type seamJSON struct {
	Kind     string   `json:"kind"`
	Address  string   `json:"address"`
	Path     string   `json:"path"`
	Item     string   `json:"item"`
	Index    int      `json:"index"`
	At       float64  `json:"at_seconds"`
	Step     *float64 `json:"step_lu"`
	Gap      float64  `json:"gap_seconds"`
	Pass     bool     `json:"pass"`
	Limits   any      `json:"limits"`
	Failures []string `json:"failures,omitempty"`
}

func seamJSONOf(s *workspace.SeamCheck) seamJSON {
	j := seamJSON{Kind: "seam", Address: s.Address, Path: s.Path, Item: s.Item(), Index: s.Seam.Index, At: s.Seam.At, Gap: s.Seam.Gap, Pass: s.Seam.Pass, Failures: s.Seam.Failures,
		Limits: map[string]float64{"max_step": s.Limits.MaxStep, "min_gap": s.Limits.MinGap.Seconds(), "max_gap": s.Limits.MaxGap.Seconds()}}
	if !math.IsNaN(s.Seam.Step) {
		j.Step = &s.Seam.Step
	}
	return j
}
