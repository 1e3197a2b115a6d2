package audio

import (
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/voxform/voxform/audio/internal/kaiser"
)

// The resampler is a windowed-sinc interpolator: each output sample is the
// input convolved with a Kaiser-windowed sinc low-pass centred on the
// output instant. The cut-off is 0.94 of the lower Nyquist frequency, so
// downsampling removes what the new rate cannot hold instead of aliasing
// it. The filter spans sincZeros zero crossings each side; its impulse
// response comes from a table with linear interpolation, so any rate pair
// costs the same memory. It is zero-phase: output frame n is input instant
// n*from/to, so the output has ceil(frames*to/from) frames and no delay.
const (
	sincZeros   = 16   // zero crossings of the low-pass each side
	sincRes     = 512  // table entries per zero crossing
	kaiserBeta  = 8.6  // about 90 dB stop-band attenuation
	cutoffRatio = 0.94 // passband edge as a fraction of the lower Nyquist
)

var sincTable = sync.OnceValue(func() []float64 {
	t := make([]float64, sincZeros*sincRes+2)
	i0b := kaiser.BesselI0(kaiserBeta)
	for i := range t {
		u := float64(i) / sincRes
		if u >= sincZeros {
			break
		}
		r := u / sincZeros
		w := kaiser.BesselI0(kaiserBeta*math.Sqrt(1-r*r)) / i0b
		s := 1.0
		if u != 0 {
			s = math.Sin(math.Pi*u) / (math.Pi * u)
		}
		t[i] = s * w
	}
	return t
})

// Resampler converts a SampleSource from one rate to another as a stream,
// holding only a filter's width of input.
type Resampler struct {
	src      SampleSource
	ch       int
	from, to int64
	cutoff   float64 // low-pass cut-off in cycles per input sample * 2
	half     int     // filter half-width in input samples
	table    []float64
	coefs    []float64 // per-phase filter taps when the phase count is small

	buf     []float64 // interleaved input frames, buf[0] is frame base
	base    int64     // input frame index of buf[0]
	inEOF   bool
	inTotal int64 // input frames read so far
	out     int64 // output frames produced
	scratch []float64
	err     error
}

// NewResampler returns a SampleSource with src's samples at rate to, given
// that src is at rate from. Equal rates pass samples through untouched.
func NewResampler(src SampleSource, from, to int) (*Resampler, error) {
	if from < MinSampleRate || from > MaxSampleRate || to < MinSampleRate || to > MaxSampleRate {
		return nil, fmt.Errorf("resample %d Hz to %d Hz: %w: rates must be %d..%d", from, to, ErrFormat, MinSampleRate, MaxSampleRate)
	}
	if src.Channels() < 1 {
		return nil, fmt.Errorf("resample: %w: %d channels", ErrFormat, src.Channels())
	}
	g := gcd(from, to)
	r := &Resampler{src: src, ch: src.Channels(), from: int64(from / g), to: int64(to / g), table: sincTable()}
	r.cutoff = cutoffRatio * math.Min(1, float64(to)/float64(from))
	r.half = int(math.Ceil(sincZeros / r.cutoff))
	if taps := 2 * r.half; r.to*int64(taps) <= maxCoefs {
		r.coefs = make([]float64, r.to*int64(taps))
		for ph := int64(0); ph < r.to; ph++ {
			frac := float64(ph) / float64(r.to)
			for j := 0; j < taps; j++ {
				r.coefs[ph*int64(taps)+int64(j)] = r.weight(float64(j-r.half+1) - frac)
			}
		}
	}
	return r, nil
}

// maxCoefs bounds the per-phase tap table (8 MB); rate pairs needing more
// phases interpolate the kernel table for every tap instead.
const maxCoefs = 1 << 20

// weight is the filter tap for an input sample d input frames away from
// the output instant.
func (r *Resampler) weight(d float64) float64 {
	u := math.Abs(d) * r.cutoff * sincRes
	i := int(u)
	if i >= len(r.table)-1 {
		return 0
	}
	return r.cutoff * (r.table[i] + (r.table[i+1]-r.table[i])*(u-float64(i)))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Channels implements SampleSource.
func (r *Resampler) Channels() int { return r.ch }

// ReadSamples implements SampleSource.
func (r *Resampler) ReadSamples(dst []float64) (int, error) {
	if r.from == r.to {
		return r.src.ReadSamples(dst)
	}
	frames := len(dst) / r.ch
	if frames == 0 {
		return 0, fmt.Errorf("resample: buffer smaller than one frame")
	}
	n := 0
	for n < frames {
		pos := r.out * r.from // output instant in units of 1/to input frames
		ip := pos / r.to
		if err := r.fill(ip + int64(r.half) + 1); err != nil {
			return n * r.ch, err
		}
		if r.inEOF && ip >= r.inTotal {
			return n * r.ch, io.EOF
		}
		r.interpolate(dst[n*r.ch:(n+1)*r.ch], ip, pos%r.to)
		r.out++
		n++
	}
	return n * r.ch, nil
}

// fill reads input until frame upto-1 is buffered or the input ends, and
// drops frames no future output needs.
func (r *Resampler) fill(upto int64) error {
	keep := r.out*r.from/r.to - int64(r.half)
	if drop := keep - r.base; drop > 4096 {
		copy(r.buf, r.buf[drop*int64(r.ch):])
		r.buf = r.buf[:int64(len(r.buf))-drop*int64(r.ch)]
		r.base += drop
	}
	for !r.inEOF && r.inTotal < upto {
		if r.err != nil {
			return r.err
		}
		if r.scratch == nil {
			r.scratch = make([]float64, 1024*r.ch)
		}
		n, err := r.src.ReadSamples(r.scratch)
		r.buf = append(r.buf, r.scratch[:n-n%r.ch]...)
		r.inTotal += int64(n / r.ch)
		if err == io.EOF {
			r.inEOF = true
		} else if err != nil {
			r.err = err
			return err
		}
	}
	return nil
}

// interpolate computes one output frame at input instant ip+frac, where
// frac is phase/to.
func (r *Resampler) interpolate(out []float64, ip, phase int64) {
	for c := range out {
		out[c] = 0
	}
	taps := int64(2 * r.half)
	first := ip - int64(r.half) + 1
	var coefs []float64
	if r.coefs != nil {
		coefs = r.coefs[phase*taps : (phase+1)*taps]
	}
	if coefs != nil && r.ch == 1 && first >= r.base && first+taps <= r.inTotal {
		x := r.buf[first-r.base : first-r.base+taps]
		sum := 0.0
		for j, w := range coefs {
			sum += w * x[j]
		}
		out[0] = sum
		return
	}
	frac := float64(phase) / float64(r.to)
	for j := int64(0); j < taps; j++ {
		k := first + j
		if k < 0 || k >= r.inTotal || k < r.base {
			continue
		}
		var w float64
		if coefs != nil {
			w = coefs[j]
		} else {
			w = r.weight(float64(k-ip) - frac)
		}
		at := (k - r.base) * int64(r.ch)
		for c := range out {
			out[c] += w * r.buf[at+int64(c)]
		}
	}
}
