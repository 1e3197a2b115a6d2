package mp3

import "encoding/binary"

// bitReader reads bits most significant first from buf. Reading past the
// end gives zero bits, so corrupt lengths cannot make it index out of
// range; callers compare pos with the bits they were given.
type bitReader struct {
	buf []byte
	pos int // in bits
}

// peek returns the next n bits (n <= 32) without consuming them.
func (r *bitReader) peek(n int) uint32 {
	i := r.pos >> 3
	var v uint64
	if i+8 <= len(r.buf) {
		v = binary.BigEndian.Uint64(r.buf[i:])
	} else {
		for k := range 8 {
			v <<= 8
			if i+k < len(r.buf) && i+k >= 0 {
				v |= uint64(r.buf[i+k])
			}
		}
	}
	return uint32(v << (r.pos & 7) >> (64 - n))
}

// read consumes and returns the next n bits (n <= 32).
func (r *bitReader) read(n int) int {
	if n == 0 {
		return 0
	}
	v := r.peek(n)
	r.pos += n
	return int(v)
}

func (r *bitReader) skip(n int) { r.pos += n }
