package mp3

// scalefactors of one channel: long bands 0 to 21 and short bands 0 to
// 12 by window. The last band of each (21, 12) has no transmitted scale
// factor and stays 0. For the LSF intensity-stereo channel, illegal
// marks positions that equal their maximum (13818-3 2.4.3.2: illegal
// intensity positions code no intensity stereo).
type scalefactors struct {
	long       [22]int
	short      [13][3]int
	longMax    [22]int // LSF: (1 << slen) - 1 of each band
	shortMax   [13][3]int
	lsfIllegal bool // longMax/shortMax are set
}

// readMPEG1 reads the scale factors of MPEG-1 granule gr of channel ch;
// with scfsi set, granule 1 keeps the bands of granule 0 (sf holds them).
func readScalefactorsMPEG1(r *bitReader, sf *scalefactors, g *granule, scfsi [4]bool, gr int) {
	s1, s2 := slen[0][g.sfCompress], slen[1][g.sfCompress]
	if g.blockType == blockShort {
		sb := 0
		if g.mixed {
			for b := range 8 {
				sf.long[b] = r.read(s1)
			}
			sb = 3
		}
		for ; sb < 12; sb++ {
			n := s1
			if sb >= 6 {
				n = s2
			}
			for w := range 3 {
				sf.short[sb][w] = r.read(n)
			}
		}
		for w := range 3 {
			sf.short[12][w] = 0
		}
		return
	}
	// Long blocks: four groups of bands, each kept from granule 0 when
	// its scfsi bit says so.
	groups := [5]int{0, 6, 11, 16, 21}
	for i := range 4 {
		if gr == 1 && scfsi[i] {
			continue
		}
		n := s1
		if i >= 2 {
			n = s2
		}
		for b := groups[i]; b < groups[i+1]; b++ {
			sf.long[b] = r.read(n)
		}
	}
	sf.long[21] = 0
}

// readScalefactorsLSF reads the scale factors of an MPEG-2 or 2.5
// granule (13818-3 2.4.3.2); intensity marks the right channel of an
// intensity-stereo frame, whose scalefac_compress is coded differently.
func readScalefactorsLSF(r *bitReader, sf *scalefactors, g *granule, intensity bool) {
	var sl [4]int
	table := 0
	c := g.sfCompress
	if !intensity {
		switch {
		case c < 400:
			sl = [4]int{(c >> 4) / 5, (c >> 4) % 5, (c & 15) >> 2, c & 3}
		case c < 500:
			c -= 400
			sl = [4]int{(c >> 2) / 5, (c >> 2) % 5, c & 3, 0}
			table = 1
		default:
			c -= 500
			sl = [4]int{c / 3, c % 3, 0, 0}
			table = 2
			g.preflag = true
		}
	} else {
		g.lsfIntensity, g.lsfIntenScale = true, c&1
		c >>= 1
		switch {
		case c < 180:
			sl = [4]int{c / 36, (c % 36) / 6, (c % 36) % 6, 0}
			table = 3
		case c < 244:
			c -= 180
			sl = [4]int{(c & 63) >> 4, (c & 15) >> 2, c & 3, 0}
			table = 4
		default:
			c -= 244
			sl = [4]int{c / 3, c % 3, 0, 0}
			table = 5
		}
	}
	kind := 0
	if g.blockType == blockShort {
		kind = 1
		if g.mixed {
			kind = 2
		}
	}
	// Read the scale factors in bitstream order, then place them: long
	// bands first (all of them, or 6 in a mixed block), then short bands
	// window by window.
	var vals, maxes [39]int
	n := 0
	for i, count := range lsfBands[table][kind] {
		for range count {
			vals[n] = r.read(sl[i])
			maxes[n] = 1<<sl[i] - 1
			n++
		}
	}
	*sf = scalefactors{lsfIllegal: intensity}
	k := 0
	if kind == 0 {
		for b := 0; b < 21; b++ {
			sf.long[b], sf.longMax[b] = vals[k], maxes[k]
			k++
		}
		return
	}
	sb := 0
	if kind == 2 {
		for b := range 6 {
			sf.long[b], sf.longMax[b] = vals[k], maxes[k]
			k++
		}
		sb = 3
	}
	for ; sb < 12; sb++ {
		for w := range 3 {
			sf.short[sb][w], sf.shortMax[sb][w] = vals[k], maxes[k]
			k++
		}
	}
}
