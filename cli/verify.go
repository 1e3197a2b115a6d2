package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/voxform/voxform/state"
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

// drift is one finding of verify.
type drift struct {
	Address string `json:"address"`
	Path    string `json:"path"`
	// Problem is "missing", "modified" or "source changed".
	Problem  string `json:"problem"`
	Recorded string `json:"recorded_sha256"`
	Found    string `json:"found_sha256,omitempty"`
}

func runVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "verify", verifyUsage)
	jsonOut := fs.Bool("json", false, "one JSON object per finding")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("verify takes no arguments")
	}
	st, err := state.NewLocal(env.Dir).Read()
	if err != nil {
		return err
	}
	found, checked, err := verifyState(ctx, env.Dir, st)
	if err != nil {
		return err
	}
	outputsDrifted := 0
	for _, d := range found {
		if d.Problem != "source changed" {
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

// verifyState hashes every recorded output and local source.
func verifyState(ctx context.Context, dir string, st *state.File) ([]drift, int, error) {
	var out []drift
	checked := 0
	check := func(addr, rel, want, problem string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		checked++
		sum, _, err := state.HashFile(filepath.Join(dir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if problem == "modified" {
				problem = "missing"
			}
			out = append(out, drift{Address: addr, Path: rel, Problem: problem, Recorded: want})
		case err != nil:
			return fmt.Errorf("verify %s: %w", rel, err)
		case sum != want:
			out = append(out, drift{Address: addr, Path: rel, Problem: problem, Recorded: want, Found: sum})
		}
		return nil
	}
	for _, addr := range st.Addresses() {
		r := st.Resources[addr]
		for _, o := range r.Outputs {
			if err := check(addr, o.Path, o.SHA256, "modified"); err != nil {
				return nil, checked, err
			}
		}
		if r.Source != nil && r.Source.Path != "" && r.Source.SHA256 != "" {
			if err := check(addr, r.Source.Path, r.Source.SHA256, "source changed"); err != nil {
				return nil, checked, err
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out, checked, nil
}
