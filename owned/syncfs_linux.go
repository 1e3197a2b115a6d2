package owned

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// SyncsFS reports whether SyncFS is available: on Linux 5.8 and later,
// where syncfs(2) reports a write-back that failed since it began (before
// 5.8 it returned success regardless, which voxform does not rely on).
func SyncsFS() bool {
	syncsFSOnce.Do(func() {
		var u unix.Utsname
		if unix.Uname(&u) != nil {
			return
		}
		syncsFS = kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
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
// writing something back failed since it began.
func SyncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	defer unix.Close(fd)
	return syncFSAt(fd, dir)
}

// syncFSAt is SyncFS through an open handle of dir.
func syncFSAt(fd int, dir string) error {
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("sync the file system of %s: %w", dir, err)
	}
	return nil
}
