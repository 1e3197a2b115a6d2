package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/voxform/voxform/internal/junit"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// path returns name (a plan file's name as the user gave it) as a path:
// relative names are relative to the manifest directory.
func (w *Workspace) path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(w.Dir, name)
}

// ReadPlan decodes the plan file name without checking it against the
// state: a regular file of at most planner.MaxPlanFileBytes.
func (w *Workspace) ReadPlan(name string) (*planner.SavedPlan, error) {
	path := w.path(name)
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

// WritePlan saves a plan atomically. It never replaces a file that is not
// a plan file, nor one of voxform's own files or a path the plan writes
// (plan -out voxform.state.json would lose the state).
func (w *Workspace) WritePlan(name string, s *planner.SavedPlan) error {
	path := w.path(name)
	if err := w.checkPlanPath(path, s.Plan); err != nil {
		return advise(fmt.Errorf("plan -out %s: %w", name, err), "save the plan under another name, for example release.plan")
	}
	return owned.WriteFile(path, 0o600, s.Write)
}

// checkPlanPath refuses to save a plan over something else.
func (w *Workspace) checkPlanPath(path string, p *planner.Plan) error {
	outputOf := func(rel string) string {
		for _, a := range p.Actions {
			if a.Desired != nil && slices.ContainsFunc(a.Desired.Outputs, func(o planner.Output) bool { return o.Path == rel }) {
				return a.Address
			}
		}
		return ""
	}
	return w.checkReplace(path, outputOf, "voxform plan file", func(r io.Reader) error {
		_, err := planner.ReadSaved(io.LimitReader(r, planner.MaxPlanFileBytes))
		return err
	})
}

// checkReplace refuses to write a file of voxform's own (a plan, a
// report) at path over something else: over one of voxform's own files
// or an output (outputOf names the resource whose output rel is, "" for
// none), or over an existing file that is not a what, as identify
// recognises one. A path spelled inside the manifest directory that a
// symbolic link leads out of (a link a contributor committed) is refused,
// as an input reached so would be: an outside place is named by its own
// path.
func (w *Workspace) checkReplace(path string, outputOf func(rel string) string, what string, identify func(io.Reader) error) error {
	rel, ok := insideDir(w.Dir, path)
	if !ok && owned.Within(filepath.Clean(path), filepath.Clean(w.Dir)) {
		return fmt.Errorf("%s leads outside the manifest directory through a symbolic link; name the outside directory by its own path", path)
	}
	if ok {
		if err := owned.CheckRel(rel); err != nil {
			return err
		}
		if addr := outputOf(rel); addr != "" {
			return fmt.Errorf("%s is an output of %s", rel, addr)
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
	if err := identify(f); err != nil {
		return fmt.Errorf("%s exists and is not a %s", path, what)
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

// WriteJUnit writes the JUnit report r atomically to the file name
// (relative names are relative to the manifest directory). Like a plan
// file, it never replaces a file that is not a JUnit report, nor one of
// voxform's own files or an output recorded in st.
func (w *Workspace) WriteJUnit(name string, st *state.File, r *junit.Report) error {
	path := w.path(name)
	outputOf := func(rel string) string {
		for _, addr := range st.Addresses() {
			res := st.Resources[addr]
			if slices.ContainsFunc(res.Outputs, func(o state.Output) bool { return o.Path == rel }) ||
				res.Details().Source != nil && res.Details().Source.Path == rel {
				return addr
			}
		}
		return ""
	}
	isReport := func(r io.Reader) error {
		if !junit.IsReport(r) {
			return errors.New("not a JUnit report")
		}
		return nil
	}
	if err := w.checkReplace(path, outputOf, "JUnit XML report", isReport); err != nil {
		return advise(fmt.Errorf("-junit %s: %w", name, err), "write the report under another name, for example voxform-junit.xml")
	}
	return owned.WriteFile(path, 0o644, r.Write)
}
