package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/state"
)

// Drift is one finding of Verify.
type Drift struct {
	Address string `json:"address"`
	Path    string `json:"path"`
	// Problem is "missing", "modified" or "source changed".
	Problem  string `json:"problem"`
	Recorded string `json:"recorded_sha256"`
	Found    string `json:"found_sha256,omitempty"`
}

// SourceChanged is the Problem of a transcription source that differs from
// the recorded one (its transcript is still what was made from the old).
const SourceChanged = "source changed"

// Hashed is one file Verify hashed: a recorded output, or a transcription
// source when Source.
type Hashed struct {
	Address, Path string
	Source        bool
}

// Verify hashes every output recorded in st, and every local transcription
// source, trusting nothing from the hash cache. It returns what is missing
// or differs, by address, and every file it hashed, in the order of the
// state's addresses.
//
// A recorded output is read only as the file system resolves it inside the
// manifest directory (owned.Root.Resolve): a directory replaced by a link
// to elsewhere since is an error, never a file hashed outside.
func (w *Workspace) Verify(ctx context.Context, st *state.File) ([]Drift, []Hashed, error) {
	root, err := owned.Open(w.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	var out []Drift
	var checked []Hashed
	check := func(addr, rel, want, problem string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		checked = append(checked, Hashed{Address: addr, Path: rel, Source: problem == SourceChanged})
		if problem != SourceChanged {
			if _, err := root.Resolve(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("verify %s: %w", rel, err)
			}
		}
		sum, _, err := state.HashFile(filepath.Join(w.Dir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if problem == "modified" {
				problem = "missing"
			}
			out = append(out, Drift{Address: addr, Path: rel, Problem: problem, Recorded: want})
		case err != nil:
			return fmt.Errorf("verify %s: %w", rel, err)
		case sum != want:
			out = append(out, Drift{Address: addr, Path: rel, Problem: problem, Recorded: want, Found: sum})
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
		if r.Details().Source != nil && r.Details().Source.Path != "" && r.Details().Source.SHA256 != "" {
			if err := check(addr, r.Details().Source.Path, r.Details().Source.SHA256, SourceChanged); err != nil {
				return nil, checked, err
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out, checked, nil
}
