package master

import (
	"io"
	"math"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/kaiser"
)

// The limiter holds the gained signal under a ceiling with a gain that
// never lets a peak through and never jumps:
//
//  1. need[j] is the gain frame j needs: ceiling / peak, at most 1. The
//     peak is the largest sample of the frame's channels or, for a true
//     peak ceiling, also the largest value of the signal oversampled 4
//     times between the frame and each neighbour (a 32-tap
//     Kaiser-windowed sinc, as the loudness meter's true peak).
//  2. floor[c] is the least need within lookahead frames either side of c.
//  3. held[c] follows floor down at once and recovers towards 1 with a
//     release time constant, never above floor.
//  4. the gain of frame n is the mean of held over lookahead frames either
//     side of n: each of those is at most need[n] (its window of step 2
//     holds n), so the mean is too, and it moves in ramps of 2*lookahead.
//
// Frames are delayed by 2*lookahead (and 16 more for a true peak); the
// state is a ring of a few hundred frames, whatever the length.
const (
	lookaheadMs = 2  // milliseconds each side
	releaseMs   = 80 // time constant of the recovery
	tpTaps      = 32 // interpolation taps, even
	tpBeta      = 9.0
	tpPhases    = 4 // oversampling factor
)

// tpFilter holds the interpolation phases 1/4, 2/4, 3/4 and the largest
// sum of their coefficients' magnitudes (how far an interpolated value can
// exceed the largest sample under the filter).
var tpFilter = func() (f struct {
	h     [tpPhases - 1][tpTaps]float64
	bound float64
}) {
	half := float64(tpTaps / 2)
	i0 := kaiser.BesselI0(tpBeta)
	for ph := 1; ph < tpPhases; ph++ {
		sum := 0.0
		for t := 0; t < tpTaps; t++ {
			d := half - 1 + float64(ph)/tpPhases - float64(t)
			r := d / half
			w := kaiser.BesselI0(tpBeta*math.Sqrt(max(0, 1-r*r))) / i0
			f.h[ph-1][t] = math.Sin(math.Pi*d) / (math.Pi * d) * w
			sum += math.Abs(f.h[ph-1][t])
		}
		f.bound = max(f.bound, sum)
	}
	return f
}()

// limiter is a SampleSource of src times gain, limited to ceil.
type limiter struct {
	src      audio.SampleSource
	gain     float64
	ch       int
	ceil     float64
	truePeak bool
	h        int64   // lookahead frames each side
	rel      float64 // release step
	lag      int64   // frames of input needed past a frame to know its need

	mask         int64
	x            []float64 // ring of gained frames
	ax, ip       []float64 // ring: the frame's largest |sample|, the largest interpolated value after it
	need, held   []float64 // rings
	minq, maxq   deque
	in, out, end int64 // frames read from src, frames put out, src's length once known (-1 before)
	rsum, last   float64
	rsumSince    int
	buf          []float64
	outBuf       []float64
}

func newLimiter(src audio.SampleSource, gain, ceil float64, truePeak bool, rate int) *limiter {
	l := &limiter{src: src, gain: gain, ch: src.Channels(), ceil: ceil, truePeak: truePeak, end: -1}
	l.h = max(int64(rate)*lookaheadMs/1000, 1)
	l.rel = 1 - math.Exp(-1000/(releaseMs*float64(rate)))
	if truePeak {
		l.lag = tpTaps / 2
	}
	size := int64(64)
	for size < 2*l.h+2*l.lag+64 {
		size *= 2
	}
	l.mask = size - 1
	l.x = make([]float64, size*int64(l.ch))
	l.ax, l.ip = make([]float64, size), make([]float64, size)
	l.need, l.held = make([]float64, size), make([]float64, size)
	for i := range l.need {
		l.need[i], l.held[i] = 1, 1
	}
	l.minq, l.maxq = newDeque(size), newDeque(size)
	l.rsum, l.last = float64(2*l.h), 1
	return l
}

func (l *limiter) Channels() int { return l.ch }

// ReadSamples puts out limited frames.
func (l *limiter) ReadSamples(dst []float64) (int, error) {
	want := int64(len(dst) / l.ch)
	var n int64
	for n < want {
		if l.end >= 0 && l.out >= l.end {
			if n == 0 {
				return 0, io.EOF
			}
			break
		}
		if err := l.step(dst, want-n, &n); err != nil {
			return int(n) * l.ch, err
		}
	}
	return int(n) * l.ch, nil
}

// step reads a piece of src (or, past its end, silence) and pushes its
// frames through, putting out what is ready into dst.
func (l *limiter) step(dst []float64, room int64, n *int64) error {
	k := min(room, 1024)
	if cap(l.buf) < int(k)*l.ch {
		l.buf = make([]float64, int(k)*l.ch)
	}
	buf := l.buf[:int(k)*l.ch]
	got := len(buf)
	if l.end < 0 {
		var err error
		got, err = l.src.ReadSamples(buf)
		if err == io.EOF {
			l.end = l.in + int64(got/l.ch)
		} else if err != nil {
			return err
		}
	} else {
		clear(buf) // the silence after the end flushes the last frames
	}
	for i := 0; i+l.ch <= got; i += l.ch {
		if y, ok := l.push(buf[i : i+l.ch]); ok {
			copy(dst[*n*int64(l.ch):], y)
			*n++
		}
	}
	return nil
}

// push takes in the next frame and returns the frame that became ready,
// if one did.
func (l *limiter) push(frame []float64) ([]float64, bool) {
	i := l.in
	l.in++
	o := (i & l.mask) * int64(l.ch)
	a := 0.0
	for c, v := range frame {
		v *= l.gain
		l.x[o+int64(c)] = v
		a = max(a, math.Abs(v))
	}
	l.ax[i&l.mask] = a
	j := i - l.lag
	if j < 0 {
		return nil, false
	}
	l.need[j&l.mask] = l.needOf(i, j)
	c := l.hold(j)
	if c < 0 {
		return nil, false
	}
	return l.emit(c)
}

// needOf is the gain frame j needs, frame i the latest read.
func (l *limiter) needOf(i, j int64) float64 {
	peak := l.ax[j&l.mask]
	if l.truePeak {
		l.maxq.pushMax(i, l.ax, l.mask)
		l.maxq.dropBefore(i - 2*l.lag)
		if tpFilter.bound*l.ax[l.maxq.front()&l.mask] > l.ceil {
			peak = max(peak, l.interp(j-1), l.interp(j))
		}
	}
	if peak <= l.ceil {
		return 1
	}
	return l.ceil / peak
}

// interp is the largest magnitude of the signal oversampled between frames
// k and k+1, on any channel.
func (l *limiter) interp(k int64) float64 {
	peak := 0.0
	for c := 0; c < l.ch; c++ {
		for ph := range tpFilter.h {
			s := 0.0
			for t, h := range tpFilter.h[ph] {
				s += h * l.x[((k-tpTaps/2+1+int64(t))&l.mask)*int64(l.ch)+int64(c)]
			}
			peak = max(peak, math.Abs(s))
		}
	}
	return peak
}

// hold updates the floor and the held gain with need[j] known and returns
// the frame whose held gain is now known (negative: none yet).
func (l *limiter) hold(j int64) int64 {
	l.minq.pushMin(j, l.need, l.mask)
	l.minq.dropBefore(j - 2*l.h)
	c := j - l.h
	if c < 0 {
		return -1
	}
	held := min(l.need[l.minq.front()&l.mask], l.last+(1-l.last)*l.rel)
	l.held[c&l.mask], l.last = held, held
	return c
}

// emit puts out frame c-h, whose gain is the mean of held around it.
func (l *limiter) emit(c int64) ([]float64, bool) {
	l.rsum += l.held[c&l.mask]
	n := c - l.h
	defer func() {
		l.rsum -= l.held[(c-2*l.h)&l.mask]
		if l.rsumSince++; l.rsumSince == 4096 { // no drift over hours
			l.rsumSince, l.rsum = 0, 0
			for k := c - 2*l.h + 1; k <= c; k++ {
				l.rsum += l.held[k&l.mask]
			}
		}
	}()
	if n < 0 || (l.end >= 0 && n >= l.end) {
		return nil, false
	}
	g := min(l.rsum/float64(2*l.h+1), l.need[n&l.mask])
	if cap(l.outBuf) < l.ch {
		l.outBuf = make([]float64, l.ch)
	}
	o := (n & l.mask) * int64(l.ch)
	for ch := range l.outBuf[:l.ch] {
		l.outBuf[ch] = l.x[o+int64(ch)] * g
	}
	l.out++
	return l.outBuf[:l.ch], true
}

// deque is a ring of frame indices whose values are monotonic: the
// sliding minimum or maximum of a window.
type deque struct {
	idx        []int64
	head, tail int // tail is one past the last
	mask       int
}

func newDeque(size int64) deque { return deque{idx: make([]int64, size), mask: int(size - 1)} }

func (d *deque) empty() bool  { return d.head == d.tail }
func (d *deque) front() int64 { return d.idx[d.head&d.mask] }
func (d *deque) back() int64  { return d.idx[(d.tail-1)&d.mask] }
func (d *deque) push(i int64) { d.idx[d.tail&d.mask] = i; d.tail++ }
func (d *deque) dropBefore(i int64) {
	for !d.empty() && d.front() < i {
		d.head++
	}
}

// pushMin adds index i of values v (a ring), dropping the indices behind
// it whose values are no smaller.
func (d *deque) pushMin(i int64, v []float64, mask int64) {
	for !d.empty() && v[d.back()&mask] >= v[i&mask] {
		d.tail--
	}
	d.push(i)
}

// pushMax adds index i, dropping the indices behind it whose values are
// no larger.
func (d *deque) pushMax(i int64, v []float64, mask int64) {
	for !d.empty() && v[d.back()&mask] <= v[i&mask] {
		d.tail--
	}
	d.push(i)
}
