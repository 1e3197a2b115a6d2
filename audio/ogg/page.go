package ogg

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Page header layout and flags (RFC 3533 section 6).
const (
	HeaderLen   = 27                        // the fixed header, before the segment table
	MaxPageSize = HeaderLen + 255 + 255*255 // 65307 bytes
	NoGranule   = -1                        // the granule position of a page on which no packet ends
	Continued   = 0x01                      // the page starts with a packet continued from the previous one
	BOS         = 0x02                      // the first page of a logical stream
	EOS         = 0x04                      // the last page of a logical stream
)

// ErrTruncated is matched by the error of a page cut short by the end of
// the stream.
var ErrTruncated = errors.New("truncated Ogg page")

// ErrDamaged is matched by the error of a page whose checksum does not
// match its bytes.
var ErrDamaged = errors.New("the page is damaged")

// Page is one Ogg page. Segments and Body alias the bytes the page was
// read from (see Reader.Next and Parse).
type Page struct {
	Flags    byte
	Granule  int64
	Serial   uint32
	Seq      uint32
	CRC      uint32 // the checksum the page carries
	Segments []byte // the segment table: lacing values, a packet ends at each one under 255
	Body     []byte
}

// Size is the length of the page in bytes.
func (p *Page) Size() int { return HeaderLen + len(p.Segments) + len(p.Body) }

// Parse parses the page at the start of b; ok is false when b does not
// start with a page (capture pattern "OggS", version 0) or ends within
// it. The checksum is not checked (see CheckCRC).
func Parse(b []byte) (p Page, ok bool) {
	if len(b) < HeaderLen || string(b[:4]) != "OggS" || b[4] != 0 {
		return Page{}, false
	}
	nseg := int(b[26])
	if len(b) < HeaderLen+nseg {
		return Page{}, false
	}
	p = header(b)
	p.Segments = b[HeaderLen : HeaderLen+nseg]
	size := HeaderLen + nseg + bodyLen(p.Segments)
	if len(b) < size {
		return Page{}, false
	}
	p.Body = b[HeaderLen+nseg : size]
	return p, true
}

// header reads the fixed fields of the header in b.
func header(b []byte) Page {
	le := binary.LittleEndian
	return Page{
		Flags:   b[5],
		Granule: int64(le.Uint64(b[6:14])),
		Serial:  le.Uint32(b[14:18]),
		Seq:     le.Uint32(b[18:22]),
		CRC:     le.Uint32(b[22:26]),
	}
}

func bodyLen(segments []byte) int {
	n := 0
	for _, s := range segments {
		n += int(s)
	}
	return n
}

// CheckCRC checks the checksum the page carries against its bytes.
func (p *Page) CheckCRC() error {
	if got := p.crc(); got != p.CRC {
		return fmt.Errorf("Ogg page CRC %08x, the page says %08x: %w", got, p.CRC, ErrDamaged)
	}
	return nil
}

// crc is the checksum of the page: of its bytes with the CRC field zero.
func (p *Page) crc() uint32 {
	var h [HeaderLen]byte
	putHeader(h[:], p, 0)
	c := update(0, h[:])
	c = update(c, p.Segments)
	return update(c, p.Body)
}

// putHeader writes the fixed header of p, with checksum crc, into h.
func putHeader(h []byte, p *Page, crc uint32) {
	le := binary.LittleEndian
	copy(h, "OggS\x00")
	h[5] = p.Flags
	le.PutUint64(h[6:14], uint64(p.Granule))
	le.PutUint32(h[14:18], p.Serial)
	le.PutUint32(h[18:22], p.Seq)
	le.PutUint32(h[22:26], crc)
	h[26] = byte(len(p.Segments))
}

// Append appends p to dst as a page with its checksum computed (p.CRC is
// not used) and returns the extended slice. p must have at most 255
// segments whose lacing values add up to the length of its body.
func Append(dst []byte, p *Page) []byte {
	at := len(dst)
	dst = append(dst, make([]byte, HeaderLen)...)
	putHeader(dst[at:], p, p.crc())
	dst = append(dst, p.Segments...)
	return append(dst, p.Body...)
}

// crcTable is the table of the Ogg CRC-32: polynomial 0x04C11DB7, most
// significant bit first, no reflection, initial value 0, no final XOR
// (RFC 3533 section 6).
var crcTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04C11DB7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// CRC is the checksum of a page whose CRC field is zero.
func CRC(b []byte) uint32 { return update(0, b) }

func update(crc uint32, b []byte) uint32 {
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>24)^c]
	}
	return crc
}
