package mp3

import "math"

// Intensity stereo ratios: for MPEG-1, position p gives the left channel
// tan(p*pi/12)/(1+tan(p*pi/12)) of the coded value and the right
// 1/(1+tan(p*pi/12)) (11172-3 2.4.3.4.9.3); for LSF, io^((p+1)/2) goes to
// the left channel if p is odd, io^(p/2) to the right if even, with io
// 2^-1/4 or 2^-1/2 by intensity_scale (13818-3 2.4.3.2).
var (
	isRatio [7][2]float32
	lsfIS   [2][16][2]float32
)

func init() {
	for p := range 7 {
		if p == 6 {
			isRatio[p] = [2]float32{1, 0}
			continue
		}
		t := math.Tan(float64(p) * math.Pi / 12)
		isRatio[p] = [2]float32{float32(t / (1 + t)), float32(1 / (1 + t))}
	}
	for s, io := range [2]float64{math.Pow(2, -0.25), math.Sqrt(0.5)} {
		for p := range 16 {
			l, r := 1.0, 1.0
			if p%2 == 1 {
				l = math.Pow(io, float64(p+1)/2)
			} else {
				r = math.Pow(io, float64(p)/2)
			}
			lsfIS[s][p] = [2]float32{float32(l), float32(r)}
		}
	}
}

// stereo undoes joint stereo coding of one granule in place: MS stereo
// and intensity stereo by the frame's mode extension. nz are the lines
// up to the last non-zero one of each channel. g and sf are the right
// channel's side information and scale factors.
func stereo(xr *[2][576]float32, nz [2]int, h Header, g *granule, sf *scalefactors, bt *bandTable) {
	ms := h.ModeExt&2 != 0
	if h.ModeExt&1 == 0 {
		if ms {
			midSide(xr, 0, max(nz[0], nz[1]))
		}
		return
	}
	// Intensity stereo: bands above the last non-zero line of the right
	// channel take both channels from the left one.
	lsf := h.Version != 1
	apply := func(lo, hi, pos, maxPos int) {
		if hi <= lo {
			return
		}
		var k [2]float32
		switch {
		case !lsf && pos < 7:
			k = isRatio[pos]
		case lsf && !(sf.lsfIllegal && pos == maxPos):
			k = lsfIS[g.lsfIntenScale][pos&15]
		default: // an illegal position: no intensity stereo here
			if ms {
				midSide(xr, lo, hi)
			}
			return
		}
		for i := lo; i < hi; i++ {
			v := xr[0][i]
			xr[0][i], xr[1][i] = v*k[0], v*k[1]
		}
	}
	below := func(lo, hi int) {
		if ms && hi > lo {
			midSide(xr, lo, hi)
		}
	}
	right := &xr[1]
	nonZero := func(lo, hi int) bool {
		for i := lo; i < hi; i++ {
			if right[i] != 0 {
				return true
			}
		}
		return false
	}
	longEnd := 22 // long bands coded as such
	if g.blockType == blockShort {
		longEnd = 0
		if g.mixed {
			longEnd = 8
			if lsf {
				longEnd = 6
			}
		}
		shortFrom := 0
		if g.mixed {
			shortFrom = 3
		}
		found := false
		for w := range 3 {
			// Scan this window's bands from the top for the last non-zero one.
			top := shortFrom - 1
			for b := 12; b >= shortFrom; b-- {
				width := bt.short[b+1] - bt.short[b]
				lo := 3*bt.short[b] + w*width
				if nonZero(lo, lo+width) {
					top = b
					break
				}
			}
			found = found || top >= shortFrom
			for b := shortFrom; b <= 12; b++ {
				width := bt.short[b+1] - bt.short[b]
				lo := 3*bt.short[b] + w*width
				if b <= top {
					below(lo, lo+width)
					continue
				}
				s := min(b, 11) // band 12 takes band 11's position
				apply(lo, lo+width, sf.short[s][w], sf.shortMax[s][w])
			}
		}
		if found { // the long bands of a mixed block lie below
			below(0, bt.long[longEnd])
			return
		}
	}
	top := -1
	for b := longEnd - 1; b >= 0; b-- {
		if nonZero(bt.long[b], bt.long[b+1]) {
			top = b
			break
		}
	}
	for b := range longEnd {
		lo, hi := bt.long[b], bt.long[b+1]
		if b <= top {
			below(lo, hi)
			continue
		}
		s := min(b, 20) // band 21 takes band 20's position
		apply(lo, hi, sf.long[s], sf.longMax[s])
	}
}

// midSide turns mid and side lines lo to hi into left and right.
func midSide(xr *[2][576]float32, lo, hi int) {
	const r = math.Sqrt2 / 2
	for i := lo; i < hi; i++ {
		m, s := xr[0][i], xr[1][i]
		xr[0][i], xr[1][i] = (m+s)*r, (m-s)*r
	}
}
