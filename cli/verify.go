package cli

import (
	"context"
	"fmt"

	"github.com/voxform/voxform/workspace"
)

func init() {
	register(&command{name: "verify", synopsis: "re-hash every recorded output against the state (an audit)", run: runVerify})
}

const verifyUsage = `
Usage: voxform verify [flags]

Re-hashes every output recorded in voxform.state.json, and every local
transcription source, and reports each that is missing or differs from what
was recorded. Nothing is trusted from the hash cache and nothing is
changed. Exit status 1 when any output drifted.

Flags:
`

func runVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "verify", verifyUsage)
	jsonOut := fs.Bool("json", false, "one JSON object per finding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("verify takes no arguments")
	}
	ws, err := openWorkspace(env, nil, 0)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := ws.ReadState()
	if err != nil {
		return err
	}
	found, checked, err := ws.Verify(ctx, st)
	if err != nil {
		return err
	}
	outputsDrifted := 0
	for _, d := range found {
		if d.Problem != workspace.SourceChanged {
			outputsDrifted++
		}
		if *jsonOut {
			writeJSONLine(env.Stdout, d)
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: %s: %s\n", d.Address, d.Path, d.Problem)
	}
	if !*jsonOut {
		fmt.Fprintf(env.Stdout, "Verified %d recorded file(s) of %d resource(s): %d drifted.\n", checked, len(st.Resources), outputsDrifted)
	}
	if outputsDrifted > 0 {
		return exitCode(ExitError, withHint(fmt.Errorf("%d recorded output(s) are missing or modified", outputsDrifted),
			"'voxform plan' shows them as repairs; 'voxform apply' restores them"))
	}
	return nil
}
