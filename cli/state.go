package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "state", synopsis: "list, show or forget recorded resources", run: runState})
}

const stateUsage = `
Usage: voxform state list [ADDR...]
       voxform state show [-json] ADDR
       voxform state rm ADDR...
       voxform state pull
       voxform state migrate -to pg|local

list     prints the recorded addresses (only those matching ADDR, which may
         name a whole block such as synthesis.menu).
show     prints everything recorded about one address, as JSON (its
         approval also says whether it holds: "holds"), then, on
         stderr, its sign-off and where its outputs came from in words;
         with -json, only the JSON.
rm       forgets addresses: voxform no longer manages them. Their output
         files are left in place.
pull     prints the whole state as the local file's JSON, wherever it is
         kept (for audit and review).
migrate  copies the state, exactly, from the local file to the PostgreSQL
         backend (-to pg, configured by the manifest's backend: block and
         the environment) or back (-to local), refused while either is
         locked; the copy left behind is marked as moved, and commands
         refuse to use it. Then set backend.type (or VOXFORM_BACKEND).

Flags:
`

func runState(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "state", stateUsage)
	lockTimeout := new(time.Duration)
	lockTimeoutFlag(fs, lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageErrorf("state: missing subcommand (list, show, rm, pull or migrate)")
	}
	switch rest[0] {
	case "migrate":
		return stateMigrate(ctx, env, rest[1:])
	case "pull", "list", "show", "rm":
	default:
		return usageErrorf("state: unknown subcommand %q (list, show, rm, pull or migrate)", rest[0])
	}
	ws, err := openWorkspace(env, nil, *lockTimeout)
	if err != nil {
		return err
	}
	defer ws.Close()
	switch rest[0] {
	case "pull":
		if len(rest) != 1 {
			return usageErrorf("state pull takes no arguments")
		}
		st, err := ws.ReadState(ctx)
		if err != nil {
			return err
		}
		return st.Encode(env.Stdout)
	case "list":
		return stateList(ctx, env, ws, rest[1:])
	case "show":
		return stateShow(ctx, env, ws, rest[1:])
	case "rm":
		if len(rest) < 2 {
			return usageErrorf("state rm: expected at least one address")
		}
		return stateRemove(ctx, env, ws, rest[1:])
	}
	return nil
}

// stateMigrate is "state migrate -to pg|local": between the local file of
// the manifest directory and the PostgreSQL backend that the backend:
// block and the environment configure (whatever backend.type says).
func stateMigrate(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "state migrate", stateUsage)
	to := fs.String("to", "", "where the state goes: `BACKEND` pg or local")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || (*to != manifest.BackendPG && *to != manifest.BackendLocal) {
		return usageErrorf("state migrate: want -to pg or -to local")
	}
	b, ds := manifest.LoadBackend(env.Dir, (*varFlags)(nil).options(env))
	if ds.HasErrors() {
		writeDiagnostics(env.Stderr, ds)
		return diagnosticsError(ds)
	}
	configured := b.Type
	b.Type = manifest.BackendPG
	pg, err := workspace.NewBackend(env.Dir, b, env.Getenv)
	if err != nil {
		return err
	}
	defer pg.Close()
	var from, dest state.Backend = state.NewLocal(env.Dir), pg
	if *to == manifest.BackendLocal {
		from, dest = dest, from
	}
	f, err := state.Migrate(ctx, from, dest)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Migrated the state (lineage %s, serial %d, %d resource%s) from %s to %s; the copy left behind is marked as moved.\n",
		f.Lineage, f.Serial, len(f.Resources), pluralS(len(f.Resources)), from.Describe(), dest.Describe())
	if configured != *to {
		fmt.Fprintf(env.Stdout, "Set backend.type: %s in the manifest (or VOXFORM_BACKEND=%s) to use it.\n", *to, *to)
	}
	return nil
}

func stateList(ctx context.Context, env *Env, ws *workspace.Workspace, patterns []string) error {
	addrs, err := state.ListAddresses(ctx, ws.Backend())
	if err != nil {
		return err
	}
	w := bufio.NewWriter(env.Stdout) // one write per line took 100,000 calls
	for _, addr := range addrs {
		if len(patterns) == 0 || matchAddresses(patterns, addr) {
			fmt.Fprintln(w, untrusted.Escape(addr))
		}
	}
	return w.Flush()
}

func matchAddresses(patterns []string, addr string) bool {
	for _, p := range patterns {
		if state.MatchAddress(p, addr) {
			return true
		}
	}
	return false
}

// stateShow is "state show [-json] ADDR".
func stateShow(ctx context.Context, env *Env, ws *workspace.Workspace, args []string) error {
	fs := newFlagSet(env, "state show", stateUsage)
	jsonOnly := fs.Bool("json", false, "only the JSON: no sign-off and origin lines on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("state show: expected one address")
	}
	addr := fs.Arg(0)
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	r, ok := st.Resources[addr]
	if !ok {
		return withHint(fmt.Errorf("state show: %s is not in the state", untrusted.Escape(addr)), "run 'voxform state list' for the recorded addresses")
	}
	out, err := shownJSON(addr, r)
	if err != nil {
		return err
	}
	if _, err = env.Stdout.Write(out); err != nil {
		return err
	}
	if !*jsonOnly {
		for _, l := range signOffLines(r) {
			fmt.Fprintf(env.Stderr, "voxform: %s: %s\n", untrusted.Escape(addr), untrusted.Escape(l))
		}
	}
	return nil
}

// shownJSON is the record of r at addr as state show prints it: the
// state's own JSON, its approval with "holds" added (whether the
// recorded outputs are still the bytes approved, which the digest alone
// does not say).
func shownJSON(addr string, r *state.Resource) ([]byte, error) {
	if r.Details().Approval == nil {
		return state.MarshalSorted(map[string]any{addr: r})
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	type shown struct {
		state.Approval
		Holds bool `json:"holds"`
	}
	if m["approval"], err = json.Marshal(shown{*r.Details().Approval, r.Approved()}); err != nil {
		return nil, err
	}
	return state.MarshalSorted(map[string]any{addr: m})
}

// signOffLines say in words where r stands: its approval (holding, with
// its note; lost; none) and, for a made resource, where its outputs came
// from.
func signOffLines(r *state.Resource) []string {
	status := state.ApprovalStatus(r)
	if a := r.Details().Approval; a != nil && a.Note != "" {
		status += "; note: " + a.Note
	}
	lines := []string{status}
	if r.Status == state.StatusComplete && len(r.Outputs) > 0 {
		lines = append(lines, "origin: "+originWords(r))
	}
	return lines
}

// originWords says where r's outputs came from.
func originWords(r *state.Resource) string {
	switch r.Origin {
	case "", state.OriginRecorded:
		if path := r.RecordingPath(); path != "" {
			return "recorded: from the recording " + path
		}
		if r.Origin == "" {
			return "made by the service"
		}
	case state.OriginImported:
		return "imported by 'voxform import'"
	case state.OriginTake:
		return "take " + r.Details().Take + " put back by 'voxform use'"
	}
	return r.Origin
}

func stateRemove(ctx context.Context, env *Env, ws *workspace.Workspace, patterns []string) (err error) {
	sess, err := ws.Lock(ctx, "state rm")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := sess.Close(); err == nil {
			err = cerr
		}
	}()
	rec, err := sess.Recorder()
	if err != nil {
		return err
	}
	st, err := sess.State()
	if err != nil {
		return err
	}
	var addrs []string
	for _, p := range patterns {
		n := 0
		for _, addr := range st.Addresses() {
			if state.MatchAddress(p, addr) {
				addrs = append(addrs, addr)
				n++
			}
		}
		if n == 0 {
			return withHint(fmt.Errorf("state rm: %s is not in the state", p), "run 'voxform state list' for the recorded addresses")
		}
	}
	if err := rec.Remove(addrs...); err != nil {
		return err
	}
	if err := sess.Close(); err != nil {
		return err
	}
	for _, a := range addrs {
		fmt.Fprintf(env.Stdout, "Removed %s\n", untrusted.Escape(a))
	}
	fmt.Fprintf(env.Stdout, "Forgot %d resource%s; their output files were left in place.\n", len(addrs), pluralS(len(addrs)))
	return nil
}
