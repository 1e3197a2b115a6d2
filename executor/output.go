package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/state"
)

// outputFile is an output being written. Bytes go to a temporary file beside
// the final path; Commit validates, syncs, renames into place and syncs the
// directory; Abort removes the temporary file. Nothing ever appears at the
// final path until Commit, so an interrupted operation leaves no partial file.
// Every file operation goes through the output's directory handle, opened
// and checked by owned.Root: a path component swapped for a symbolic link
// meanwhile cannot redirect it.
type outputFile struct {
	rel string // declared path
	dir *owned.Dir
	own owner
	// ready is closed once the temporary file exists (f) or could not be
	// created (openErr); every method waits for it.
	ready   chan struct{}
	openErr error
	f       *os.File
	h       hash.Hash
	size    int64
	pos     int64 // the write offset (kept here: no lseek per write)
	seeked  bool  // the running hash is void once the writer seeks back
	done    bool
	// loud measures the loudness of an audio output from the bytes
	// appended to it (nil: not measured; see measure).
	loud *loudness
}

// owner is what an output needs to know of the action that writes it.
type owner struct {
	// replace allows an existing file at the path to be replaced: the
	// plan found an output voxform recorded there (planner.Action.
	// Overwrite). Otherwise Commit refuses any file that appeared there.
	replace bool
	// expect, when set, is the content the plan found at the path: the
	// file is replaced only while it still holds it.
	expect string
	// note, when set, records the output as voxform's just before it is
	// renamed into place (state.Recorder.NoteWritten).
	note func(state.Output) error
	// want, when set, is the only content the output may have (a restore
	// of an output the state records): any other is refused before it is
	// renamed into place.
	want string
}

// openOutput opens the output rel below root. The directory is made, checked
// to lie inside the manifest directory and to be writable first, so that a
// path that cannot be written fails before the paid call; the first method
// called waits for the temporary file, and an error creating it is that
// method's.
func openOutput(root *owned.Root, rel string, own owner) (*outputFile, error) {
	dir, err := root.OutputDir(rel)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", rel, err)
	}
	if err := dir.Writable(); err != nil {
		dir.Close()
		return nil, fmt.Errorf("output directory %s: %w", path.Dir(rel), err)
	}
	o := &outputFile{rel: rel, dir: dir, own: own, h: sha256.New(), ready: make(chan struct{})}
	go func() {
		defer close(o.ready)
		f, err := dir.CreateTemp(path.Base(rel))
		if err != nil {
			o.openErr = fmt.Errorf("create temporary output: %w", err)
			return
		}
		o.f = f
	}()
	return o, nil
}

// wait returns once the temporary file exists, or why it does not.
func (o *outputFile) wait() error {
	<-o.ready
	return o.openErr
}

// Write implements io.Writer.
func (o *outputFile) Write(p []byte) (int, error) {
	if err := o.wait(); err != nil {
		return 0, err
	}
	n, err := o.f.Write(p)
	if !o.seeked {
		o.h.Write(p[:n])
	}
	o.loud.wrote(p[:n], o.pos, o.size)
	o.pos += int64(n)
	o.size = max(o.size, o.pos)
	return n, err
}

// Seek implements io.Seeker (WAV writers patch their header at the end).
func (o *outputFile) Seek(offset int64, whence int) (int64, error) {
	if err := o.wait(); err != nil {
		return 0, err
	}
	o.seeked = true
	pos, err := o.f.Seek(offset, whence)
	if err == nil {
		o.pos = pos
	}
	return pos, err
}

// Truncate empties the file (size must be 0) so that a retried operation
// starts afresh; with Seek it makes outputFile a speechapi.Truncater.
func (o *outputFile) Truncate(size int64) error {
	if size != 0 {
		return errors.New("outputs can only be truncated to empty")
	}
	if err := o.wait(); err != nil {
		return err
	}
	if err := o.f.Truncate(0); err != nil {
		return err
	}
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	o.h.Reset()
	o.size, o.pos, o.seeked = 0, 0, false
	o.loud.restart()
	return nil
}

// Fill writes the whole output through fill, which is given the temporary
// file itself, empty (to clone a cached file into it); Commit reads back
// what it holds to hash it.
func (o *outputFile) Fill(fill func(*os.File) error) error {
	if err := o.wait(); err != nil {
		return err
	}
	o.seeked = true
	o.loud.drop() // what fill writes does not pass through Write
	if err := fill(o.f); err != nil {
		return err
	}
	st, err := o.f.Stat()
	if err != nil {
		return err
	}
	o.size, o.pos = st.Size(), st.Size()
	return nil
}

// TempPath is a path to read the temporary file by (for validation before
// commit), or "" when it could not be created. It reads the file itself,
// whatever happens to its directory's path meanwhile, until Commit or
// Abort.
func (o *outputFile) TempPath() string {
	if o.wait() != nil {
		return ""
	}
	return owned.HandlePath(o.f)
}

// check is a check of an output's complete content, its size bytes read
// through r (container magic, sizes).
type check func(r io.ReaderAt, size int64) error

// Commit is CommitWith a check of the temporary file read by path (nil:
// none).
func (o *outputFile) Commit(validate func(path string) error) (state.Output, error) {
	return o.CommitWith(o.byPath(validate))
}

// byPath is validate as a check of o's temporary file, read by a path to
// its handle (nil for nil).
func (o *outputFile) byPath(validate func(path string) error) check {
	if validate == nil {
		return nil
	}
	return func(io.ReaderAt, int64) error { return validate(owned.HandlePath(o.f)) }
}

// CommitWith makes the output visible at its final path. validate, if not
// nil, checks the complete temporary file first, read through the handle
// that wrote it. A file at the final path is replaced only when the owner
// allows it.
func (o *outputFile) CommitWith(validate check) (state.Output, error) {
	if o.done {
		return state.Output{}, errors.New("output already finished")
	}
	if err := o.wait(); err != nil {
		o.dir.Close()
		return state.Output{}, err
	}
	o.done = true
	defer o.dir.Close()
	tmp := filepath.Base(o.f.Name())
	fail := func(err error) (state.Output, error) {
		o.loud.drop()
		o.f.Close()
		o.dir.Remove(tmp)
		return state.Output{}, err
	}
	if err := o.f.Chmod(0o644); err != nil { // temporary files are made 0600
		return fail(fmt.Errorf("chmod %s: %w", o.rel, err))
	}
	if err := o.f.Sync(); err != nil {
		return fail(fmt.Errorf("sync %s: %w", o.rel, err))
	}
	sum, size, err := o.digest()
	if err != nil {
		return fail(err)
	}
	if st, err := o.f.Stat(); err != nil || st.Size() != size {
		return fail(fmt.Errorf("validate %s: %d bytes written, %v on disk", o.rel, size, sizeOf(st, err)))
	}
	if validate != nil {
		if err := validate(o.f, size); err != nil {
			return fail(fmt.Errorf("validate %s: %w", o.rel, err))
		}
	}
	if err := o.f.Close(); err != nil {
		return fail(fmt.Errorf("close %s: %w", o.rel, err))
	}
	if o.own.want != "" && sum != o.own.want {
		return fail(fmt.Errorf("validate %s: sha256 %.12s, not the recorded %.12s", o.rel, sum, o.own.want))
	}
	out := state.Output{Path: o.rel, SHA256: sum, Size: size, Loudness: o.loud.result()}
	if o.own.note != nil {
		if err := o.own.note(out); err != nil {
			return fail(err)
		}
	}
	if o.own.replace && o.own.expect != "" {
		if err := o.unchanged(); err != nil {
			return fail(err)
		}
	}
	if err := o.dir.Commit(tmp, path.Base(o.rel), o.own.replace); err != nil {
		if errors.Is(err, owned.ErrNotOwned) {
			err = fmt.Errorf("%s appeared after the plan and voxform did not make it: %w", o.rel, err)
		}
		return fail(err)
	}
	if err := o.dir.Sync(); err != nil {
		return state.Output{}, err
	}
	return out, nil
}

// unchanged refuses to replace a file that no longer holds what the plan
// found there (a file the user edited while the apply ran). The file is
// read through the output's directory handle; a file gone meanwhile is
// fine.
func (o *outputFile) unchanged() error {
	f, err := o.dir.Open(path.Base(o.rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("hash %s: %w", o.rel, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != o.own.expect {
		return fmt.Errorf("%s changed after the plan, and voxform replaces only what it planned to: %w", o.rel, owned.ErrNotOwned)
	}
	return nil
}

// Check is CheckWith a check of the temporary file read by path.
func (o *outputFile) Check(validate func(path string) error) error {
	return o.CheckWith(o.byPath(validate))
}

// CheckWith runs validate on the complete temporary file, read through
// the handle that writes it, without finishing the output: a group of
// outputs is checked as a whole before any of them is committed. A
// failure discards the output.
func (o *outputFile) CheckWith(validate check) error {
	if o.done {
		return errors.New("output already finished")
	}
	if err := o.wait(); err != nil {
		o.Abort()
		return err
	}
	if err := validate(o.f, o.size); err != nil {
		o.Abort()
		return fmt.Errorf("validate %s: %w", o.rel, err)
	}
	return nil
}

func sizeOf(st os.FileInfo, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(st.Size())
}

// digest returns the content hash, re-reading the file if the writer seeked.
func (o *outputFile) digest() (string, int64, error) {
	if !o.seeked {
		return hex.EncodeToString(o.h.Sum(nil)), o.size, nil
	}
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, o.f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", o.rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Abort discards the output. It is safe after Commit (it does nothing).
func (o *outputFile) Abort() {
	if o.done {
		return
	}
	o.done = true
	defer o.dir.Close()
	o.loud.drop()
	if o.wait() != nil {
		return
	}
	o.f.Close()
	o.dir.Remove(filepath.Base(o.f.Name()))
}

// sweepTemps removes temporary outputs a killed apply left in the
// directories of the given output paths.
func sweepTemps(root *owned.Root, paths []string) {
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[path.Dir(p)] {
			continue
		}
		seen[path.Dir(p)] = true
		d, err := root.OpenDir(p, false)
		if err != nil {
			continue
		}
		entries, _ := d.ReadDir()
		for _, e := range entries {
			if !e.IsDir() && owned.IsTemp(e.Name()) {
				d.Remove(e.Name())
			}
		}
		d.Close()
	}
}
