package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "plan", synopsis: "show what apply would change and what it would cost", run: runPlan})
}

const planUsage = `
Usage: voxform plan [flags]

Compares the manifest with voxform.state.json and shows each resource to
create (+), replace (-/+), repair (!), restore from the output cache (<),
move (>), resume (~) or delete (-), with its reasons and the billable cost.

Exit status: 0 success, 1 error; with -detailed-exitcode 0 no changes,
1 error, 2 changes.

Flags:
`

// planFlags are the flags shared by plan (and usable by apply).
type planFlags struct {
	vars      varFlags
	service   serviceFlags
	targets   []string
	replace   []string
	refresh   bool
	overwrite bool
	destroy   bool
	noColor   bool
	jsonOut   bool
	markdown  bool
	// markdownBytes is -markdown-bytes: the size bound of the summary.
	markdownBytes int
	out           string
	detailed      bool
	cache         cacheFlag
	// lockTimeout is -lock-timeout.
	lockTimeout time.Duration
}

// options returns the planner options of the flags.
func (f *planFlags) options() planner.Options {
	return planner.Options{Targets: f.targets, Replace: f.replace, Destroy: f.destroy, NoRefresh: !f.refresh, Overwrite: f.overwrite,
		Cache: f.cache.mode()}
}

func runPlan(ctx context.Context, env *Env, args []string) error {
	var f planFlags
	fs := newFlagSet(env, "plan", planUsage)
	f.vars.register(fs)
	fs.Var(repeated{&f.targets}, "target", "plan only `ADDR` (or a whole block) and what it depends on (repeatable)")
	fs.Var(repeated{&f.replace}, "replace", "replace `ADDR` even if unchanged (repeatable)")
	fs.BoolVar(&f.refresh, "refresh", true, "hash outputs to find missing or modified files (-refresh=false trusts the state)")
	fs.BoolVar(&f.overwrite, "overwrite", false, "replace files at output paths that voxform did not make (without it such resources are refused)")
	fs.BoolVar(&f.destroy, "destroy", false, "plan the deletion of every recorded resource")
	fs.BoolVar(&f.noColor, "no-color", false, "no colours in the output")
	fs.BoolVar(&f.jsonOut, "json", false, "newline-delimited JSON messages instead of the table")
	fs.BoolVar(&f.markdown, "markdown", false, "a Markdown summary instead of the table (for a pull request comment or a CI job summary)")
	markdownBytesFlag(fs, &f.markdownBytes)
	fs.StringVar(&f.out, "out", "", "save the plan to `FILE` for 'voxform apply FILE'")
	fs.BoolVar(&f.detailed, "detailed-exitcode", false, "exit 2 when there are changes, 0 when none")
	f.service.register(fs)
	f.cache.register(env, fs)
	lockTimeoutFlag(fs, &f.lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("plan: unexpected argument %q", fs.Arg(0))
	}
	if f.jsonOut && f.markdown {
		return usageErrorf("plan: -json and -markdown cannot be used together")
	}
	if err := checkMarkdownBytes("plan", f.markdown, f.markdownBytes); err != nil {
		return err
	}
	return doPlan(ctx, env, &f)
}

func doPlan(ctx context.Context, env *Env, f *planFlags) error {
	if f.service.emulate {
		fmt.Fprintln(env.Stderr, "voxform: -emulate: this plan is for the built-in emulator (plan calls no service; 'voxform apply -emulate' runs it locally and nothing is billed)")
	}
	diags := env.Stderr
	var jsonDiag io.Writer
	if f.jsonOut {
		jsonDiag = env.Stdout
	}
	pr, err := preparePlan(ctx, env, f, "plan", diags, jsonDiag)
	if pr != nil {
		defer pr.release()
	}
	if err != nil && (pr == nil || pr.plan == nil || !errors.Is(err, planner.ErrBudget)) {
		return jsonError(env, f.jsonOut, err)
	}
	p := pr.plan
	if err != nil {
		// Over budget: the plan is shown, then refused. In -json the
		// diagnostic comes first, as everywhere.
		err = jsonError(env, f.jsonOut, withHint(err, "raise the budget in the manifest, or plan less at once with -target"))
	}
	out := f.output()
	if st, serr := pr.session.State(); serr == nil {
		out.approvals = planview.CountApprovals(p, st)
	}
	if werr := writePlan(env, p, pr.manifest, out); werr != nil {
		return werr
	}
	appendStepSummary(env, "plan", func(w io.Writer) error {
		return planview.Markdown(w, p, pr.manifest.Budget, planview.MarkdownOptions{MaxBytes: planview.JobSummaryBytes,
			Settings: markdownSettings(pr.manifest), Approvals: out.approvals})
	})
	if err != nil {
		return err
	}
	if f.out != "" {
		saved := planner.NewSaved(p, pr.manifest, f.vars.vars, f.vars.files)
		saved.Emulate = f.service.emulate
		if err := workspace.New(env.Dir).WritePlan(f.out, saved); err != nil {
			return err
		}
		if f.output().table() {
			fmt.Fprintf(env.Stdout, "\nSaved the plan to %s. To perform exactly these actions, run: voxform apply %s\n", f.out, f.out)
			if saved.Emulate {
				fmt.Fprintln(env.Stdout, "It was made with -emulate: applying it runs against the built-in emulator, not the speech service.")
			}
		}
	}
	if f.detailed && p.HasChanges() {
		return exitCode(ExitChanges, nil)
	}
	return nil
}

// planOutput is how a plan is shown: the table (coloured on a terminal
// unless noColor), its -json messages or its -markdown summary (of at
// most markdownBytes bytes, 0 for the default).
type planOutput struct {
	json, markdown, noColor bool
	markdownBytes           int
	// approvals are the sign-off figures of the declared resources that
	// the -markdown summary gives (nil: not known).
	approvals *planview.Approvals
}

// output is the plan output the flags ask for.
func (f *planFlags) output() planOutput {
	return planOutput{json: f.jsonOut, markdown: f.markdown, noColor: f.noColor, markdownBytes: f.markdownBytes}
}

// markdownBytesFlag registers -markdown-bytes (plan and show).
func markdownBytesFlag(fs *flag.FlagSet, n *int) {
	fs.IntVar(n, "markdown-bytes", planview.DefaultMaxBytes,
		fmt.Sprintf("with -markdown, at most `N` bytes: the default fits a pull request comment, %d a CI job summary (at least %d)", planview.JobSummaryBytes, planview.MinMaxBytes))
}

// checkMarkdownBytes refuses a -markdown-bytes below the minimum, or set
// without -markdown.
func checkMarkdownBytes(cmd string, markdown bool, n int) error {
	switch {
	case n != planview.DefaultMaxBytes && !markdown:
		return usageErrorf("%s: -markdown-bytes bounds the -markdown summary: use them together", cmd)
	case n < planview.MinMaxBytes:
		return usageErrorf("%s: -markdown-bytes %d is below the minimum, %d", cmd, n, planview.MinMaxBytes)
	}
	return nil
}

// table reports whether the plan is shown as the table, for people.
func (o planOutput) table() bool { return !o.json && !o.markdown }

// writePlan shows the plan as o says.
func writePlan(env *Env, p *planner.Plan, m *manifest.Manifest, o planOutput) error {
	switch {
	case o.json:
		return planview.WriteJSON(env.Stdout, p, m.Budget)
	case o.markdown:
		return planview.Markdown(env.Stdout, p, m.Budget, planview.MarkdownOptions{MaxBytes: o.markdownBytes, Settings: markdownSettings(m), Approvals: o.approvals})
	}
	return planview.Render(env.Stdout, p, planview.Options{Color: useColor(env, o.noColor)})
}

// markdownSettings are the settings a Markdown summary names: those of
// the service and the output caches that the manifest or the environment
// sets (where the API key is sent and read from, where outputs are kept
// and shared), so that a pull request changing them says so in its
// comment. Credentials are never among them: the key's variable is
// named, not read.
func markdownSettings(m *manifest.Manifest) []string {
	var out []string
	add := func(fields map[string]manifest.Pos, field, name, value string) {
		if _, set := fields[field]; set && value != "" {
			out = append(out, name+": "+value)
		}
	}
	add(m.Service.Fields, "base_url", "service.base_url", m.Service.BaseURL)
	add(m.Service.Fields, "ws_base_url", "service.ws_base_url", m.Service.WSBaseURL)
	add(m.Service.Fields, "api_key_env", "service.api_key_env", m.Service.APIKeyEnv)
	add(m.Cache.Fields, "dir", "cache.dir", m.Cache.Dir)
	add(m.Cache.Fields, "remote", "cache.remote", m.Cache.Remote)
	add(m.Cache.Fields, "endpoint", "cache.endpoint", m.Cache.Endpoint)
	return out
}

// jsonError reports err also as a diagnostic message, with its hint, in
// -json mode. It returns err, which is printed on stderr as always.
func jsonError(env *Env, jsonOut bool, err error) error {
	if jsonOut && err != nil {
		msg := planview.DiagnosticMessage{Type: planview.MsgDiagnostic, Severity: "error", Message: err.Error()}
		var he hinted
		if errors.As(err, &he) {
			msg.Hint = he.Hint()
		}
		writeJSONLine(env.Stdout, msg)
	}
	return err
}

// useColor reports whether output gets ANSI colours: only on a terminal,
// never with -no-color or a non-empty NO_COLOR.
func useColor(env *Env, noColor bool) bool {
	return !noColor && env.Terminal && (env.Getenv == nil || env.Getenv("NO_COLOR") == "")
}

// preparedPlan is a computed plan with the locked session it came from.
// The apply command uses the same steps.
type preparedPlan struct {
	manifest *manifest.Manifest
	// listen is what judging the manifest's listening checks needs
	// (workspace.ListenPart; nil when none is declared).
	listen  *manifest.Manifest
	ws      *workspace.Workspace
	session *workspace.Session
	plan    *planner.Plan
}

// release saves what was recorded, unlocks the state and closes the
// backend.
func (p *preparedPlan) release() {
	if p.session != nil {
		p.session.Close()
	}
	if p.ws != nil {
		p.ws.Close()
	}
}

// preparePlan locks the state for op, loads and validates the manifest
// while the state and hash cache are read (diagnostics to human, or as
// JSON messages to jsonDiag when set) and computes the plan. On a budget
// error the plan is returned with the error. The caller releases the
// result.
func preparePlan(ctx context.Context, env *Env, f *planFlags, op string, human, jsonDiag io.Writer) (*preparedPlan, error) {
	ws, err := openWorkspace(env, &f.vars, f.lockTimeout)
	if err != nil {
		return nil, err
	}
	ws.Emulated = f.service.emulate // the emulator's outputs never mix with the service's
	pr := &preparedPlan{ws: ws}
	if pr.session, err = ws.LockUnread(ctx, op); err != nil {
		return pr, err
	}
	opts := f.vars.options(env)
	opts.Expanded = pr.session.Start // the state is read while the manifest is checked
	m, err := loadForPlan(env, opts, human, jsonDiag)
	if err != nil {
		return pr, err
	}
	pr.manifest, pr.listen = workspace.Settings(m), workspace.ListenPart(m) // the plan holds the resources
	pr.plan, err = pr.session.Plan(ctx, m, f.options())
	if serr := pr.session.SaveHashes(); serr != nil && err == nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s\n", untrusted.Lines(serr.Error()))
	}
	return pr, err
}

// loadForPlan loads the manifest, writing diagnostics for people or as JSON.
func loadForPlan(env *Env, opts manifest.LoadOptions, human, jsonDiag io.Writer) (*manifest.Manifest, error) {
	if jsonDiag == nil {
		return loadManifestWith(env, opts)
	}
	m, ds := workspace.New(env.Dir).Load(opts)
	for _, d := range ds {
		writeJSONLine(jsonDiag, planview.Diagnostic(d))
	}
	if err := diagnosticsError(ds); err != nil {
		return nil, err
	}
	return m, nil
}

// loadSavedManifest loads the manifest with the variables a saved plan was
// made with.
func loadSavedManifest(env *Env, s *planner.SavedPlan) (*manifest.Manifest, error) {
	return loadManifest(env, &varFlags{vars: s.Vars, files: s.VarFiles})
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
