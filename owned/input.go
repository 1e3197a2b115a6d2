package owned

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// OpenInput opens a file voxform reads as text or data (a manifest, a
// -var-file, a for_each data file, a text_file, a lexicon, an embedding
// file), named as the manifest or the command line names it.
//
// A name spelled inside the manifest directory is a file of the project:
// its real path, symbolic links resolved, must lie inside the directory
// too. A link that leads out of it is refused before the file it points to
// is opened, and the file opened is checked once more where it really is,
// so a link swapped in meanwhile is seen. A name spelled outside it, an
// absolute path or one through "..", names an input outside the project
// explicitly (in the manifest or on the command line, for anyone reading
// it to see), and is opened as named, links and all.
//
// Either way the file must be a regular file: a directory, a named pipe, a
// socket, a device or a file of a kernel pseudo file system (procfs,
// sysfs) is refused without being read. It is opened without blocking, so
// a named pipe is refused rather than waited on.
func (r *Root) OpenInput(name string) (*os.File, error) {
	return r.OpenInputWithin(name, nil)
}

// OpenInputWithin opens name as OpenInput does, and accepts too a name
// spelled inside the manifest directory whose real path lies inside one of
// dirs: absolute directories outside the project that the manifest names
// explicitly as places its inputs really are (a shared recordings
// directory reached through a symbolic link). A link to anywhere else is
// refused as OpenInput refuses it, before and after the file is opened.
func (r *Root) OpenInputWithin(name string, dirs []string) (*os.File, error) {
	local, explicit := r.explicit(name)
	if explicit != "" {
		return openInputFile(name, explicit)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(r.real, local))
	if err != nil {
		return nil, cleanPathError(name, err)
	}
	allowed := append([]string{r.real}, realDirs(dirs)...)
	if err := r.checkInput(name, real, allowed); err != nil {
		return nil, err
	}
	f, err := openInputFile(name, real)
	if err != nil {
		return nil, err
	}
	if now, err := realPath(f, real); err != nil {
		f.Close()
		return nil, cleanPathError(name, err)
	} else if err := r.checkInput(name, now, allowed); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkInput refuses an input of the project (name) whose real path lies
// outside allowed (the manifest directory and the directories named for
// it), or, inside the manifest directory, in voxform's own files or version
// control's (.voxform/, the state files, .git/ at any depth): a link to
// .git/config would otherwise make a CI job's checkout token a synthesis
// text.
func (r *Root) checkInput(name, real string, allowed []string) error {
	if !Within(real, allowed...) {
		return &Error{Path: name, Reason: errOutside}
	}
	rel, ok := r.inside(real)
	if !ok {
		return nil // inside a directory named for inputs
	}
	if rel == "." {
		return &Error{Path: name, Reason: "is the manifest directory itself"}
	}
	if reason := relProblem(rel); reason != "" {
		return &Error{Path: name, Reason: fmt.Sprintf("resolves to %q, which %s", rel, reason)}
	}
	for _, part := range strings.Split(rel, "/") {
		if slices.Contains(vcsDirs, strings.ToLower(part)) {
			return &Error{Path: name, Reason: fmt.Sprintf("resolves to %q, inside %s/, which belongs to version control", rel, part)}
		}
	}
	return nil
}

// Within reports whether path lies inside one of dirs (or is one of
// them). Both are taken as they are spelled: pass real paths (symbolic
// links resolved) to ask where a file really is.
func Within(path string, dirs ...string) bool {
	for _, d := range dirs {
		rel, err := filepath.Rel(d, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// realDirs is dirs with symbolic links resolved; a directory that cannot
// be resolved is left out (nothing lies inside it).
func realDirs(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil && filepath.IsAbs(real) {
			out = append(out, real)
		}
	}
	return out
}

// explicit sorts name by its spelling: a path outside the root (absolute,
// or through "..") is returned as explicit; a name that is local, or that
// leads back into the root however it is spelled ("../project/link",
// the root's own absolute path), is a file of the project, returned as
// local, relative to the root, and checked as one.
func (r *Root) explicit(name string) (local, explicit string) {
	if filepath.IsLocal(name) {
		return name, ""
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, name)
	}
	p = filepath.Clean(p)
	for _, root := range []string{r.dir, r.real} {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			return rel, ""
		}
		if p == root {
			return ".", ""
		}
	}
	return "", p
}

// errOutside is the reason an input reached through a symbolic link out
// of the manifest directory is refused.
const errOutside = "leads outside the manifest directory through a symbolic link"

// IsOutside reports whether err refuses an input reached through a
// symbolic link out of the manifest directory (and out of the directories
// named for it, OpenInputWithin).
func IsOutside(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Reason == errOutside
}

// OpenInput opens name as Root.OpenInput does, relative to the manifest
// directory dir, for a caller that holds no Root (a check of one file).
func OpenInput(dir, name string) (*os.File, error) {
	return OpenInputWithin(dir, name, nil)
}

// OpenInputWithin opens name as Root.OpenInputWithin does, relative to the
// manifest directory dir, for a caller that holds no Root.
func OpenInputWithin(dir, name string, dirs []string) (*os.File, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenInputWithin(name, dirs)
}

// ReadInput reads at most limit+1 bytes of the input name (OpenInput), so
// that the caller can tell a file over its limit without reading it all.
func (r *Root) ReadInput(name string, limit int64) ([]byte, error) {
	f, err := r.OpenInput(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, cleanPathError(name, err)
	}
	return b, nil
}

// OpenRegular opens path for reading as OpenInput opens the file it has
// found: without blocking, and only when it is a regular file (not a
// directory, a named pipe, a socket, a device or a file of a kernel pseudo
// file system such as /proc/self/environ).
func OpenRegular(path string) (*os.File, error) { return openInputFile(path, path) }

// openInputFile opens path (name for messages) for reading without
// blocking and refuses anything but a regular file.
func openInputFile(name, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, cleanPathError(name, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, cleanPathError(name, err)
	}
	if reason := notRegular(st.Mode()); reason != "" {
		f.Close()
		return nil, &Error{Path: name, Reason: reason}
	}
	if fsName := pseudoFS(f); fsName != "" {
		f.Close()
		return nil, &Error{Path: name, Reason: "is a file of the kernel's " + fsName + " file system, not a regular file"}
	}
	return f, nil
}

// notRegular says what a file of mode m is when it is not a regular file.
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "is a directory, not a regular file"
	case m&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return "is a named pipe or socket, not a regular file"
	case m&fs.ModeDevice != 0:
		return "is a device, not a regular file"
	default:
		return fmt.Sprintf("is not a regular file (%s)", m.Type())
	}
}

// cleanPathError names name, the input as given, in place of the path a
// file system error carries (a link's target, which may be outside).
func cleanPathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}
