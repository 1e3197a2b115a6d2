package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// MaxCacheFileSize bounds a file read from .voxform/ (the hash cache and the
// state snapshot). A larger one is not read: the cache is not used.
const MaxCacheFileSize = 1 << 30

// cacheIgnore is the .gitignore that keeps .voxform/ out of version control.
const cacheIgnore = "# voxform's local cache: never commit it\n*\n"

// openCacheDir opens .voxform/ in the manifest directory dir for the *at
// calls that read and write its files. It must be a real directory there:
// a symbolic link (which a repository can hold, leading anywhere) or
// anything else is refused, so that voxform never reads its caches from,
// nor writes them to, a place outside the manifest directory. With create,
// a missing .voxform/ is made, and a missing .gitignore in it.
func openCacheDir(dir string, create bool) (*os.File, error) {
	p := filepath.Join(dir, CacheDirName)
	for made := false; ; made = true {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			d := os.NewFile(uintptr(fd), p)
			if create {
				writeIgnore(d)
			}
			return d, nil
		}
		var st unix.Stat_t
		lerr := unix.Lstat(p, &st)
		switch {
		case lerr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return nil, fmt.Errorf("%s is a symbolic link; voxform keeps its own files there", p)
		case lerr == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return nil, fmt.Errorf("%s is %s, not a directory; voxform keeps its own files there", p, fileKind(unixMode(st.Mode)))
		case errors.Is(lerr, unix.ENOENT) && create && !made:
			// mkdir never follows a link at p: one made meanwhile
			// fails it, and the next open refuses it.
			if err := unix.Mkdir(p, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				return nil, &fs.PathError{Op: "mkdir", Path: p, Err: err}
			}
			continue
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
}

// writeIgnore creates .gitignore in the cache directory d unless something
// is there already (a symbolic link included, which is left alone and not
// followed). Failures are ignored: it only keeps the cache out of commits.
func writeIgnore(d *os.File) {
	fd, err := unix.Openat(int(d.Fd()), ".gitignore", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.Name(), ".gitignore"))
	f.WriteString(cacheIgnore)
	f.Close()
}

// readCacheFile reads name from .voxform/ in the manifest directory dir: a
// regular file, not a symbolic link, of at most MaxCacheFileSize bytes.
func readCacheFile(dir, name string) ([]byte, error) {
	f, err := openCacheFile(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, MaxCacheFileSize, "a cache file")
}

// openCacheFile opens name in .voxform/ for reading (see readCacheFile).
func openCacheFile(dir, name string) (*os.File, error) {
	d, err := openCacheDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return openOwn(int(d.Fd()), name, filepath.Join(d.Name(), name), unix.O_RDONLY, 0)
}

// SchemaFileName is the manifest's JSON Schema kept in .voxform/ for
// editors: a manifest's "# yaml-language-server: $schema=" line names it.
const SchemaFileName = "manifest.schema.json"

// SchemaPath is SchemaFileName as a manifest names it.
const SchemaPath = CacheDirName + "/" + SchemaFileName

// KeepSchema writes content as .voxform/manifest.schema.json in the
// manifest directory dir unless the file there already holds it, so that
// editors find the schema of the voxform that runs, offline and kept
// current across upgrades.
func KeepSchema(dir string, content []byte) error {
	if f, err := openCacheFile(dir, SchemaFileName); err == nil {
		// Read only a file of the schema's size: whatever else is there is
		// rewritten unread.
		st, serr := f.Stat()
		same := false
		if serr == nil && st.Size() == int64(len(content)) {
			old, rerr := readAtMost(f, int64(len(content)), "the manifest schema")
			same = rerr == nil && bytes.Equal(old, content)
		}
		f.Close()
		if same {
			return nil
		}
	}
	d, err := openCacheDir(dir, true)
	if err != nil {
		return err
	}
	defer d.Close()
	return owned.WriteFileAt(d, SchemaFileName, 0o644, false, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
}
