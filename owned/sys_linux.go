package owned

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// realPath is where the open directory f really is, read from the kernel
// (not from the path it was opened by, which may have changed since).
func realPath(f *os.File, _ string) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// renameNoReplace renames atomically unless the destination exists. File
// systems without RENAME_NOREPLACE get link and unlink, which refuse an
// existing destination too.
func renameNoReplace(oldDir int, oldName string, newDir int, newName string) error {
	err := unix.Renameat2(oldDir, oldName, newDir, newName, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return linkUnlink(oldDir, oldName, newDir, newName)
	}
	return err
}

// HandlePath is a path that opens the very file f is, wherever it is now:
// reading through it cannot be redirected by a directory swapped for a
// symbolic link after f was made. Valid while f is open.
func HandlePath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }
