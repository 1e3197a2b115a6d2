package state

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// WriteFileAtomic writes a file so that a crash at any instant leaves either
// the old content or the new one at path, never a torn or empty file: it
// writes a temporary file in the same directory, syncs and closes it, renames
// it over path and syncs the directory. The temporary file is removed only on
// failure. write streams the content.
//
// The temporary file is always a new file (never a symbolic link followed,
// never an existing file opened), and the rename replaces whatever is at
// path, a symbolic link included, without following it.
func WriteFileAtomic(path string, perm os.FileMode, write func(w io.Writer) error) error {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer d.Close()
	return writeAtomicAt(d, filepath.Base(path), perm, true, write)
}

// writeAtomicAt is WriteFileAtomic for name in the open directory d: every
// step is relative to d, so that a directory swapped for a link meanwhile
// cannot redirect it. Without durable the file and the directory are not
// fsynced (a cache that checks its own content).
func writeAtomicAt(d *os.File, name string, perm os.FileMode, durable bool, write func(w io.Writer) error) (err error) {
	path := filepath.Join(d.Name(), name)
	tmp, tmpName, err := createTemp(int(d.Fd()), d.Name(), name)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			unix.Unlinkat(int(d.Fd()), tmpName, 0)
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("write %s: sync: %w", path, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = unix.Renameat(int(d.Fd()), tmpName, int(d.Fd()), name); err != nil {
		return fmt.Errorf("write %s: rename: %w", path, err)
	}
	if !durable {
		return nil
	}
	if err = d.Sync(); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs a directory so that a rename or unlink inside it is durable.
func SyncDir(dir string) error {
	d, err := openDir(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
