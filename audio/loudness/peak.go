package loudness

import (
	"math"
	"sync"

	"github.com/voxform/voxform/audio/internal/kaiser"
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
	peakInner = peakTaps - 2*peakOuter
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
	// computed counts the phases of windows computed (see scan).
	computed int64
}

// peakFilter is the interpolator of one oversampling factor, shared by
// every meter of a rate (read only once made).
type peakFilter struct {
	l     int       // oversampling factor
	coefs []float64 // phases 1..l-1, peakTaps each
	bound float64   // the largest sum of |coefficients| of any phase
	// spans halve the phases between a window's two middle samples, as a
	// binary tree in an array: spans[0] is phases 0..l (the samples
	// themselves) and spans[2i+1] and spans[2i+2] are the halves of
	// spans[i], down to spans with one phase inside.
	spans []peakSpan
}

// peakSpan bounds the phases strictly between two, from and to, whose
// values are known: phases 0 and l are the window's middle samples,
// others are computed. A phase's coefficients are those of the straight
// line between from and to plus a residual, so its value is the line's,
// at most the larger of the two known values, plus the residual's, at
// most |c| smax + sum emax_k |w_k - c| for any c (c times the residual's
// DC gain plus the residual applied to the w_k - c). The residual is
// small where the window's weights are large, and halving a span divides
// it by about four, so the bound closes in on the value.
type peakSpan struct {
	from, to int
	emax     [peakInner]float64 // per inner tap, the largest |residual coefficient| of any phase inside
	smax     float64            // the largest |residual DC gain| of any phase inside
	outer    float64            // the largest |residual coefficients| of the peakOuter taps at each end, summed
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
	return &truePeak{peakFilter: f.(*peakFilter), buf: getFloats()}
}

func newPeakFilter(l int) *peakFilter {
	p := &peakFilter{l: l}
	if l == 1 {
		return p
	}
	i0b := kaiser.BesselI0(peakBeta)
	half := float64(peakTaps / 2)
	p.coefs = make([]float64, (l-1)*peakTaps)
	for ph := 1; ph < l; ph++ {
		h := p.coefs[(ph-1)*peakTaps : ph*peakTaps]
		sum := 0.0
		for k := range h {
			// Distance from input sample k of the window to the output
			// instant, which lies ph/l past sample peakTaps/2-1.
			d := half - 1 + float64(ph)/float64(l) - float64(k)
			r := d / half
			w := kaiser.BesselI0(peakBeta*math.Sqrt(max(0, 1-r*r))) / i0b
			h[k] = math.Sin(math.Pi*d) / (math.Pi * d) * w
			sum += math.Abs(h[k])
		}
		p.bound = max(p.bound, sum)
	}
	p.spans = make([]peakSpan, 4*l) // a tree of l leaves fits in 4l nodes
	p.addSpan(0, 0, l)
	return p
}

// addSpan sets span i to phases from..to and its halves below it.
func (p *peakFilter) addSpan(i, from, to int) {
	s := &p.spans[i]
	s.from, s.to = from, to
	var emax [peakTaps]float64
	for ph := from + 1; ph < to; ph++ {
		a := float64(ph-from) / float64(to-from)
		dc := 0.0
		for k := range peakTaps {
			e := p.coef(ph, k) - ((1-a)*p.coef(from, k) + a*p.coef(to, k))
			emax[k] = max(emax[k], math.Abs(e))
			dc += e
		}
		s.smax = max(s.smax, math.Abs(dc))
	}
	copy(s.emax[:], emax[peakOuter:])
	for k := range peakOuter {
		s.outer += emax[k] + emax[peakTaps-1-k]
	}
	if to-from > 2 {
		mid := (from + to) / 2
		p.addSpan(2*i+1, from, mid)
		p.addSpan(2*i+2, mid, to)
	}
}

// coef is coefficient k of phase ph, 0 <= ph <= l: phases 0 and l are
// the window's middle samples.
func (p *peakFilter) coef(ph, k int) float64 {
	switch {
	case ph == 0 && k == peakTaps/2-1, ph == p.l && k == peakTaps/2:
		return 1
	case ph == 0, ph == p.l:
		return 0
	}
	return p.coefs[(ph-1)*peakTaps+k]
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
//   - spans of phases whose bound (see peakSpan) cannot beat it, c being
//     the mean of the window's two middle samples and the peakOuter taps
//     at each end (residuals under 0.011) bounded together by outer
//     times the run's largest magnitude plus |c|. A window whose span of
//     all phases cannot beat the peak is skipped; otherwise the phase
//     that halves the span is computed and each half bounded in turn.
//     Speech varies slowly against the sample rate, so the w_k - c are
//     small where the residuals are large: in the emulator's prompts at
//     8 kHz one phase in a hundred is computed (0.2 a sample, of 23).
func (p *truePeak) scan(n int) float64 {
	buf, peak := p.buf, p.max
	for j0 := 0; j0 < n; j0 += peakBlock {
		j1 := min(j0+peakBlock, n)
		a := absMax(buf[j0:j1+peakTaps-1], 0)
		if a*p.bound <= peak {
			continue
		}
		root := &p.spans[0]
		for j := j0; j < j1; j++ {
			w := (*[peakTaps]float64)(buf[j : j+peakTaps])
			from, to := w[peakTaps/2-1], w[peakTaps/2]
			c := (from + to) / 2
			// The whole span's bound (peakSpan.bound), inline: most
			// windows end here.
			var d [peakInner]float64
			var b0, b1, b2, b3 float64
			for k := 0; k < peakInner; k += 4 {
				d[k] = math.Abs(w[peakOuter+k] - c)
				d[k+1] = math.Abs(w[peakOuter+k+1] - c)
				d[k+2] = math.Abs(w[peakOuter+k+2] - c)
				d[k+3] = math.Abs(w[peakOuter+k+3] - c)
				b0 += root.emax[k] * d[k]
				b1 += root.emax[k+1] * d[k+1]
				b2 += root.emax[k+2] * d[k+2]
				b3 += root.emax[k+3] * d[k+3]
			}
			e := spanEnv{w: w, d: &d, c: math.Abs(c), a: a}
			ends := max(math.Abs(from), math.Abs(to))
			if (ends+e.c*root.smax+(b0+b1)+(b2+b3)+root.outer*(a+e.c))*(1+1e-9) <= peak {
				continue
			}
			peak = p.split(&e, 0, math.Abs(from), math.Abs(to), peak)
		}
	}
	return peak
}

// spanEnv is what bounding the spans of a window needs.
type spanEnv struct {
	w *[peakTaps]float64
	d *[peakInner]float64 // |w_k - c| of the inner taps
	c float64             // |c|
	a float64             // the largest magnitude of the run of windows
}

// split returns the largest of peak and the magnitudes of the phases in
// span i, whose ends have the magnitudes from and to and whose bound
// could beat peak: it computes the phase that halves the span and goes
// on into each half its bound does not rule out.
func (p *truePeak) split(e *spanEnv, i int, from, to, peak float64) float64 {
	s := &p.spans[i]
	mid := math.Abs(p.phase(e.w, (s.from+s.to)/2))
	peak = max(peak, mid)
	if s.to-s.from == 2 {
		return peak
	}
	if h := &p.spans[2*i+1]; h.to-h.from > 1 && h.bound(e, max(from, mid)) > peak {
		peak = p.split(e, 2*i+1, from, mid, peak)
	}
	if h := &p.spans[2*i+2]; h.to-h.from > 1 && h.bound(e, max(mid, to)) > peak {
		peak = p.split(e, 2*i+2, mid, to, peak)
	}
	return peak
}

// bound is the largest magnitude of the span's phases in the window of
// e whose known values are at most ends. The margin covers the rounding
// of the sums.
func (s *peakSpan) bound(e *spanEnv, ends float64) float64 {
	d := e.d
	var b0, b1, b2, b3 float64
	for k := 0; k < peakInner; k += 4 {
		b0 += s.emax[k] * d[k]
		b1 += s.emax[k+1] * d[k+1]
		b2 += s.emax[k+2] * d[k+2]
		b3 += s.emax[k+3] * d[k+3]
	}
	return (ends + e.c*s.smax + (b0 + b1) + (b2 + b3) + s.outer*(e.a+e.c)) * (1 + 1e-9)
}

// phase is the value of phase ph (1 <= ph < l) of window w.
func (p *truePeak) phase(w *[peakTaps]float64, ph int) float64 {
	p.computed++
	h := (*[peakTaps]float64)(p.coefs[(ph-1)*peakTaps : ph*peakTaps])
	var y0, y1, y2, y3 float64
	for k := 0; k < peakTaps; k += 4 {
		y0 += w[k] * h[k]
		y1 += w[k+1] * h[k+1]
		y2 += w[k+2] * h[k+2]
		y3 += w[k+3] * h[k+3]
	}
	return (y0 + y1) + (y2 + y3)
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
