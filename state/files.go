package state

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// The files voxform keeps for itself (the state file, its journal, its lock,
// their temporary files and the caches in .voxform/) are opened without
// following a symbolic link at their name, and anything there that is not a
// regular file is refused: a repository can hold a link such as
// voxform.state.json.lock -> ../victim, and writing through it would empty a
// file outside the project.

// openOwn opens name (relative to the directory dirfd, or a path with
// unix.AT_FDCWD) for flag without following a symbolic link, and refuses
// anything but a regular file. shown names it in errors. O_NONBLOCK keeps
// the open of a named pipe from waiting for a writer before it is refused.
// A missing file gives an error matching fs.ErrNotExist.
func openOwn(dirfd int, name, shown string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(dirfd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	if err != nil {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
			return nil, notOwnFile(shown, st.Mode)
		}
		return nil, &fs.PathError{Op: "open", Path: shown, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: shown, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, notOwnFile(shown, st.Mode)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: shown, Err: err}
	}
	return os.NewFile(uintptr(fd), shown), nil
}

// notOwnFile explains why what is at path cannot be one of voxform's files.
func notOwnFile(path string, mode uint32) error {
	if mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("%s is a symbolic link; voxform keeps its own files there", path)
	}
	return fmt.Errorf("%s is %s, not a regular file; voxform keeps its own files there", path, fileKind(unixMode(mode)))
}

// unixMode converts the type bits of a stat mode to an os.FileMode.
func unixMode(mode uint32) os.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFIFO:
		return os.ModeNamedPipe
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFCHR, unix.S_IFBLK:
		return os.ModeDevice
	case unix.S_IFLNK:
		return os.ModeSymlink
	case unix.S_IFREG:
		return 0
	}
	return os.ModeIrregular
}

// readAtMost reads f to its end, refusing more than limit bytes (what names
// the limit in the error): the limit is checked against the file's size
// first, and again while reading (the file may grow), so that no more than
// limit+1 bytes are ever held.
func readAtMost(f *os.File, limit int64, what string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &sizeError{path: f.Name(), limit: limit, what: what}
	}
	b, err := readSized(io.LimitReader(f, limit+1), fi.Size())
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &sizeError{path: f.Name(), limit: limit, what: what}
	}
	return b, nil
}

// readSized reads r to its end into a buffer made for size bytes (what
// its file's size says), growing it only if there is more: io.ReadAll
// would allocate about twice a large file's size on its way there.
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1) // +1: the read that finds the end
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// sizeError reports a file over its size limit.
type sizeError struct {
	path  string
	limit int64
	what  string
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the limit of %s", e.path, sizeString(e.limit), e.what)
}

// sizeString writes a limit in the unit it was chosen in.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
