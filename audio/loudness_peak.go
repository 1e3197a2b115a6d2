package audio

import (
	"math"
	"sync"
)

// True peak follows BS.1770-4 Annex 2: oversample, then take the largest
// magnitude. The Annex oversamples 48 kHz audio 4 times (192 kHz); here
// every rate is oversampled by ceil(192000/rate), so that 8 kHz audio is
// read at 192 kHz too and inter-sample peaks are caught as finely at every
// rate. ffmpeg's ebur128 filter likewise resamples to 192 kHz.
//
// The interpolator is a Kaiser-windowed sinc with zeros at the input
// samples (the cut-off is the input Nyquist frequency), peakTaps input
// samples long, the design swresample uses when upsampling, which
// ffmpeg's filter relies on. Its zeros make phase 0 the input itself, so
// the true peak is never below the sample peak.
const (
	peakTaps  = 32 // input samples per interpolated value, even
	peakBeta  = 9.0
	peakRate  = 192000
	peakBlock = 64 // windows checked against the skip bound at once
	peakOuter = 8  // taps at each end of a window bounded together (see scan)
)

// Only instants whose whole window lies within the audio are
// interpolated; within reach samples of either end (2 ms at 8 kHz, 0.3 ms
// at 48 kHz) only the samples themselves count. Extending the audio past
// its ends instead invents signal: zeros turn a DC offset (A-law's +8
// silence) into a step that rings, and a mirror (swresample's start)
// turns a tone cut mid-slope into a cusp that reads up to 0.5 dB high at
// 8 kHz. A file's ends are cuts, not signal.

// truePeak tracks the largest oversampled magnitude of one channel.
type truePeak struct {
	*peakFilter
	buf []float64 // the last peakTaps-1 samples, then the piece being measured
	max float64
}

// peakFilter is the interpolator of one oversampling factor, shared by
// every meter of a rate (read only once made).
type peakFilter struct {
	l     int       // oversampling factor
	coefs []float64 // phases 1..l-1, peakTaps each
	bound float64   // the largest sum of |coefficients| of any phase
	hmax  []float64 // per tap, the largest |coefficient| of any phase
	gmax  float64   // the largest |sum of coefficients| (DC gain) of any phase
	outer float64   // the sum of hmax over the peakOuter taps at each end
}

// peakFilters holds the filters made so far, by oversampling factor: a
// meter per output of an apply would otherwise design its filter anew.
var peakFilters sync.Map

func newTruePeak(rate int) *truePeak {
	l := (peakRate + rate - 1) / rate
	f, ok := peakFilters.Load(l)
	if !ok {
		f, _ = peakFilters.LoadOrStore(l, newPeakFilter(l))
	}
	return &truePeak{peakFilter: f.(*peakFilter), buf: make([]float64, 0, peakTaps-1+maxPiece)}
}

func newPeakFilter(l int) *peakFilter {
	p := &peakFilter{l: l}
	if l == 1 {
		return p
	}
	i0b := besselI0(peakBeta)
	half := float64(peakTaps / 2)
	p.coefs = make([]float64, (l-1)*peakTaps)
	p.hmax = make([]float64, peakTaps)
	for ph := 1; ph < l; ph++ {
		h := p.coefs[(ph-1)*peakTaps : ph*peakTaps]
		sum, dc := 0.0, 0.0
		for k := range h {
			// Distance from input sample k of the window to the output
			// instant, which lies ph/l past sample peakTaps/2-1.
			d := half - 1 + float64(ph)/float64(l) - float64(k)
			r := d / half
			w := besselI0(peakBeta*math.Sqrt(max(0, 1-r*r))) / i0b
			h[k] = math.Sin(math.Pi*d) / (math.Pi * d) * w
			sum += math.Abs(h[k])
			dc += h[k]
			p.hmax[k] = max(p.hmax[k], math.Abs(h[k]))
		}
		p.bound = max(p.bound, sum)
		p.gmax = max(p.gmax, math.Abs(dc))
	}
	for k := range peakOuter {
		p.outer += p.hmax[k] + p.hmax[peakTaps-1-k]
	}
	return p
}

// reach is how many samples at each end of the audio are not
// interpolated: a window reaches that far before the first instant it
// interpolates and after the last.
const reach = peakTaps/2 - 1

// write measures the next samples of the channel.
func (p *truePeak) write(x []float64) {
	p.max = absMax(x, p.max)
	if p.l == 1 {
		return
	}
	p.buf = append(p.buf, x...)
	n := len(p.buf) - (peakTaps - 1)
	if n <= 0 {
		return
	}
	p.max = p.scan(n)
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
}

// scan interpolates the n windows of buf (len(buf) == n+peakTaps-1) and
// returns the largest magnitude found, at least p.max. It skips what
// cannot beat that, without changing the result:
//
//   - runs of windows whose samples are all too small: no interpolated
//     value exceeds the largest magnitude in its window times bound;
//   - single windows whose value c midway between the two samples every
//     phase lies between bounds every phase: with each sample written
//     c + d_k, a phase's value is c times its DC gain plus the sum of
//     h_k d_k, so it is at most |c| gmax + sum hmax_k |d_k|, where the
//     peakOuter taps at each end (coefficients under 0.011) are bounded
//     together by outer times the run's largest magnitude plus |c|.
//     Speech varies slowly against the sample rate, so the d_k are small
//     where the coefficients are large and the bound is close to the
//     value: in the emulator's speech at 24 kHz one window in 13 is
//     interpolated, and the bound costs half a phase.
func (p *truePeak) scan(n int) float64 {
	buf, l, coefs, peak := p.buf, p.l, p.coefs, p.max
	hm := (*[peakTaps]float64)(p.hmax)
	for j0 := 0; j0 < n; j0 += peakBlock {
		j1 := min(j0+peakBlock, n)
		a := absMax(buf[j0:j1+peakTaps-1], 0)
		if a*p.bound <= peak {
			continue
		}
		for j := j0; j < j1; j++ {
			w := (*[peakTaps]float64)(buf[j : j+peakTaps])
			c := (w[peakTaps/2-1] + w[peakTaps/2]) / 2
			ac := math.Abs(c)
			// The outer taps, whose coefficients are tiny, are bounded
			// together: each |d_k| is at most a + |c|.
			var b0, b1, b2, b3 float64
			for k := peakOuter; k < peakTaps-peakOuter; k += 4 {
				b0 += hm[k] * math.Abs(w[k]-c)
				b1 += hm[k+1] * math.Abs(w[k+1]-c)
				b2 += hm[k+2] * math.Abs(w[k+2]-c)
				b3 += hm[k+3] * math.Abs(w[k+3]-c)
			}
			// The margin covers the rounding of the sums.
			if (ac*p.gmax+(b0+b1)+(b2+b3)+p.outer*(a+ac))*(1+1e-9) <= peak {
				continue
			}
			for ph := 0; ph < l-1; ph++ {
				h := (*[peakTaps]float64)(coefs[ph*peakTaps : (ph+1)*peakTaps])
				var y0, y1, y2, y3 float64
				for k := 0; k < peakTaps; k += 4 {
					y0 += w[k] * h[k]
					y1 += w[k+1] * h[k+1]
					y2 += w[k+2] * h[k+2]
					y3 += w[k+3] * h[k+3]
				}
				if y := math.Abs((y0 + y1) + (y2 + y3)); y > peak {
					peak = y
				}
			}
		}
	}
	return peak
}

// absMax returns the largest magnitude in x, at least m. The samples are
// finite (the meter writes non-finite ones as 0), so a plain comparison
// does what the max builtin does, without its NaN and signed-zero cases,
// which cost more than the rest of the loop.
func absMax(x []float64, m float64) float64 {
	for _, v := range x {
		if a := math.Abs(v); a > m {
			m = a
		}
	}
	return m
}

// peak returns the true peak (linear) of everything written so far.
func (p *truePeak) peak() float64 { return p.max }
