package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "apply", synopsis: "produce the declared audio, embeddings and transcripts", run: runApply})
	register(&command{name: "destroy", synopsis: "remove every output voxform recorded (and cancel pending jobs)", run: runDestroy})
}

const applyUsage = `
Usage: voxform apply [flags] [PLANFILE]

Computes the plan (or takes a plan saved with 'voxform plan -out'), shows
it, asks for 'yes' and carries it out: in dependency order, in parallel,
recording each completed operation as it completes. A second apply with
nothing changed makes no API calls.

First Ctrl-C: nothing new starts, calls in flight finish and are recorded,
batch jobs stay pending and resume next time (exit 130). Second Ctrl-C:
calls in flight are cancelled; no partial file is left at an output path.

Flags:
`

const destroyUsage = `
Usage: voxform destroy [flags]

Removes every output voxform recorded and cancels pending batch jobs, then
forgets the resources. Asks for 'yes' unless -auto-approve.

Flags:
`

// applyFlags are apply's flags: the plan flags plus how to carry it out.
type applyFlags struct {
	plan        planFlags
	service     serviceFlags
	autoApprove bool
	parallelism int
}

func newApplyFlagSet(env *Env, name, usage string, f *applyFlags, destroy bool) *flag.FlagSet {
	fs := newFlagSet(env, name, usage)
	f.plan.vars.register(fs)
	if !destroy {
		fs.Var(repeated{&f.plan.targets}, "target", "apply only `ADDR` (or a whole block) and what it depends on (repeatable)")
		fs.Var(repeated{&f.plan.replace}, "replace", "replace `ADDR` even if unchanged (repeatable)")
	}
	fs.BoolVar(&f.plan.refresh, "refresh", true, "hash outputs to find missing or modified files (-refresh=false trusts the state)")
	fs.BoolVar(&f.plan.noColor, "no-color", false, "no colours in the output")
	fs.BoolVar(&f.plan.jsonOut, "json", false, "newline-delimited JSON messages instead of text")
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "do not ask for confirmation")
	fs.IntVar(&f.parallelism, "parallelism", 0, "at most `N` operations at once (default: service.parallelism, else 4)")
	f.service.register(fs)
	return fs
}

func runApply(ctx context.Context, env *Env, args []string) error {
	var f applyFlags
	w := newApplyFlagSet(env, "apply", applyUsage, &f, false)
	if err := parseFlags(w, args); err != nil {
		return err
	}
	if w.NArg() > 1 {
		return usageErrorf("apply takes at most one plan file")
	}
	return doApply(ctx, env, &f, w.Arg(0))
}

func runDestroy(ctx context.Context, env *Env, args []string) error {
	var f applyFlags
	w := newApplyFlagSet(env, "destroy", destroyUsage, &f, true)
	if err := parseFlags(w, args); err != nil {
		return err
	}
	if w.NArg() > 0 {
		return usageErrorf("destroy: unexpected argument %q", w.Arg(0))
	}
	f.plan.destroy = true
	return doApply(ctx, env, &f, "")
}

// doApply plans (or loads the saved plan), confirms, connects and runs.
func doApply(ctx context.Context, env *Env, f *applyFlags, planFile string) error {
	pr, saved, err := applyPlan(ctx, env, f, planFile)
	if pr != nil {
		defer pr.release()
	}
	if err != nil {
		return jsonError(env, f.plan.jsonOut, err)
	}
	p := pr.plan
	color := useColor(env, f.plan.noColor)
	if f.plan.jsonOut {
		if err := p.WriteJSON(env.Stdout, pr.manifest.Budget); err != nil {
			return err
		}
	} else if err := p.Render(env.Stdout, planner.RenderOptions{Color: color}); err != nil {
		return err
	}
	if !p.HasChanges() {
		return nil
	}
	if err := confirm(env, f, saved); err != nil {
		return err
	}
	return execute(ctx, env, f, pr)
}

// applyPlan returns the plan to apply: computed now, or read from a saved
// plan file and checked against the locked state.
func applyPlan(ctx context.Context, env *Env, f *applyFlags, planFile string) (*preparedPlan, bool, error) {
	op := "apply"
	if f.plan.destroy {
		op = "destroy"
	}
	if planFile == "" {
		var human, jsonDiag io.Writer = env.Stderr, nil
		if f.plan.jsonOut {
			jsonDiag = env.Stdout
		}
		pr, err := preparePlan(ctx, env, &f.plan.vars, f.plan.options(), op, human, jsonDiag)
		if err != nil && pr != nil && pr.plan != nil {
			err = withHint(err, "raise the budget in the manifest, or apply less at once with -target")
		}
		return pr, false, err
	}
	pr := &preparedPlan{backend: state.NewLocal(env.Dir)}
	var err error
	if pr.lock, err = lockState(pr.backend, op); err != nil {
		return nil, true, err
	}
	if pr.recorder, err = pr.backend.Open(pr.lock, nil); err != nil {
		return pr, true, err
	}
	pr.state = pr.recorder.Snapshot()
	pr.cache = state.OpenHashCache(env.Dir)
	saved, m, err := loadPlanFile(env, planFile, pr.state, pr.cache)
	if err != nil {
		return pr, true, err
	}
	pr.manifest, pr.plan = m, saved.Plan
	return pr, true, nil
}

// confirm asks for "yes" unless the plan was saved or -auto-approve.
func confirm(env *Env, f *applyFlags, saved bool) error {
	if saved || f.autoApprove {
		return nil
	}
	if !env.Interactive || f.plan.jsonOut {
		return withHint(fmt.Errorf("apply needs confirmation, and there is no terminal to ask on"),
			"pass -auto-approve, or apply a plan saved with 'voxform plan -out FILE'")
	}
	what := "perform these actions"
	if f.plan.destroy {
		what = "destroy every recorded output"
	}
	fmt.Fprintf(env.Stdout, "\nDo you want to %s? Only 'yes' will be accepted.\n  Enter a value: ", what)
	line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return fmt.Errorf("apply cancelled: nothing was changed")
	}
	return nil
}

// execute connects to the service and runs the plan, rendering progress.
func execute(ctx context.Context, env *Env, f *applyFlags, pr *preparedPlan) error {
	m := pr.manifest
	parallelism := f.parallelism
	if parallelism <= 0 {
		parallelism = m.Service.Parallelism
	}
	if parallelism <= 0 {
		parallelism = 4
	}
	httpClient := &http.Client{Transport: executor.LimitTransport(
		http.DefaultTransport.(*http.Transport).Clone(), m.Service.RequestsPerSecond, parallelism)}
	var conn *serviceConn
	if needsConnection(pr.plan) {
		var err error
		conn, err = connect(env, m, f.service, httpClient, env.Stderr)
		if err != nil {
			return err
		}
		defer conn.stop()
	}
	stop, hard, cancel := interruption(ctx)
	defer cancel()
	r := newRenderer(env.Stdout, f.plan.jsonOut, env.Interactive, useColor(env, f.plan.noColor))
	opts := executor.Options{
		Dir: m.Dir, Recorder: pr.recorder, Parallelism: parallelism, Stop: stop, Events: r.Event, Cache: pr.cache,
	}
	if conn != nil {
		opts.Client = conn.client
	}
	summary, err := executor.Apply(hard, pr.plan, opts)
	r.Close()
	if err != nil {
		return err
	}
	if cerr := pr.recorder.Close(); cerr != nil {
		return fmt.Errorf("save state: %w", cerr)
	}
	if pr.cache != nil {
		if cerr := pr.cache.Save(); cerr != nil {
			fmt.Fprintf(env.Stderr, "voxform: warning: %v\n", cerr)
		}
	}
	if !f.plan.jsonOut {
		printSummary(env.Stdout, summary, conn != nil && conn.emulated)
	}
	switch {
	case summary.Interrupted:
		return exitCode(ExitInterrupted, fmt.Errorf("interrupted: completed work was recorded; run apply again to finish"))
	case summary.Failed > 0:
		return exitCode(ExitError, fmt.Errorf("%d resource(s) failed; completed work was recorded and a new apply does only what is left", summary.Failed))
	}
	return nil
}

// needsConnection reports whether the plan calls the service at all (moves,
// deletes and re-rendering do not).
func needsConnection(p *planner.Plan) bool {
	for _, a := range p.Actions {
		switch a.Type {
		case planner.Create, planner.Replace, planner.Resume:
			return true
		case planner.Repair:
			if a.RenderFrom == "" {
				return true
			}
		case planner.Delete:
			if a.Prior != nil && a.Prior.Status == state.StatusPending {
				return true
			}
		}
	}
	return false
}

// interruption turns signals into apply's two stages: the first interrupt
// (which also cancels ctx, in main) closes stop; a second cancels hard.
func interruption(ctx context.Context) (stop <-chan struct{}, hard context.Context, cancel func()) {
	stopCh := make(chan struct{})
	hardCtx, cancelHard := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		seen := 0
		for {
			select {
			case <-ctx.Done():
				if stopCh != nil {
					close(stopCh)
					stopCh = nil
				}
				ctx = context.Background() // observed
			case <-sigs:
				seen++
				if seen >= 2 {
					cancelHard()
				}
			case <-done:
				return
			}
		}
	}()
	return stopCh, hardCtx, func() {
		signal.Stop(sigs)
		close(done)
		cancelHard()
	}
}

// printSummary ends a human apply: counts, billing, and every failure.
func printSummary(w io.Writer, s *executor.Summary, emulated bool) {
	word := "complete"
	switch {
	case s.Interrupted:
		word = "interrupted"
	case s.Failed > 0:
		word = "finished with errors"
	}
	fmt.Fprintf(w, "\nApply %s! Resources: %d done, %d failed, %d skipped.\n", word, s.Done, s.Failed, s.Skipped)
	billed := fmt.Sprintf("Billed: %s characters, %s of audio.", groupDigits(s.BilledCharacters), hms(s.BilledAudioSeconds))
	if emulated {
		billed += " (by the emulator: no real charges)"
	}
	fmt.Fprintln(w, billed)
	for _, fl := range s.Failures {
		fmt.Fprintf(w, "  %s: %v\n", fl.Address, fl.Err)
	}
}

func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func hms(secs float64) string {
	t := int64(secs + 0.5)
	return fmt.Sprintf("%dh%02dm%02ds", t/3600, t/60%60, t%60)
}
