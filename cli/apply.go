package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
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
	autoApprove bool
	parallelism int
}

// op is the command's name in messages: apply or destroy.
func (f *applyFlags) op() string {
	if f.plan.destroy {
		return "destroy"
	}
	return "apply"
}

func newApplyFlagSet(env *Env, name, usage string, f *applyFlags, destroy bool) *flag.FlagSet {
	fs := newFlagSet(env, name, usage)
	f.plan.vars.register(fs)
	if !destroy {
		fs.Var(repeated{&f.plan.targets}, "target", "apply only `ADDR` (or a whole block) and what it depends on (repeatable)")
		fs.Var(repeated{&f.plan.replace}, "replace", "replace `ADDR` even if unchanged (repeatable)")
		fs.BoolVar(&f.plan.overwrite, "overwrite", false, "replace files at output paths that voxform did not make (without it such resources are refused)")
	}
	fs.BoolVar(&f.plan.refresh, "refresh", true, "hash outputs to find missing or modified files (-refresh=false trusts the state)")
	fs.BoolVar(&f.plan.noColor, "no-color", false, "no colours in the output")
	fs.BoolVar(&f.plan.jsonOut, "json", false, "newline-delimited JSON messages instead of text")
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "do not ask for confirmation")
	fs.IntVar(&f.parallelism, "parallelism", 0, "at most `N` operations calling the service at once; as many more may be writing what they received (default: service.parallelism, else 4)")
	f.plan.service.register(fs)
	f.plan.cache.register(env, fs)
	lockTimeoutFlag(fs, &f.plan.lockTimeout)
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

// announceEmulated says, on stderr and before anything else is shown, that
// the command runs against the built-in emulator; why is the reason given
// first ("-emulate", or the plan file made with it).
func announceEmulated(env *Env, op, why string) {
	fmt.Fprintf(env.Stderr, "voxform: %s: this %s runs against the built-in emulator on a loopback port, not the speech service: audio and transcripts are generated locally and nothing is billed\n", why, op)
}

// doApply plans (or loads the saved plan), confirms, connects and runs.
func doApply(ctx context.Context, env *Env, f *applyFlags, planFile string) error {
	if f.plan.service.emulate {
		announceEmulated(env, f.op(), "-emulate")
	}
	pr, saved, err := applyPlan(ctx, env, f, planFile)
	if pr != nil {
		defer pr.release()
	}
	overBudget := err != nil && pr != nil && pr.plan != nil && errors.Is(err, planner.ErrBudget)
	if err != nil && !overBudget {
		return jsonError(env, f.plan.jsonOut, err)
	}
	if overBudget {
		// Shown, then refused; in -json the diagnostic comes first.
		err = jsonError(env, f.plan.jsonOut, withHint(err, "raise the budget in the manifest, or "+f.op()+" less at once with -target"))
	}
	p := pr.plan
	if err == nil && p.CallsService() {
		// No key, no service, an emulator of the other profile: said
		// before the plan is shown, not after it is confirmed.
		if terr := checkService(ctx, env, pr.manifest, f.plan.service); terr != nil {
			return jsonError(env, f.plan.jsonOut, terr)
		}
	}
	if werr := writePlan(env, p, pr.manifest, planOutput{json: f.plan.jsonOut, noColor: f.plan.noColor}); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if !p.HasChanges() && f.op() == "apply" {
		return recordedFailing(ctx, env, f, pr)
	}
	if !p.HasChanges() {
		return nil
	}
	if err := confirm(ctx, env, f, saved); err != nil {
		return err
	}
	return execute(ctx, env, f, pr)
}

// applyPlan returns the plan to apply: computed now, or read from a saved
// plan file and checked against the locked state. A plan file made with
// -emulate turns -emulate on, and says so before anything else.
func applyPlan(ctx context.Context, env *Env, f *applyFlags, planFile string) (*preparedPlan, bool, error) {
	if planFile == "" {
		var human, jsonDiag io.Writer = env.Stderr, nil
		if f.plan.jsonOut {
			jsonDiag = env.Stdout
		}
		pr, err := preparePlan(ctx, env, &f.plan, f.op(), human, jsonDiag)
		return pr, false, err
	}
	ws, err := openWorkspace(env, &f.plan.vars, f.plan.lockTimeout)
	if err != nil {
		return nil, true, err
	}
	pr := &preparedPlan{ws: ws}
	saved, err := ws.ReadPlan(planFile)
	if err != nil {
		return pr, true, err
	}
	if saved.Emulate && !f.plan.service.emulate {
		f.plan.service.emulate = true
		announceEmulated(env, f.op(), planFile+" was made with -emulate")
	}
	ws.Emulated = f.plan.service.emulate
	if flags := savedFlags(saved.Plan.Options); flags != "" {
		fmt.Fprintf(env.Stderr, "voxform: %s was made with %s: this apply does the same\n", planFile, untrusted.Escape(flags))
	}
	if pr.session, err = ws.LockUnread(ctx, f.op()); err != nil {
		return pr, true, err
	}
	m, err := loadSavedManifest(env, saved)
	if err != nil {
		return pr, true, err
	}
	pr.session.Start()
	pr.manifest, pr.listen = workspace.Settings(m), workspace.ListenPart(m) // the plan holds the resources
	pr.plan, err = pr.session.Replan(ctx, planFile, saved, m)
	return pr, true, err
}

// savedFlags names the flags a saved plan was made with that change what
// apply does, so that they are seen before it runs.
func savedFlags(o planner.Options) string {
	var f []string
	if o.Destroy {
		f = append(f, "-destroy")
	}
	if o.Overwrite {
		f = append(f, "-overwrite")
	}
	for _, r := range o.Replace {
		f = append(f, "-replace "+r)
	}
	for _, t := range o.Targets {
		f = append(f, "-target "+t)
	}
	if o.NoRefresh {
		f = append(f, "-refresh=false")
	}
	return strings.Join(f, " ")
}

// confirm asks for "yes" unless the plan was saved or -auto-approve. The
// question needs stdin to be a terminal; it is written to stdout with the
// plan, or to stderr when stdout is not a terminal (so that it is seen).
// An interrupt while waiting cancels.
func confirm(ctx context.Context, env *Env, f *applyFlags, saved bool) error {
	if saved || f.autoApprove {
		return nil
	}
	if !env.Interactive || f.plan.jsonOut {
		return withHint(fmt.Errorf("%s needs confirmation, and there is no terminal to ask on", f.op()),
			"pass -auto-approve, or apply a plan saved with 'voxform plan -out FILE'")
	}
	what := "perform these actions"
	if f.plan.destroy {
		what = "destroy every recorded output"
	}
	ask := env.Stdout
	if !env.Terminal {
		ask = env.Stderr
	}
	fmt.Fprintf(ask, "\nDo you want to %s? Only 'yes' will be accepted.\n  Enter a value: ", what)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		if strings.TrimSpace(line) != "yes" {
			return fmt.Errorf("%s cancelled: nothing was changed", f.op())
		}
		return nil
	case <-ctx.Done():
		fmt.Fprintln(ask)
		return ctx.Err()
	}
}

// measuresLoudness reports whether the outputs an apply or a pull of m
// writes are measured for loudness as they are written: only where the
// manifest declares the limits verify -loudness holds them to (elsewhere
// verify and report measure when they run).
func measuresLoudness(m *manifest.Manifest) bool { return m.Loudness != nil }

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
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// Keep a connection per worker alive between requests (the default
	// keeps two, so most requests of a parallel apply would dial anew).
	transport.MaxIdleConnsPerHost = parallelism
	// One limiter for HTTP requests and WebSocket sessions alike.
	limiter := executor.NewLimiter(m.Service.RequestsPerSecond, parallelism)
	httpClient := &http.Client{Transport: limiter.Transport(transport)}
	var conn *serviceConn
	// Job intents left by a process that died are swept by the next apply
	// that talks to the service anyway (never a reason to ask for a key).
	if pr.plan.CallsService() {
		var err error
		conn, err = connect(env, m, f.plan.service, httpClient, env.Stderr)
		if err != nil {
			return err
		}
		defer conn.stop()
	}
	// Idle connections (a spare one the transport dialled, say) would
	// hold the in-process emulator's shutdown for seconds.
	defer transport.CloseIdleConnections()
	stop, hard, cancel := interruption(ctx)
	defer cancel()
	r := newRenderer(env.Stdout, f.plan.jsonOut, env.Terminal, useColor(env, f.plan.noColor))
	opts := executor.Options{
		Parallelism: parallelism, Stop: stop, Events: r.Event, Limiter: limiter,
		MeasureLoudness: measuresLoudness(m),
	}
	if t := encoderOnPath(); t != nil {
		opts.Encoder, opts.Books = t, t // without it, the plan refused the profiles that need it
	}
	// The verdicts are the manifest's: without listen: none (a failure the
	// state records of a check no longer declared does not count).
	opts.ListenVerdicts = pr.ws.ListenVerdicts(ctx, pr.listen)
	if conn != nil {
		opts.Client, opts.DocumentedPolling = conn.client, conn.documentedPolls
	}
	p := pr.plan
	pr.plan = nil // what is done is let go of as it is recorded (see executor.Apply)
	summary, err := pr.session.Apply(hard, p, opts)
	r.Close()
	if err != nil {
		return err
	}
	if cerr := pr.session.SaveHashes(); cerr != nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Lines(cerr.Error()))
	}
	if !f.plan.jsonOut {
		printSummary(env.Stdout, f.op(), summary, f.plan.service.emulate)
	}
	switch {
	case summary.Interrupted:
		return exitCode(ExitInterrupted, fmt.Errorf("interrupted: completed work was recorded; run %s again to finish", f.op()))
	case summary.ServiceDown != nil:
		return exitCode(ExitError, withHint(fmt.Errorf("%w; nothing new was started, and completed work was recorded", summary.ServiceDown),
			fmt.Sprintf("run %s again once the service answers: it does only what is left", f.op())))
	case summary.Failed > 0:
		return exitCode(ExitError, fmt.Errorf("%d resource(s) failed; completed work was recorded and a new %s does only what is left", summary.Failed, f.op()))
	case summary.ListenFailing > 0 && f.op() == "apply":
		return exitCode(ExitError, fmt.Errorf("%d listening check(s) or seam(s) fail or are not made: %s; each output is in place (voxform verify -listen lists them)", summary.ListenFailing, failingOutputs(summary)))
	}
	return nil
}

// recordedFailing fails an apply with nothing to do when the state
// records listening checks that fail: CI stays red until they pass.
func recordedFailing(ctx context.Context, env *Env, f *applyFlags, pr *preparedPlan) error {
	st, err := pr.session.State()
	if err != nil {
		return err
	}
	s := &executor.Summary{}
	if s.ListenFailed, s.ListenFailing = pr.ws.ListenVerdicts(ctx, pr.listen)(st); s.ListenFailing == 0 {
		return nil
	}
	if !f.plan.jsonOut {
		printListen(env.Stdout, s)
	}
	return exitCode(ExitError, fmt.Errorf("%d listening check(s) or seam(s) fail or are not made: %s; each output is in place (voxform verify -listen lists them)", s.ListenFailing, failingOutputs(s)))
}

// failingOutputs names the outputs whose listening checks or seams fail
// (the first few of them).
func failingOutputs(s *executor.Summary) string {
	const most = 10
	var names []string
	for _, f := range s.ListenFailed {
		if len(names) == 0 || names[len(names)-1] != f.Address {
			names = append(names, untrusted.Escape(f.Address))
		}
	}
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// printSummary ends a human apply or destroy: counts, billing, and every
// failure, once (the log line of a failure does not repeat its error).
func printSummary(w io.Writer, op string, s *executor.Summary, emulated bool) {
	word := "complete"
	switch {
	case s.Interrupted:
		word = "interrupted"
	case s.ServiceDown != nil:
		word = "stopped: the service appears down"
	case s.Failed > 0:
		word = "finished with errors"
	case s.ListenFailing > 0 && op == "apply":
		word = "finished with failing listening checks"
	}
	fmt.Fprintf(w, "\n%s%s %s! Resources: %d done, %d failed, %d skipped.\n", strings.ToUpper(op[:1]), op[1:], word, s.Done, s.Failed, s.Skipped)
	billed := fmt.Sprintf("Billed: %s characters, %s of audio.", groupDigits(s.BilledCharacters), hms(s.BilledAudioSeconds))
	if emulated {
		billed += " (by the emulator: no real charges)"
	}
	fmt.Fprintln(w, billed)
	if s.LowestConcurrency > 0 {
		fmt.Fprintf(w, "Rate limited by the service: concurrency was lowered to %d.\n", s.LowestConcurrency)
	}
	if s.OrphansCancelled > 0 {
		fmt.Fprintf(w, "Cancelled %d orphan batch job(s) that an interrupted apply created but never recorded (never started, never billed).\n", s.OrphansCancelled)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", untrusted.Lines(warn))
	}
	for _, fl := range s.Failures {
		fmt.Fprintf(w, "  %s: %s\n", untrusted.Escape(fl.Address), untrusted.Lines(errString(fl.Err)))
	}
	if op == "apply" {
		printListen(w, s)
	}
}

// printListen lists the extra takes, and every listening check and seam
// that fails in the state.
func printListen(w io.Writer, s *executor.Summary) {
	if s.Takes > 0 {
		fmt.Fprintf(w, "Listening checks: %d extra take(s) made (regenerate).\n", s.Takes)
	}
	if s.ListenFailing == 0 {
		return
	}
	fmt.Fprintf(w, "Listening checks failing: %d (each output is in place):\n", s.ListenFailing)
	for _, f := range s.ListenFailed {
		fmt.Fprintf(w, "  %s\n", untrusted.Lines(f.String()))
	}
	if more := s.ListenFailing - len(s.ListenFailed); more > 0 {
		fmt.Fprintf(w, "  and %d more\n", more)
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
