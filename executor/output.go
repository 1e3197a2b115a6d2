package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/voxform/voxform/state"
	"golang.org/x/sys/unix"
)

// tempMarker is part of every temporary output's name, so that temp files
// left by a killed process are recognised and swept by the next apply.
const tempMarker = ".voxform-tmp-"

// outputFile is an output being written. Bytes go to a temporary file beside
// the final path; Commit validates, syncs, renames into place and syncs the
// directory; Abort removes the temporary file. Nothing ever appears at the
// final path until Commit, so an interrupted operation leaves no partial file.
type outputFile struct {
	rel   string // declared path
	final string // absolute final path
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
}

// createOutput starts writing the output at rel (relative to dir).
func createOutput(dir, rel string) (*outputFile, error) {
	o, err := openOutput(dir, rel)
	if err != nil {
		return nil, err
	}
	if err := o.wait(); err != nil {
		return nil, err
	}
	return o, nil
}

// openOutput is createOutput with the temporary file created in the
// background: a caller that is about to wait for the service lets the file
// system's work (an inode) overlap that wait. The directory is made, and
// checked to be writable, first, so that a path that cannot be written
// fails before the paid call; the first method called waits for the file,
// and an error creating it is that method's.
func openOutput(dir, rel string) (*outputFile, error) {
	final := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	if err := unix.Access(filepath.Dir(final), unix.W_OK); err != nil {
		return nil, fmt.Errorf("output directory %s: %w", filepath.Dir(rel), err)
	}
	o := &outputFile{rel: rel, final: final, h: sha256.New(), ready: make(chan struct{})}
	go func() {
		defer close(o.ready)
		f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+tempMarker+"*")
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
	return nil
}

// TempPath is the temporary file's path (for validation before commit),
// or "" when it could not be created.
func (o *outputFile) TempPath() string {
	if o.wait() != nil {
		return ""
	}
	return o.f.Name()
}

// Commit makes the output visible at its final path. validate, if not nil,
// checks the complete temporary file first (container magic, sizes).
func (o *outputFile) Commit(validate func(path string) error) (state.Output, error) {
	if o.done {
		return state.Output{}, errors.New("output already finished")
	}
	if err := o.wait(); err != nil {
		return state.Output{}, err
	}
	o.done = true
	fail := func(err error) (state.Output, error) {
		o.f.Close()
		os.Remove(o.f.Name())
		return state.Output{}, err
	}
	if err := o.f.Chmod(0o644); err != nil { // CreateTemp makes 0600 files
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
	if err := o.f.Close(); err != nil {
		return fail(fmt.Errorf("close %s: %w", o.rel, err))
	}
	if validate != nil {
		if err := validate(o.f.Name()); err != nil {
			return fail(fmt.Errorf("validate %s: %w", o.rel, err))
		}
	}
	if err := os.Rename(o.f.Name(), o.final); err != nil {
		return fail(fmt.Errorf("rename %s into place: %w", o.rel, err))
	}
	if err := syncDir(filepath.Dir(o.final)); err != nil {
		return state.Output{}, err
	}
	return state.Output{Path: o.rel, SHA256: sum, Size: size}, nil
}

// Check runs validate on the complete temporary file, without finishing
// the output: a group of outputs is checked as a whole before any of them
// is committed. A failure discards the output.
func (o *outputFile) Check(validate func(path string) error) error {
	if o.done {
		return errors.New("output already finished")
	}
	if err := o.wait(); err != nil {
		return err
	}
	if err := validate(o.f.Name()); err != nil {
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
	if o.wait() != nil {
		return
	}
	o.f.Close()
	os.Remove(o.f.Name())
}

// syncDir makes a rename durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// sweepTemps removes temporary outputs a killed apply left in dirs.
func sweepTemps(dirs []string) {
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), tempMarker) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}
