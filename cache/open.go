package cache

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// OpenBlob opens the blob sha of size bytes for reading, as a stream: the
// reader checks the SHA-256 and size as it goes and, instead of the last
// bytes, returns an error wrapping ErrCorrupt when they do not match (the
// blob is then removed on Close). A missing blob is an error wrapping
// fs.ErrNotExist. Nothing is held in memory but a read buffer, however
// large the blob.
func (l *Local) OpenBlob(sha string, size int64) (io.ReadCloser, error) {
	if err := checkSHA(sha); err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	p := l.path(blobKey(sha))
	f, err := openRegular(p)
	if errors.Is(err, ErrCorrupt) {
		os.Remove(p)
	}
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", sha, err)
	}
	return &blobReader{f: f, v: newVerifier(f, sha, size), path: p}, nil
}

// blobReader is a verified stream of one blob.
type blobReader struct {
	f    *os.File
	v    *verifier
	path string
}

func (b *blobReader) Read(p []byte) (int, error) { return b.v.Read(p) }

// Close closes the blob, removing it when its content proved corrupt.
func (b *blobReader) Close() error {
	err := b.f.Close()
	if b.v.err != nil && errors.Is(b.v.err, ErrCorrupt) {
		os.Remove(b.path)
	}
	return err
}
