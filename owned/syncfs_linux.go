package owned

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// SyncsFS reports whether SyncFS is available: on Linux 5.17 and later.
// syncfs(2) reports write-back errors from 5.8, and the file system's own
// sync errors (a failed journal commit, an XFS shutdown) only from 5.17;
// before, it could return success regardless.
func SyncsFS() bool {
	syncsFSOnce.Do(func() {
		var u unix.Utsname
		if unix.Uname(&u) != nil {
			return
		}
		syncsFS = kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 17)
	})
	return syncsFS
}

var (
	syncsFSOnce sync.Once
	syncsFS     bool
)

// kernelAtLeast reports whether a kernel release ("6.1.0-18-amd64") is
// major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	digits := strings.IndexFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
	if digits < 0 {
		digits = len(parts[1])
	}
	mi, err2 := strconv.Atoi(parts[1][:digits])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// SyncFS makes everything written to the file system of dir durable
// (syncfs(2)): file contents, renames and unlinks alike. It fails if
// writing something back failed, with one exception: a write-back error
// is reported through each handle opened before it was first seen, so a
// handle opened after someone else saw it (as SyncFS opens its own) does
// not report it. It suits content that is checked on use, as the output
// cache's is (by SHA-256); outputs are synced file by file, each through
// the handle that wrote it.
func SyncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	return nil
}
