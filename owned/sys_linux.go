package owned

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// kernelPaths: the kernel names where an open directory is (/proc/self/fd), so a kept
// directory handle can be checked again cheaply (Root.OutputDir).
const kernelPaths = true

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

// pseudoFS names the kernel pseudo file system f is on ("" for any
// other): their files say they are regular but are made when read
// (/proc/self/environ holds the process environment).
func pseudoFS(f *os.File) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return ""
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC:
		return "proc"
	case unix.SYSFS_MAGIC:
		return "sys"
	case unix.DEBUGFS_MAGIC:
		return "debug"
	case unix.TRACEFS_MAGIC:
		return "trace"
	case unix.SECURITYFS_MAGIC:
		return "security"
	case unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return "cgroup"
	case unix.BPF_FS_MAGIC:
		return "bpf"
	case unix.EFIVARFS_MAGIC:
		return "efivar"
	}
	return ""
}
