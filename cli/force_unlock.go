package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "force-unlock", synopsis: "break the state lock of a stuck process", run: runForceUnlock})
}

const forceUnlockUsage = `
Usage: voxform force-unlock [flags] LOCK_ID

Breaks the state lock held by another voxform process. LOCK_ID is the id
shown in the "state is locked" error. The lock dies with its process, so a
lock is only held by a process that is still running (perhaps hung, or on
another machine sharing the directory): stop that process first, or two
processes will write the state at once.

Flags:
`

func runForceUnlock(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "force-unlock", forceUnlockUsage)
	force := fs.Bool("force", false, "do not ask for confirmation")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("force-unlock: expected one lock id")
	}
	id := fs.Arg(0)
	if !*force {
		if !env.Interactive {
			return withHint(errors.New("force-unlock: confirmation needed"), "run with -force when not on a terminal")
		}
		fmt.Fprintf(env.Stdout, "Break the state lock %s? The process holding it must no longer run.\nOnly 'yes' will be accepted: ", id)
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != "yes" {
			return errors.New("force-unlock: cancelled")
		}
	}
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	err = ws.Backend().ForceUnlock(ctx, id)
	if errors.Is(err, state.ErrNotLocked) {
		fmt.Fprintln(env.Stdout, "The state is not locked.")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "The state lock was broken.")
	return nil
}
