package recog

import (
	"math"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// fineSteps is how many sub-windows an envelope window is cut into, so that
// envelopes can be rebuilt at quarter-window offsets.
const fineSteps = 4

// maxCodecDelay is how many envelope windows of leading delay a lossy
// codec may add (an MP3 encoder and decoder add about 50 ms).
const maxCodecDelay = 6

// maxFineSeconds bounds the audio whose fine envelope is kept: longer audio
// cannot be the emulator's own synthesis (its text limit makes minutes).
const maxFineSeconds = 1800

// fineEnvelope accumulates the energy of quarter windows of
// emu.EnvelopeWindow. The envelope at offset 0 is exactly emu.Envelope's;
// other offsets let a lookup see past a codec's leading delay, which is
// rarely a whole number of windows.
type fineEnvelope struct {
	per    int // samples per envelope window
	bounds []int
	sums   []float64 // sum of squares per sub-window
	cur    float64
	pos    int // sample index within the current window
	sub    int // sub-window index within the current window
	limit  int // sub-windows kept at most
}

func newFineEnvelope(rate int) *fineEnvelope {
	per := max(1, int(float64(rate)*emu.EnvelopeWindow))
	b := make([]int, fineSteps+1)
	for j := range b {
		b[j] = j * per / fineSteps
	}
	return &fineEnvelope{per: per, bounds: b, limit: maxFineSeconds * rate / per * fineSteps}
}

// Add feeds one sample in [-1, 1].
func (f *fineEnvelope) Add(s float64) {
	if len(f.sums) >= f.limit {
		return
	}
	f.cur += s * s
	f.pos++
	for f.sub < fineSteps && f.pos == f.bounds[f.sub+1] {
		f.sums = append(f.sums, f.cur)
		f.cur = 0
		f.sub++
	}
	if f.pos == f.per {
		f.pos, f.sub = 0, 0
	}
}

// at returns the envelope starting q sub-windows in.
func (f *fineEnvelope) at(q int) []float32 {
	n := (len(f.sums) - q) / fineSteps
	out := make([]float32, 0, max(n, 0))
	for i := 0; i < n; i++ {
		var sum float64
		lo, hi := q+i*fineSteps, q+(i+1)*fineSteps
		for _, v := range f.sums[lo:hi] {
			sum += v
		}
		// Sub-windows r..3 of one window and 0..r-1 of the next hold
		// exactly per samples too.
		out = append(out, float32(math.Sqrt(sum/float64(f.per))))
	}
	return out
}

// lookup finds audio the emulator synthesized, trying offsets of a quarter
// window up to maxCodecDelay windows.
func (f *fineEnvelope) lookup(env *emu.Env) (emu.Spoken, bool) {
	return f.find(env, env.Registry.Lookup, 0)
}

// lookupPrefix finds audio the emulator synthesized whose beginning this
// is (a recording still streaming in), leaving out its last trim windows
// (a frame the client may have padded with silence).
func (f *fineEnvelope) lookupPrefix(env *emu.Env, trim int) (emu.Spoken, bool) {
	return f.find(env, env.Registry.LookupPrefix, trim)
}

// find tries the envelope at each offset lookup tries, without its last
// trim windows. What it finds is heard with env's recognition noise.
func (f *fineEnvelope) find(env *emu.Env, match func([]float32) (emu.Spoken, bool), trim int) (emu.Spoken, bool) {
	for q := 0; q <= maxCodecDelay*fineSteps && q < len(f.sums); q++ {
		e := f.at(q)
		if sp, ok := match(e[:max(0, len(e)-trim)]); ok {
			return env.Hear(sp), true
		}
	}
	return emu.Spoken{}, false
}

// window returns n windows of the envelope starting q sub-windows in,
// which may lie before the start or run past the end: silence there.
func (f *fineEnvelope) window(q, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		var sum float64
		for k := q + i*fineSteps; k < q+(i+1)*fineSteps; k++ {
			if k >= 0 && k < len(f.sums) {
				sum += f.sums[k]
			}
		}
		out[i] = float32(math.Sqrt(sum / float64(f.per)))
	}
	return out
}
