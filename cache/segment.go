package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
)

// segmentCheck checks an index segment as its bytes go by (Write), so
// that a download is refused as it streams and what is read from disk is
// checked by the same rules: the line indexMagic, the line "complete" or
// "partial", fingerprints of 32 bytes each in strictly ascending order,
// at most maxIndexSize bytes in all, and (at done) a SHA-256 equal to its
// name. It holds one fingerprint and the first line at most, whatever it
// is given. visit (nil: none) sees each fingerprint as it is read; what
// it saw counts only if done returns no error. Every error wraps
// ErrCorrupt, names the segment and, for the size, the limit.
type segmentCheck struct {
	name     string
	visit    func(rec *[32]byte)
	h        hash.Hash
	n        int64
	head     []byte // the first two lines, until read
	headDone bool
	complete bool
	rec      [32]byte
	fill     int // bytes of rec read
	prev     [32]byte
	count    int
	err      error // sticky
}

// newSegmentCheck starts the check of the segment name.
func newSegmentCheck(name string, visit func(rec *[32]byte)) *segmentCheck {
	return &segmentCheck{name: name, visit: visit, h: sha256.New(),
		head: make([]byte, 0, len(indexMagic)+len(lineComplete))}
}

// bad makes the error why of the segment, sticky.
func (s *segmentCheck) bad(why string) error {
	s.err = fmt.Errorf("%w: index segment %.64s: %s", ErrCorrupt, s.name, why)
	return s.err
}

func (s *segmentCheck) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.n+int64(len(p)) > maxIndexSize {
		return 0, s.bad(fmt.Sprintf("larger than the limit of %d bytes", maxIndexSize))
	}
	s.n += int64(len(p))
	s.h.Write(p)
	n := len(p)
	if !s.headDone {
		if p = s.readHead(p); s.err != nil {
			return 0, s.err
		}
	}
	for len(p) > 0 {
		k := copy(s.rec[s.fill:], p)
		s.fill, p = s.fill+k, p[k:]
		if s.fill < len(s.rec) {
			break
		}
		s.fill = 0
		if s.count > 0 && bytes.Compare(s.prev[:], s.rec[:]) >= 0 {
			return 0, s.bad("fingerprints out of order")
		}
		s.prev = s.rec
		s.count++
		if s.visit != nil {
			s.visit(&s.rec)
		}
	}
	return n, nil
}

// readHead takes the first two lines from p and returns the rest.
func (s *segmentCheck) readHead(p []byte) []byte {
	for len(p) > 0 && !s.headDone {
		c := p[0]
		p = p[1:]
		s.head = append(s.head, c)
		switch n := len(s.head); {
		case n < len(indexMagic):
		case n == len(indexMagic):
			if string(s.head) != indexMagic {
				s.bad("not an index segment of this version")
				return nil
			}
		case c == '\n':
			switch mark := s.head[len(indexMagic):]; {
			case bytes.Equal(mark, lineComplete):
				s.complete = true
			case !bytes.Equal(mark, linePartial):
				s.bad("no complete or partial line")
				return nil
			}
			s.headDone = true
		case n >= len(indexMagic)+len(lineComplete):
			s.bad("no complete or partial line")
			return nil
		}
	}
	return p
}

// done ends the check: the segment's mark, or why it does not check.
func (s *segmentCheck) done() (complete bool, err error) {
	switch {
	case s.err != nil:
		return false, s.err
	case len(s.head) < len(indexMagic):
		return false, s.bad("not an index segment of this version")
	case !s.headDone:
		return false, s.bad("no complete or partial line")
	case s.fill != 0:
		return false, s.bad("a fingerprint cut short")
	case hex.EncodeToString(s.h.Sum(nil)) != s.name:
		return false, s.bad("content does not match its name")
	}
	return s.complete, nil
}
