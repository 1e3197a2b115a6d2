package cli

import (
	"context"
	"fmt"

	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "state", synopsis: "list, show or forget recorded resources", run: runState})
}

const stateUsage = `
Usage: voxform state list [ADDR...]
       voxform state show ADDR
       voxform state rm ADDR...

list  prints the recorded addresses (only those matching ADDR, which may
      name a whole block such as synthesis.menu).
show  prints everything recorded about one address, as JSON.
rm    forgets addresses: voxform no longer manages them. Their output files
      are left in place.

Flags:
`

func runState(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "state", stateUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageErrorf("state: missing subcommand (list, show or rm)")
	}
	ws := workspace.New(env.Dir)
	switch rest[0] {
	case "list":
		return stateList(env, ws, rest[1:])
	case "show":
		if len(rest) != 2 {
			return usageErrorf("state show: expected one address")
		}
		return stateShow(env, ws, rest[1])
	case "rm":
		if len(rest) < 2 {
			return usageErrorf("state rm: expected at least one address")
		}
		return stateRemove(env, ws, rest[1:])
	}
	return usageErrorf("state: unknown subcommand %q (list, show or rm)", rest[0])
}

func stateList(env *Env, ws *workspace.Workspace, patterns []string) error {
	st, err := ws.ReadState()
	if err != nil {
		return err
	}
	for _, addr := range st.Addresses() {
		if len(patterns) == 0 || matchAddresses(patterns, addr) {
			fmt.Fprintln(env.Stdout, addr)
		}
	}
	return nil
}

func matchAddresses(patterns []string, addr string) bool {
	for _, p := range patterns {
		if state.MatchAddress(p, addr) {
			return true
		}
	}
	return false
}

func stateShow(env *Env, ws *workspace.Workspace, addr string) error {
	st, err := ws.ReadState()
	if err != nil {
		return err
	}
	r, ok := st.Resources[addr]
	if !ok {
		return withHint(fmt.Errorf("state show: %s is not in the state", addr), "run 'voxform state list' for the recorded addresses")
	}
	out, err := state.MarshalSorted(map[string]any{addr: r})
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}

func stateRemove(env *Env, ws *workspace.Workspace, patterns []string) (err error) {
	sess, err := ws.Lock("state rm")
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
		fmt.Fprintf(env.Stdout, "Removed %s\n", a)
	}
	fmt.Fprintf(env.Stdout, "Forgot %d resource%s; their output files were left in place.\n", len(addrs), pluralS(len(addrs)))
	return nil
}
