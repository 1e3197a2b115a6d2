package ogg

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Reader reads the pages of an Ogg stream one at a time. It holds one
// page: the slices of the Page Next returns are valid until the next
// call.
type Reader struct {
	r    *bufio.Reader
	buf  []byte
	off  int64 // bytes read
	read int   // pages read
	// AcceptBadCRC makes Next return pages whose checksum does not match
	// without an error. Set it only for bytes whose damage does not
	// matter to the caller; voxform's own readers leave it unset.
	AcceptBadCRC bool
}

// NewReader returns a Reader reading from r (buffered unless r is a
// *bufio.Reader).
func NewReader(r io.Reader) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{r: br}
}

// Next reads the next page. It returns io.EOF when the stream ends where
// a page would start. Other errors say which page, counted from 0, and
// at which byte: a stream that does not go on with a page, a page cut
// short (ErrTruncated), a checksum that does not match (ErrDamaged: the
// page is returned too, so that what it says can still be read).
func (r *Reader) Next() (Page, error) {
	n, at := r.read, r.off
	p, err := r.next()
	if err == io.EOF {
		return Page{}, io.EOF
	}
	if err == nil {
		r.read++
		if r.AcceptBadCRC {
			return p, nil
		}
		err = p.CheckCRC()
	}
	if err != nil {
		return p, fmt.Errorf("page %d: %w, at byte %d", n, err, at)
	}
	return p, nil
}

func (r *Reader) next() (Page, error) {
	head, err := r.r.Peek(HeaderLen)
	if len(head) == 0 && errors.Is(err, io.EOF) {
		return Page{}, io.EOF
	}
	if len(head) < 5 || string(head[:4]) != "OggS" || head[4] != 0 {
		return Page{}, fmt.Errorf("not an Ogg page (starts with %q)", head[:min(len(head), 4)])
	}
	if len(head) < HeaderLen {
		return Page{}, ErrTruncated
	}
	nseg := int(head[26])
	seg, err := r.r.Peek(HeaderLen + nseg)
	if err != nil {
		return Page{}, ErrTruncated
	}
	size := HeaderLen + nseg + bodyLen(seg[HeaderLen:])
	if cap(r.buf) < size {
		r.buf = make([]byte, size, MaxPageSize)
	}
	r.buf = r.buf[:size]
	k, err := io.ReadFull(r.r, r.buf)
	r.off += int64(k)
	if err != nil {
		return Page{}, ErrTruncated
	}
	p, _ := Parse(r.buf)
	return p, nil
}
