package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "plan", synopsis: "show what apply would change and what it would cost", run: runPlan})
}

const planUsage = `
Usage: voxform plan [flags]

Compares the manifest with voxform.state.json and shows each resource to
create (+), replace (-/+), repair (!), move (>), resume (~) or delete (-),
with its reasons and the billable cost.

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
	out       string
	detailed  bool
}

// options returns the planner options of the flags.
func (f *planFlags) options() planner.Options {
	return planner.Options{Targets: f.targets, Replace: f.replace, Destroy: f.destroy, NoRefresh: !f.refresh, Overwrite: f.overwrite}
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
	fs.StringVar(&f.out, "out", "", "save the plan to `FILE` for 'voxform apply FILE'")
	fs.BoolVar(&f.detailed, "detailed-exitcode", false, "exit 2 when there are changes, 0 when none")
	f.service.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("plan: unexpected argument %q", fs.Arg(0))
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
	pr, err := preparePlan(ctx, env, &f.vars, f.options(), "plan", diags, jsonDiag)
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
	if werr := writePlan(env, p, pr.manifest, f.jsonOut, f.noColor); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if f.out != "" {
		saved := planner.NewSaved(p, pr.manifest, f.vars.vars, f.vars.files)
		saved.Emulate = f.service.emulate
		if err := writePlanFile(env, f.out, saved); err != nil {
			return err
		}
		if !f.jsonOut {
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

// writePlan shows the plan: the table, or its -json messages.
func writePlan(env *Env, p *planner.Plan, m *manifest.Manifest, jsonOut, noColor bool) error {
	if jsonOut {
		return p.WriteJSON(env.Stdout, m.Budget)
	}
	return p.Render(env.Stdout, planner.RenderOptions{Color: useColor(env, noColor)})
}

// jsonError reports err also as a diagnostic message, with its hint, in
// -json mode. It returns err, which is printed on stderr as always.
func jsonError(env *Env, jsonOut bool, err error) error {
	if jsonOut && err != nil {
		msg := planner.DiagnosticMessage{Type: planner.MsgDiagnostic, Severity: "error", Message: err.Error()}
		var he *hintError
		if errors.As(err, &he) {
			msg.Hint = he.hint
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

// preparedPlan is a computed plan with the locked state it came from. The
// apply command uses the same steps.
type preparedPlan struct {
	manifest *manifest.Manifest
	backend  *state.Local
	lock     state.Unlocker
	recorder *state.Recorder
	state    *state.File
	cache    *state.HashCache
	plan     *planner.Plan
}

// release unlocks the state.
func (p *preparedPlan) release() {
	if p.recorder != nil {
		p.recorder.Close()
	}
	if p.lock != nil {
		p.lock.Unlock()
	}
}

// preparePlan loads and validates the manifest (diagnostics to human, or as
// JSON messages to jsonDiag when set), locks the state for op, folds a
// journal left by a process that died, hashes inputs and outputs through the
// hash cache and computes the plan. On a budget error the plan is returned
// with the error. The caller releases the result.
func preparePlan(ctx context.Context, env *Env, vars *varFlags, opts planner.Options, op string, human, jsonDiag io.Writer) (*preparedPlan, error) {
	pr := &preparedPlan{backend: state.NewLocal(env.Dir)}
	var err error
	if pr.lock, err = lockState(pr.backend, op); err != nil {
		return nil, err
	}
	// Read the state and the hash cache while the manifest loads: on a
	// large project each takes a good share of the plan's time.
	type opened struct {
		rec *state.Recorder
		err error
	}
	stateCh, cacheCh := make(chan opened, 1), make(chan *state.HashCache, 1)
	go func() {
		rec, err := pr.backend.Open(pr.lock, nil)
		stateCh <- opened{rec, err}
	}()
	go func() { cacheCh <- state.OpenHashCache(env.Dir) }()
	m, merr := loadForPlan(env, vars, human, jsonDiag)
	o := <-stateCh
	pr.recorder, pr.cache, pr.manifest = o.rec, <-cacheCh, m
	if merr != nil {
		return pr, merr
	}
	if o.err != nil {
		return pr, o.err
	}
	pr.state = pr.recorder.Snapshot()
	pr.plan, err = computePlan(ctx, env, m, pr.state, pr.cache, opts)
	if serr := pr.cache.Save(); serr != nil && err == nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %v\n", serr)
	}
	return pr, err
}

// computePlan diffs the manifest against the state, hashing through the
// cache, and checks every path of the plan on the file system. On a budget
// error the plan is returned with the error.
func computePlan(ctx context.Context, env *Env, m *manifest.Manifest, st *state.File, cache *state.HashCache, opts planner.Options) (*planner.Plan, error) {
	desired, hash, err := buildDesired(ctx, m, st, cache, !opts.NoRefresh)
	if err != nil {
		return nil, err
	}
	p, err := planner.Compute(planner.Input{
		Desired: desired, State: st, Hash: hash, Probe: probeFunc(m.Dir),
		Options: opts, Budget: m.Budget,
	})
	if err == nil {
		err = checkPlanPaths(env.Dir, p)
	}
	return p, err
}

// checkPlanPaths refuses a plan that would touch a path voxform does not
// own, as the file system resolves it now (apply checks again).
func checkPlanPaths(dir string, p *planner.Plan) error {
	root, err := owned.Open(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := p.CheckPaths(root.Check); err != nil {
		return withHint(fmt.Errorf("plan: %w", err), "voxform writes, moves and deletes only its own outputs inside the manifest directory")
	}
	return nil
}

// loadForPlan loads the manifest, writing diagnostics for people or as JSON.
func loadForPlan(env *Env, vars *varFlags, human, jsonDiag io.Writer) (*manifest.Manifest, error) {
	if jsonDiag == nil {
		return loadManifest(env, vars)
	}
	m, ds := schema.Load(env.Dir, vars.options(env))
	for _, d := range ds {
		writeJSONLine(jsonDiag, planner.Diagnostic(d))
	}
	if err := diagnosticsError(ds); err != nil {
		return nil, err
	}
	return m, nil
}

// lockState locks the state, explaining what to do when someone holds it.
func lockState(b *state.Local, op string) (state.Unlocker, error) {
	lk, err := b.Lock(op)
	var le *state.LockedError
	if errors.As(err, &le) {
		hint := "wait for it to finish"
		if le.Info.ID != "" {
			hint += fmt.Sprintf("; if it is stuck, stop it, then run 'voxform force-unlock %s'", le.Info.ID)
		}
		return nil, withHint(err, hint)
	}
	return lk, err
}

// buildDesired hashes the inputs (and, when refreshing, the recorded
// outputs) in parallel through the cache and builds the desired resources.
// The returned HashFunc answers from those hashes, hashing other paths on
// demand.
func buildDesired(ctx context.Context, m *manifest.Manifest, st *state.File, cache *state.HashCache, refresh bool) ([]*planner.Desired, planner.HashFunc, error) {
	paths := planner.InputFiles(m)
	if refresh {
		paths = append(paths, planner.OutputFiles(st)...)
	}
	hashes, err := cache.HashAll(ctx, paths)
	if err != nil {
		return nil, nil, err
	}
	hash := func(p string) (state.FileHash, error) {
		if h, ok := hashes[p]; ok {
			return h, nil
		}
		return cache.Hash(p)
	}
	desired, err := planner.Build(m, hash)
	return desired, hash, err
}

// probeFunc measures transcription inputs for the cost line.
func probeFunc(dir string) planner.ProbeFunc {
	return func(p string) (float64, error) {
		info, err := audio.Probe(filepath.Join(dir, p))
		if err != nil {
			return 0, err
		}
		return info.Duration.Seconds(), nil
	}
}

// writePlanFile saves a plan atomically. It never replaces a file that is
// not a plan file, nor one of voxform's own files or a path the plan
// writes (plan -out voxform.state.json would lose the state).
func writePlanFile(env *Env, name string, s *planner.SavedPlan) error {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	if err := checkPlanFilePath(env.Dir, path, s.Plan); err != nil {
		return withHint(fmt.Errorf("plan -out %s: %w", name, err), "save the plan under another name, for example release.plan")
	}
	return owned.WriteFile(path, 0o600, s.Write)
}

// checkPlanFilePath refuses to save a plan over something else.
func checkPlanFilePath(dir, path string, p *planner.Plan) error {
	if rel, ok := insideDir(dir, path); ok {
		if err := owned.CheckRel(rel); err != nil {
			return err
		}
		for _, a := range p.Actions {
			if a.Desired != nil && slices.ContainsFunc(a.Desired.Outputs, func(o planner.Output) bool { return o.Path == rel }) {
				return fmt.Errorf("%s is an output of %s", rel, a.Address)
			}
		}
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := planner.ReadSaved(io.LimitReader(f, planner.MaxPlanFileBytes)); err != nil {
		return fmt.Errorf("%s exists and is not a voxform plan file", path)
	}
	return nil
}

// insideDir returns path relative to dir (slash-separated, symbolic links
// of both resolved as far as they exist) when path is inside dir.
func insideDir(dir, path string) (string, bool) {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		parent = filepath.Dir(path)
	}
	rel, err := filepath.Rel(realDir, filepath.Join(parent, filepath.Base(path)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// loadPlanFile reads a saved plan and checks it against the current state
// and manifest: a plan for another state (lineage), an older state (serial)
// or another manifest (hash, variables, input files) is refused. It returns
// the manifest loaded with the plan's variables. apply calls it under the
// state lock, with st read from the locked recorder.
func loadPlanFile(env *Env, name string, st *state.File, cache *state.HashCache) (*planner.SavedPlan, *manifest.Manifest, error) {
	s, err := readPlanFile(env, name)
	if err != nil {
		return nil, nil, err
	}
	m, err := checkPlanFile(env, name, s, st, cache)
	if err != nil {
		return nil, nil, err
	}
	return s, m, nil
}

// checkPlanFile loads the manifest with the variables of the saved plan s
// and refuses s when it no longer matches st or the manifest.
func checkPlanFile(env *Env, name string, s *planner.SavedPlan, st *state.File, cache *state.HashCache) (*manifest.Manifest, error) {
	vars := &varFlags{vars: s.Vars, files: s.VarFiles}
	m, err := loadManifest(env, vars)
	if err != nil {
		return nil, err
	}
	if err := s.Check(st, m); err != nil {
		return nil, withHint(fmt.Errorf("%s: %w", name, err), "run 'voxform plan -out "+name+"' again")
	}
	if err := s.Bind(m, cache.Hash); err != nil {
		return nil, withHint(fmt.Errorf("%s: %w", name, err), "run 'voxform plan -out "+name+"' again")
	}
	return m, nil
}

// replanSaved computes the plan again from the locked state and the
// manifest, with the saved plan's options, and refuses the saved plan
// unless it is that plan: a plan file is a promise of what apply does, so
// nothing in it (its records, file operations, costs) is taken on trust.
// The budget is checked again on the way. It returns the plan to run.
func replanSaved(ctx context.Context, env *Env, name string, s *planner.SavedPlan, m *manifest.Manifest, st *state.File, cache *state.HashCache) (*planner.Plan, error) {
	fresh, err := computePlan(ctx, env, m, st, cache, s.Plan.Options)
	if err != nil {
		return fresh, err
	}
	if !planner.SamePlan(fresh, s.Plan) {
		return nil, withHint(fmt.Errorf("%s: %w: it no longer says what apply would do now (an output was changed, moved or removed since, or the file was edited)", name, planner.ErrStalePlan),
			"run 'voxform plan -out "+name+"' again")
	}
	return fresh, nil
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// readPlanFile decodes the plan file name (relative to the working
// directory) without checking it.
func readPlanFile(env *Env, name string) (*planner.SavedPlan, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > planner.MaxPlanFileBytes {
		return nil, fmt.Errorf("read plan file %s: not a regular file of at most %d bytes (the limit of a plan file)", path, planner.MaxPlanFileBytes)
	}
	s, err := planner.ReadSaved(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "read plan file: "))
	}
	return s, nil
}
