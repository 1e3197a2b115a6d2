package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// copyBuffer is the size of the chunks that blobs are copied and hashed in.
const copyBuffer = 256 << 10

// MaxEntryContent bounds the sizes the files of one entry declare, in
// all: a remote entry declaring more is not downloaded (a blob is checked
// only once it is whole, so its declared size is what bounds the disk it
// takes), and an entry larger than that is not pushed. 4 GiB is the
// largest WAV file; every other output is far smaller.
const MaxEntryContent = 4 << 30

// CheckContent refuses an entry whose files declare more than
// MaxEntryContent bytes in all, naming the limit.
func CheckContent(e *Entry) error {
	var n int64
	for _, f := range e.Files {
		if n += f.Size; f.Size < 0 || n > MaxEntryContent {
			return fmt.Errorf("entry %.64s: its files declare more than the limit of %d bytes in all", e.Fingerprint, int64(MaxEntryContent))
		}
	}
	return nil
}

// testHookCopied, when set (by tests, before any copy starts), is called
// after each chunk that copyHashing moves, with the bytes moved so far.
var testHookCopied func(n int64)

// buffers holds the copy buffers of copyHashing and GetBlob: an apply
// copies thousands of blobs, and a new buffer for each would keep the
// garbage collector busy.
var buffers = sync.Pool{New: func() any { return new([copyBuffer]byte) }}

// copyHashing copies src to dst (nil: only reads src), and returns the
// SHA-256 of what it read, in lowercase hex, and its size.
func copyHashing(dst io.Writer, src io.Reader) (sum string, n int64, err error) {
	h := sha256.New()
	b := buffers.Get().(*[copyBuffer]byte)
	defer buffers.Put(b)
	buf := b[:]
	for {
		k, rerr := src.Read(buf)
		if k > 0 {
			h.Write(buf[:k])
			if dst != nil {
				if _, err := dst.Write(buf[:k]); err != nil {
					return "", n, err
				}
			}
			n += int64(k)
			if testHookCopied != nil {
				testHookCopied(n)
			}
		}
		if rerr == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), n, nil
		}
		if rerr != nil {
			return "", n, rerr
		}
	}
}

// mismatch is the error of content that is not what f says, or nil when
// it is.
func mismatch(f File, sum string, n int64) error {
	if sum == f.SHA256 && n == f.Size {
		return nil
	}
	return fmt.Errorf("%w: content has sha256 %s and %d bytes, want %s and %d", ErrCorrupt, sum, n, f.SHA256, f.Size)
}

// storeBlob puts the content of the file src into the blob store as f,
// unless a blob of f's SHA-256 and size is there; durable syncs it and
// its directory. Its shard directory comes from dirs (nil: opened for
// it). The caller holds the shared lock.
func (l *Local) storeBlob(f File, src string, durable bool, dirs *shardDirs) error {
	if l.hasBlob(f.SHA256, f.Size) {
		return nil
	}
	in, err := openSource(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	if st.Size() != f.Size {
		return fmt.Errorf("%s: %w: %d bytes, want %d", src, ErrCorrupt, st.Size(), f.Size)
	}
	d, release, err := dirs.open(l, "blobs", f.SHA256)
	if err != nil {
		return err
	}
	defer release()
	return owned.WriteFileAt(d, f.SHA256, 0o600, durable, func(w io.Writer) error {
		sum, n, err := fill(w, in)
		if err != nil {
			return err
		}
		if err := mismatch(f, sum, n); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		return nil
	})
}

// openSource opens the file src to keep it: not through a symbolic link
// at src (voxform never makes an output one), and without the calls of
// os.Open that ready a descriptor for the poller, which an apply keeping
// thousands of outputs would pay for each.
func openSource(src string) (*os.File, error) {
	fd, err := unix.Open(src, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link, not a file voxform wrote", src)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: src, Err: err}
	}
	return os.NewFile(uintptr(fd), src), nil
}

// fill writes src into the new empty file w: a reflink where possible,
// hashed by reading the clone once, a copy otherwise, hashed as it goes.
// It returns the SHA-256 and size of what w holds.
func fill(w io.Writer, src *os.File) (sum string, n int64, err error) {
	if f, ok := w.(*os.File); ok && reflink(f, src) == nil {
		return copyHashing(nil, io.NewSectionReader(f, 0, 1<<62))
	}
	return copyHashing(w, src)
}

// CopyBlob writes the blob sha into dst, an empty file open for writing
// (and reading, for a reflink to be checked) at offset 0: a reflink where
// possible, read once to hash it, a copy otherwise, hashed as it goes. A
// blob whose content does not match sha is removed, dst truncated to 0,
// and an error wrapping ErrCorrupt returned. A missing blob is an error
// wrapping fs.ErrNotExist.
func (l *Local) CopyBlob(sha string, dst *os.File) error {
	if err := checkSHA(sha); err != nil {
		return fmt.Errorf("copy blob: %w", err)
	}
	if dst == nil {
		return fmt.Errorf("copy blob %s: no destination file", sha)
	}
	p := l.path(blobKey(sha))
	in, err := openRegular(p)
	if errors.Is(err, ErrCorrupt) {
		os.Remove(p)
	}
	if err != nil {
		return fmt.Errorf("copy blob %s: %w", sha, err)
	}
	defer in.Close()
	var sum string
	if reflink(dst, in) == nil {
		sum, _, err = copyHashing(nil, in)
	} else {
		sum, _, err = copyHashing(dst, in)
	}
	if err != nil {
		return fmt.Errorf("copy blob %s: %w", sha, err)
	}
	if sum != sha {
		os.Remove(p)
		dst.Truncate(0)
		dst.Seek(0, io.SeekStart)
		return fmt.Errorf("copy blob %s: %w: content has sha256 %s (blob removed)", sha, ErrCorrupt, sum)
	}
	return nil
}
