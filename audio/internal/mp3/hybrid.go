package mp3

import "math"

// reorder puts the short-block lines of xr (from short band from on)
// into the order the IMDCT reads them: in each subband, the six lines of
// each of the three windows interleaved, window fastest (11172-3
// 2.4.3.4.8).
func reorder(xr *[576]float32, bt *bandTable, from int) {
	var tmp [576]float32
	start := 3 * bt.short[from]
	for b := from; b < 13; b++ {
		lo, width := 3*bt.short[b], bt.short[b+1]-bt.short[b]
		for w := range 3 {
			for k := range width {
				tmp[lo+3*k+w] = xr[lo+w*width+k]
			}
		}
	}
	copy(xr[start:], tmp[start:])
}

var aliasCS, aliasCA [8]float32

func init() {
	for i, c := range aliasCoef {
		d := math.Sqrt(1 + c*c)
		aliasCS[i], aliasCA[i] = float32(1/d), float32(c/d)
	}
}

// aliasReduce applies the alias-reduction butterflies between subbands
// 0 to limit (11172-3 2.4.3.4.10).
func aliasReduce(xr *[576]float32, limit int) {
	for sb := 1; sb < limit; sb++ {
		for i := range 8 {
			lo, hi := 18*sb-1-i, 18*sb+i
			a, b := xr[lo], xr[hi]
			xr[lo] = a*aliasCS[i] - b*aliasCA[i]
			xr[hi] = b*aliasCS[i] + a*aliasCA[i]
		}
	}
}

var (
	// imdctLong[n][k] = cos(pi/18 (n+1/2)(k+1/2)): the DCT-IV of 18
	// points that a 36-point IMDCT reduces to; imdctShort likewise for 6.
	imdctLong  [18][18]float32
	imdctShort [6][6]float32
	// windows of the four block types (11172-3 2.4.3.4.10.2), short: the
	// 12-point window of one short block.
	windows  [4][36]float32
	shortWin [12]float32
)

func init() {
	for n := range 18 {
		for k := range 18 {
			imdctLong[n][k] = float32(math.Cos(math.Pi / 18 * (float64(n) + 0.5) * (float64(k) + 0.5)))
		}
	}
	for n := range 6 {
		for k := range 6 {
			imdctShort[n][k] = float32(math.Cos(math.Pi / 6 * (float64(n) + 0.5) * (float64(k) + 0.5)))
		}
	}
	sin := func(i, n int) float32 { return float32(math.Sin(math.Pi / float64(n) * (float64(i) + 0.5))) }
	for i := range 36 {
		windows[blockLong][i] = sin(i, 36)
	}
	for i := range 18 {
		windows[blockStart][i] = sin(i, 36)
		windows[blockStop][18+i] = sin(18+i, 36)
	}
	for i := range 6 {
		windows[blockStart][18+i] = 1
		windows[blockStart][24+i] = sin(6+i, 12)
		windows[blockStop][6+i] = sin(i, 12)
		windows[blockStop][12+i] = 1
	}
	for i := range 12 {
		shortWin[i] = sin(i, 12)
	}
}

// imdctLongBlock transforms the 18 lines in to 36 windowed samples:
// y[i] = sum_k in[k] cos(pi/72 (2i+1+18)(2k+1)) = z(i+9), z the DCT-IV of
// in, extended by z(35-n) = -z(n) and z(n+36) = -z(n).
func imdctLongBlock(in []float32, win *[36]float32, out *[36]float32) {
	var z [18]float32
	for n := range 18 {
		c := &imdctLong[n]
		var s float32
		for k, v := range in[:18] {
			s += v * c[k]
		}
		z[n] = s
	}
	for i := range 9 {
		out[i] = z[i+9] * win[i]
	}
	for i := 9; i < 27; i++ {
		out[i] = -z[26-i] * win[i]
	}
	for i := 27; i < 36; i++ {
		out[i] = -z[i-27] * win[i]
	}
}

// imdctShortBlocks transforms the three interleaved short blocks of in
// and overlaps them into 36 samples (11172-3 2.4.3.4.10.2).
func imdctShortBlocks(in []float32, out *[36]float32) {
	*out = [36]float32{}
	for w := range 3 {
		var z [6]float32
		for n := range 6 {
			var s float32
			for k := range 6 {
				s += in[3*k+w] * imdctShort[n][k]
			}
			z[n] = s
		}
		var y [12]float32
		for i := range 3 {
			y[i] = z[i+3]
		}
		for i := 3; i < 9; i++ {
			y[i] = -z[8-i]
		}
		for i := 9; i < 12; i++ {
			y[i] = -z[i-9]
		}
		for i := range 12 {
			out[6+6*w+i] += y[i] * shortWin[i]
		}
	}
}

// hybrid runs the IMDCT of every subband of xr below limit, overlaps it
// with the previous granule's tail in prev, and inverts the frequency of
// odd subbands; subbands from limit on have no input and only release
// their tail. xr ends holding the 18 time samples of each subband.
func hybrid(xr *[576]float32, prev *[32][18]float32, g *granule, limit int) {
	var y [36]float32
	for sb := range 32 {
		x := xr[18*sb : 18*sb+18]
		p := &prev[sb]
		if sb >= limit {
			copy(x, p[:])
			*p = [18]float32{}
		} else {
			bt := g.blockType
			if g.mixed && sb < 2 {
				bt = blockLong
			}
			if bt == blockShort {
				imdctShortBlocks(x, &y)
			} else {
				imdctLongBlock(x, &windows[bt], &y)
			}
			for i := range 18 {
				x[i] = y[i] + p[i]
				p[i] = y[18+i]
			}
		}
		if sb&1 == 1 {
			for i := 1; i < 18; i += 2 {
				x[i] = -x[i]
			}
		}
	}
}
