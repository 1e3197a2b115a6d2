package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "takes", synopsis: "list the outputs voxform made for an address", run: runTakes})
	register(&command{name: "use", synopsis: "put an earlier take of an address back, free", run: runUse})
}

const takesUsage = `
Usage: voxform takes [flags] ADDRESS

Lists the takes of ADDRESS, oldest first: every output apply made for
it (or import adopted), as this checkout's takes journal
(.voxform/takes.jsonl) records them, and the recorded output when the
journal lacks it. Each row gives the take's number (for 'voxform use'),
when it was made, the fingerprint of the request it was made for, the
digest of its output bytes, its origin, whether the local output cache
still holds it, and whether it is the current output.

Flags:
`

const useUsage = `
Usage: voxform use [flags] ADDRESS TAKE

Puts an earlier take of ADDRESS back, byte for byte, from the local
output cache, without calling the service, and records it as the
resource's output for its current request (the next plan shows no
change), with origin "take" and the take's fingerprint (an imported
take stays "imported"); 'voxform push' sends it on. TAKE is a
take's number in 'voxform takes ADDRESS' or at least 4 hex digits of its
fingerprint. Refused when the cache no longer holds the take, or its
output is not of the format the synthesis declares now.

Flags:
`

// takeFlags are the flags shared by takes and use.
type takeFlags struct {
	vars        varFlags
	emulate     bool
	lockTimeout time.Duration
}

// register adds -emulate to fs.
func (f *takeFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.emulate, "emulate", false, "the takes 'apply -emulate' made (kept apart in the output cache)")
}

func runTakes(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "takes", takesUsage)
	var f takeFlags
	f.vars.register(fs)
	f.register(fs)
	jsonOut := fs.Bool("json", false, "print the takes as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("takes: expected one address")
	}
	addr := fs.Arg(0)
	ws, err := openWorkspace(env, &f.vars, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	ws.Emulated = f.emulate
	m, err := loadManifest(env, &f.vars)
	if err != nil {
		return err
	}
	st, err := ws.ReadState(ctx)
	if err != nil {
		return err
	}
	c, err := ws.OpenCache(ctx, m, planner.CacheLocal)
	if err != nil {
		return err
	}
	rows, skipped, err := workspace.Takes(ws.Dir, st, c, addr)
	if err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "voxform: warning: %d line%s of the takes journal could not be read and %s skipped\n", skipped, pluralS(skipped), map[bool]string{true: "was", false: "were"}[skipped == 1])
	}
	if *jsonOut {
		return writeTakesJSON(env, addr, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(env.Stdout, "No takes of %s: apply or import makes them.\n", untrusted.Escape(addr))
		return nil
	}
	return writeTakes(env, rows)
}

// writeTakes prints rows as a table.
func writeTakes(env *Env, rows []workspace.TakeRow) error {
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TAKE\tMADE\tFINGERPRINT\tDIGEST\tORIGIN\tCACHED\tCURRENT")
	for _, r := range rows {
		origin := r.Origin
		if origin == "" {
			origin = "service"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.12s\t%.12s\t%s\t%s\t%s\n", r.N, r.At.UTC().Format(time.RFC3339), r.Fingerprint, r.Digest, origin, yesNo(r.Cached), map[bool]string{true: "current", false: ""}[r.Current])
	}
	return tw.Flush()
}

// writeTakesJSON prints rows as one JSON object.
func writeTakesJSON(env *Env, addr string, rows []workspace.TakeRow) error {
	type row struct {
		Take        int       `json:"take"`
		At          time.Time `json:"at"`
		Fingerprint string    `json:"fingerprint"`
		Digest      string    `json:"digest"`
		Origin      string    `json:"origin"`
		Cached      bool      `json:"cached"`
		Current     bool      `json:"current"`
	}
	out := make([]row, 0, len(rows))
	for _, r := range rows {
		out = append(out, row{r.N, r.At.UTC(), r.Fingerprint, r.Digest, r.Origin, r.Cached, r.Current})
	}
	return json.NewEncoder(env.Stdout).Encode(map[string]any{"address": addr, "takes": out})
}

func runUse(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "use", useUsage)
	var f takeFlags
	f.vars.register(fs)
	f.register(fs)
	lockTimeoutFlag(fs, &f.lockTimeout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("use: expected an address and a take")
	}
	addr := fs.Arg(0)
	ws, err := openWorkspace(env, &f.vars, f.lockTimeout)
	if err != nil {
		return err
	}
	defer ws.Close()
	ws.Emulated = f.emulate
	sess, err := ws.Lock(ctx, "use")
	if err != nil {
		return err
	}
	defer sess.Close()
	m, err := loadManifest(env, &f.vars)
	if err != nil {
		return err
	}
	was, err := approvalsBefore(sess, []string{addr})
	if err != nil {
		return err
	}
	t, changed, err := sess.Use(ctx, m, addr, fs.Arg(1))
	if cerr := sess.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	approvals, err := approvalChanges(ctx, ws, was)
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintf(env.Stdout, "Take %d is the current output of %s already; nothing changed.\n", t.N, untrusted.Escape(addr))
		return nil
	}
	fmt.Fprintf(env.Stdout, "Put take %d of %s back (fingerprint %.12s, digest %.12s) from the output cache; no service was called, nothing was billed.\n", t.N, untrusted.Escape(addr), t.Fingerprint, t.Digest)
	writeApprovalChange(env, addr, approvals[addr])
	return nil
}
