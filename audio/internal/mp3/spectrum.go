package mp3

import "math"

// pow43 holds i^(4/3) for every value Huffman decoding can give
// (15 + 2^13 - 1 with 13 linbits).
var pow43 [15 + 1<<13]float32

func init() {
	for i := range pow43 {
		pow43[i] = float32(math.Pow(float64(i), 4.0/3))
	}
}

// readHuffman decodes the Huffman data of granule g from r, which must
// end at bit end, into ix, and returns the number of lines up to the
// last one decoded (the rest are zero).
func readHuffman(r *bitReader, end int, g *granule, ix *[576]int32) int {
	bigEnd := min(2*g.bigValues, 576)
	i := 0
	for region := range 3 {
		stop := bigEnd
		switch region {
		case 0:
			stop = min(g.region1Start, bigEnd)
		case 1:
			stop = min(g.region2Start, bigEnd)
		}
		t := &bigTables[g.tableSelect[region]]
		if t.dec == nil {
			for ; i < stop; i++ {
				ix[i] = 0
			}
			continue
		}
		for ; i < stop; i += 2 {
			v := t.dec.decode(r)
			x, y := int32(v/t.size), int32(v%t.size)
			if t.linbits > 0 && x == 15 {
				x += int32(r.read(t.linbits))
			}
			if x != 0 && r.read(1) == 1 {
				x = -x
			}
			if t.linbits > 0 && y == 15 {
				y += int32(r.read(t.linbits))
			}
			if y != 0 && r.read(1) == 1 {
				y = -y
			}
			ix[i], ix[i+1] = x, y
		}
	}
	// The count1 region: quadruples of -1, 0 or 1 until the granule's
	// bits run out. A quadruple that reads past the end is dropped
	// (11172-3 2.4.3.4: the bits belong to no value).
	q := count1Tables[g.count1Table]
	for i+4 <= 576 && r.pos < end {
		v := q.decode(r)
		var vals [4]int32
		for k := range 4 {
			if v&(8>>k) != 0 {
				vals[k] = 1
				if r.read(1) == 1 {
					vals[k] = -1
				}
			}
		}
		if r.pos > end {
			break
		}
		ix[i], ix[i+1], ix[i+2], ix[i+3] = vals[0], vals[1], vals[2], vals[3]
		i += 4
	}
	n := i
	for ; i < 576; i++ {
		ix[i] = 0
	}
	return n
}

// requantize turns the Huffman values ix of granule g (n lines, the rest
// zero) into spectral values xr (11172-3 2.4.3.4.7.1).
func requantize(xr *[576]float32, ix *[576]int32, n int, g *granule, sf *scalefactors, bt *bandTable, lsf bool) {
	mult := 2 * (1 + g.sfScale) // scale factor step in quarter powers of 2
	base := g.globalGain - 210
	line := func(i int, gain float32) {
		v := ix[i]
		switch {
		case v > 0:
			xr[i] = pow43[v] * gain
		case v < 0:
			xr[i] = -pow43[-v] * gain
		default:
			xr[i] = 0
		}
	}
	i := 0
	longBands, shortFrom := 22, 0
	if g.blockType == blockShort {
		longBands = 0
		if g.mixed {
			longBands, shortFrom = 8, 3
			if lsf {
				longBands = 6
			}
		}
	}
	for b := 0; b < longBands && i < n; b++ {
		s := sf.long[b]
		if g.preflag {
			s += pretab[b]
		}
		gain := float32(math.Exp2(float64(base-mult*s) / 4))
		for end := min(bt.long[b+1], n); i < end; i++ {
			line(i, gain)
		}
	}
	if g.blockType == blockShort {
		for b := shortFrom; b < 13 && i < n; b++ {
			width := bt.short[b+1] - bt.short[b]
			for w := range 3 {
				q := base - 8*g.subblockGain[w] - mult*sf.short[b][w]
				gain := float32(math.Exp2(float64(q) / 4))
				for end := min(i+width, n); i < end; i++ {
					line(i, gain)
				}
			}
		}
	}
	for ; i < 576; i++ {
		xr[i] = 0
	}
}
