package mp3

import "fmt"

// codeTable is a Huffman code table as the standard prints it: the code
// of each value (indexed as the table's comment says) and its length.
type codeTable struct {
	size  int
	codes []uint16
	lens  []uint8
}

// A decodeTable decodes a code table by lookup: the first rootBits bits
// index the root; an entry either holds a value and its code length or
// points at a subtable indexed by the next bits.
type decodeTable []uint32

const (
	rootBits  = 8
	entrySub  = 1 << 31 // a subtable: offset<<8 | bits
	lenMask   = 0xFF
	valueShft = 8
)

// newDecodeTable builds the lookup table of t; value i is returned for
// the code at index i. It fails if the codes are not prefix-free.
func newDecodeTable(t *codeTable) (decodeTable, error) {
	type code struct {
		bits uint32
		len  int
		val  int
	}
	var codes []code
	for i, l := range t.lens {
		if l > 0 {
			codes = append(codes, code{uint32(t.codes[i]), int(l), i})
		}
	}
	d := make(decodeTable, 1<<rootBits)
	// Subtable sizes: the longest code under each root prefix.
	sub := make([]int, 1<<rootBits)
	for _, c := range codes {
		if c.len > rootBits {
			p := c.bits >> (c.len - rootBits)
			sub[p] = max(sub[p], c.len-rootBits)
		}
	}
	for p, n := range sub {
		if n > 0 {
			d[p] = entrySub | uint32(len(d))<<valueShft | uint32(n)
			d = append(d, make([]uint32, 1<<n)...)
		}
	}
	for _, c := range codes {
		if c.len <= rootBits {
			lo := c.bits << (rootBits - c.len)
			for k := uint32(0); k < 1<<(rootBits-c.len); k++ {
				if d[lo+k] != 0 {
					return nil, fmt.Errorf("code %0*b is not prefix-free", c.len, c.bits)
				}
				d[lo+k] = uint32(c.val)<<valueShft | uint32(c.len)
			}
			continue
		}
		e := d[c.bits>>(c.len-rootBits)]
		off, n := int(e>>valueShft&0x7FFFFF), int(e&lenMask)
		rest := c.len - rootBits
		lo := off + int(c.bits&(1<<rest-1))<<(n-rest)
		for k := 0; k < 1<<(n-rest); k++ {
			if d[lo+k] != 0 {
				return nil, fmt.Errorf("code %0*b is not prefix-free", c.len, c.bits)
			}
			d[lo+k] = uint32(c.val)<<valueShft | uint32(rest)
		}
	}
	return d, nil
}

// decode reads one code from r and returns its value. A bit pattern that
// is no code (impossible for the complete tables of the standard) reads
// as value 0 of length rootBits.
func (d decodeTable) decode(r *bitReader) int {
	e := d[r.peek(rootBits)]
	if e&entrySub != 0 {
		r.skip(rootBits)
		off, n := int(e>>valueShft&0x7FFFFF), int(e&lenMask)
		e = d[off+int(r.peek(n))]
	}
	n := int(e & lenMask)
	if n == 0 {
		n = rootBits
	}
	r.skip(n)
	return int(e >> valueShft)
}

// bigTable is a big-values table: its decode table (nil for table 0,
// whose values are all 0), the size of its rows and its linbits.
type bigTable struct {
	dec     decodeTable
	size    int
	linbits int
}

var (
	bigTables    [32]bigTable
	count1Tables [2]decodeTable
)

func init() {
	pairs := [32]*codeTable{
		1: &code1, 2: &code2, 3: &code3, 5: &code5, 6: &code6, 7: &code7, 8: &code8, 9: &code9,
		10: &code10, 11: &code11, 12: &code12, 13: &code13, 15: &code15,
	}
	for i := 16; i < 32; i++ {
		pairs[i] = &code16
		if i >= 24 {
			pairs[i] = &code24
		}
	}
	built := map[*codeTable]decodeTable{}
	for i, t := range pairs {
		if t == nil { // 0, and 4 and 14, which the standard leaves unused
			continue
		}
		if built[t] == nil {
			built[t] = mustDecodeTable(t)
		}
		bigTables[i] = bigTable{dec: built[t], size: t.size, linbits: linbits[i]}
	}
	count1Tables[0] = mustDecodeTable(&count1A)
	count1Tables[1] = mustDecodeTable(&count1B)
}

func mustDecodeTable(t *codeTable) decodeTable {
	d, err := newDecodeTable(t)
	if err != nil {
		panic("mp3: Huffman table: " + err.Error())
	}
	return d
}
