package owned

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

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

// linksIn returns the names of the symbolic links in the directory f. It
// reads the entries in bulk (getdents64) and allocates only for the
// links: ReadDir made a DirEntry for each of 100,000 outputs of one
// directory. An entry whose type the file system does not give is asked
// about with an lstat relative to f.
func linksIn(f *os.File) (map[string]bool, error) {
	fd := int(f.Fd())
	bp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bp)
	buf := *bp
	links := map[string]bool{}
	for {
		n, err := unix.ReadDirent(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return links, nil
		}
		var statErr error
		if err := eachDirent(buf[:n], func(name []byte, typ byte) {
			switch typ {
			case unix.DT_LNK:
				links[string(name)] = true
			case unix.DT_UNKNOWN:
				link, err := isLinkAt(fd, string(name))
				if link {
					links[string(name)] = true
				}
				if err != nil && statErr == nil {
					statErr = err // not known: the caller asks about each file itself
				}
			}
		}); err != nil {
			return nil, err
		}
		if statErr != nil {
			return nil, statErr
		}
	}
}

// direntBuffers are linksIn's buffers: a check lists some hundreds of
// directories.
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// isLinkAt says whether the entry name of the directory fd is a symbolic
// link, for an entry whose type the file system did not give; one gone
// meanwhile is not.
func isLinkAt(fd int, name string) (bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, nil
	}
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK, err
}

// errDirent is a getdents64 answer that is not a whole list of entries.
var errDirent = errors.New("malformed directory entries")

// eachDirent calls fn with the name and type of each entry of b, the
// answer of getdents64 (struct linux_dirent64: inode, offset, record
// length, type, then the name, NUL-terminated and padded).
func eachDirent(b []byte, fn func(name []byte, typ byte)) error {
	const head = 19 // d_ino, d_off, d_reclen, d_type
	for len(b) > 0 {
		if len(b) < head {
			return errDirent
		}
		n := int(binary.NativeEndian.Uint16(b[16:18]))
		if n < head || n > len(b) {
			return errDirent
		}
		name := b[head:n]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if string(name) != "." && string(name) != ".." { // compared without a copy
			fn(name, b[18])
		}
		b = b[n:]
	}
	return nil
}
