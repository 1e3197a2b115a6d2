package owned

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Every file voxform writes (outputs, the state, its journal's snapshot,
// the hash cache, saved plans) is written here, the same way: a new
// temporary file beside it, synced, then renamed into place. A kill at any
// instant leaves the old content or the new, never a torn or empty file,
// and the temporary files a killed process leaves are recognised by name.

// tempMarker separates a file's name from the random suffix of its
// temporary file: ".NAME.voxform-tmp-HEX".
const tempMarker = ".voxform-tmp-"

// legacyTempMarker is how earlier versions named the temporary files of
// the state and the hash cache (".NAME.tmp-HEX"), still swept.
const legacyTempMarker = ".tmp-"

// TempPrefix is the start of the name of every temporary file of name.
func TempPrefix(name string) string { return "." + name + tempMarker }

// IsTemp reports whether entry is a temporary file voxform made for some
// file of its directory (".NAME.voxform-tmp-HEX").
func IsTemp(entry string) bool {
	i := strings.LastIndex(entry, tempMarker)
	return strings.HasPrefix(entry, ".") && i > 0 && hexSuffix(entry[i+len(tempMarker):])
}

// IsTempOf reports whether entry is a temporary file of name, as this or an
// earlier version named them.
func IsTempOf(entry, name string) bool {
	for _, marker := range []string{tempMarker, legacyTempMarker} {
		if suffix, ok := strings.CutPrefix(entry, "."+name+marker); ok && hexSuffix(suffix) {
			return true
		}
	}
	return false
}

// hexSuffix reports whether s is 1 to 16 lowercase hexadecimal digits.
func hexSuffix(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// createTemp creates a new temporary file for name in the directory dirfd
// (shown is the directory's path, for the file's Name), readable and
// writable by the owner only. It never follows a symbolic link and never
// opens an existing file. It returns the file and its name in the
// directory.
func createTemp(dirfd int, shown, name string) (*os.File, string, error) {
	var b [8]byte
	for range 100 {
		rand.Read(b[:])
		tmp := TempPrefix(name) + hex.EncodeToString(b[:])
		fd, err := unix.Openat(dirfd, tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return os.NewFile(uintptr(fd), filepath.Join(shown, tmp)), tmp, nil
	}
	return nil, "", errors.New("too many name collisions")
}

// WriteFile writes the file path atomically and durably: a crash at any
// instant leaves either the old content or the new one at path. It writes
// a temporary file in the same directory, syncs and closes it, renames it
// over path and syncs the directory; the temporary file is removed on
// failure. write streams the content. The rename replaces whatever is at
// path, a symbolic link included, without following it.
func WriteFile(path string, perm os.FileMode, write func(w io.Writer) error) error {
	d, err := OpenDirFile(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer d.Close()
	return WriteFileAt(d, filepath.Base(path), perm, true, write)
}

// WriteFileAt is WriteFile for name in the open directory d: every step is
// relative to d, so that a directory swapped for a link meanwhile cannot
// redirect it. Without durable neither the file nor the directory is
// synced (for a cache that checks its own content).
func WriteFileAt(d *os.File, name string, perm os.FileMode, durable bool, write func(w io.Writer) error) (err error) {
	path := filepath.Join(d.Name(), name)
	tmp, tmpName, err := createTemp(int(d.Fd()), d.Name(), name)
	if err != nil {
		return fmt.Errorf("write %s: create temporary file: %w", path, err)
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

// SweepTemps removes the temporary files of name left in the directory dir
// by a process killed while writing: regular files only, matched by
// IsTempOf. The caller holds the lock that every writer of name holds.
// Failures are ignored: a temporary file left is only clutter.
func SweepTemps(dir, name string) {
	d, err := OpenDirFile(dir)
	if err != nil {
		return
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return
	}
	for _, n := range names {
		var st unix.Stat_t
		if !IsTempOf(n, name) || unix.Fstatat(int(d.Fd()), n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		unix.Unlinkat(int(d.Fd()), n, 0)
	}
}

// OpenDirFile opens the directory dir for *at calls and fsync.
func OpenDirFile(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open directory", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// SyncDir fsyncs a directory so that a rename or unlink inside it is durable.
func SyncDir(dir string) error {
	d, err := OpenDirFile(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
