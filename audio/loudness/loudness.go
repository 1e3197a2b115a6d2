package loudness

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/voxform/voxform/audio"
)

// Loudness is measured as ITU-R BS.1770-4 and EBU R 128 define it:
//
//   - Each channel goes through the K-weighting filter: a high-shelf
//     pre-filter (+4 dB above about 1.7 kHz) and the RLB high-pass (about
//     38 Hz). BS.1770 gives the coefficients for 48 kHz only; for other
//     rates both biquads are designed from their analogue prototypes by
//     the bilinear transform with pre-warping, as libebur128 does, which
//     reproduces the 48 kHz coefficients.
//   - Mean squares are taken over 400 ms gating blocks every 100 ms (75%
//     overlap), weighted per channel (see loudnessWeights) and summed. A
//     block counts once its 400 ms are complete: no padding at either end,
//     as ffmpeg's ebur128 filter and libebur128 do.
//   - Integrated loudness gates blocks below -70 LUFS (absolute), then
//     blocks more than 10 LU below the loudness of those left (relative),
//     and is -0.691 + 10 log10 of the mean energy of the blocks kept.
//   - True peak oversamples every channel to at least 192 kHz and takes
//     the largest magnitude (see peak.go).

// Gating constants of BS.1770-4, section 2.8 and Annex 1.
const (
	absoluteGate  = -70.0 // LUFS
	relativeGate  = -10.0 // LU below the absolutely gated loudness
	loudnessShift = -0.691
)

// Loudness sample-rate limits. Below 8 kHz the K-weighting shelf (1.7 kHz)
// comes too close to the Nyquist frequency for the bilinear design.
const (
	minLoudnessRate = 8000
	maxLoudnessRate = audio.MaxSampleRate
)

// Loudness is the loudness of a piece of audio.
type Loudness struct {
	// Integrated is the gated integrated loudness in LUFS (BS.1770-4),
	// math.Inf(-1) when Silent.
	Integrated float64
	// TruePeak is the largest magnitude of any channel oversampled to at
	// least 192 kHz, in dBTP (dB relative to full scale, 1.0), and
	// math.Inf(-1) for digital silence. It can exceed 0.
	TruePeak float64
	// Silent is true when no 400 ms gating block reaches -70 LUFS: the
	// audio is silent, nearly so, or shorter than one block (see Short).
	Silent bool
	// Short is true when the audio is shorter than one 400 ms gating
	// block, so Integrated could not be measured whatever its level.
	Short bool
	// Duration is the length of the audio measured.
	Duration time.Duration
}

// String renders l as e.g. "-23.0 LUFS, -1.2 dBTP".
func (l Loudness) String() string {
	i := fmt.Sprintf("%.1f LUFS", l.Integrated)
	switch {
	case l.Short:
		i = "too short for LUFS"
	case l.Silent:
		i = "silent"
	}
	return fmt.Sprintf("%s, %.1f dBTP", i, l.TruePeak)
}

// loudnessMeter measures the loudness of interleaved samples written to it
// in any number of pieces. Its memory is fixed by the channel count, not
// by the length of the audio: filter state and the last 31 samples of
// each channel, the sums of the last four 100 ms steps, and a histogram
// of block loudness (160 KB).
type loudnessMeter struct {
	rate, ch int
	weights  []float64
	filters  []kWeighting
	peaks    []*truePeak

	subLen  int        // frames per 100 ms step
	subPos  int        // frames into the current step
	subSum  float64    // weighted sum of squares in the current step
	steps   [4]float64 // the last four steps' sums, a ring
	nsteps  int64
	frames  int64
	chanBuf []float64 // one channel of the current piece
	hist    blockHistogram
}

// newLoudnessMeter returns a meter for audio of channels channels at rate
// Hz. Channels are weighted by the layout ffmpeg assumes for a file that
// names none (see loudnessWeights).
func newLoudnessMeter(rate, channels int) (*loudnessMeter, error) {
	if rate < minLoudnessRate || rate > maxLoudnessRate {
		return nil, fmt.Errorf("measure loudness: %w: sample rate %d Hz outside %d..%d", audio.ErrFormat, rate, minLoudnessRate, maxLoudnessRate)
	}
	if channels < 1 || channels > audio.MaxChannels {
		return nil, fmt.Errorf("measure loudness: %w: %d channels outside 1..%d", audio.ErrFormat, channels, audio.MaxChannels)
	}
	m := &loudnessMeter{
		rate: rate, ch: channels,
		weights: loudnessWeights(channels),
		filters: make([]kWeighting, channels),
		peaks:   make([]*truePeak, channels),
		subLen:  (rate + 5) / 10,
		hist:    newBlockHistogram(),
	}
	k := newKWeighting(rate)
	for c := range m.filters {
		m.filters[c] = k
		m.peaks[c] = newTruePeak(rate)
	}
	return m, nil
}

// Channels is the number of samples per frame the meter expects.
func (m *loudnessMeter) Channels() int { return m.ch }

// Write measures interleaved samples, a whole number of frames; a partial
// frame at the end is ignored. Full scale is ±1; larger values are
// measured as they are. Non-finite samples (NaN, ±Inf) count as 0, so
// that no input can leave the meter without a result.
func (m *loudnessMeter) Write(samples []float64) {
	frames := len(samples) / m.ch
	for done := 0; done < frames; {
		n := min(frames-done, m.subLen-m.subPos, maxPiece)
		m.writeStep(samples[done*m.ch:(done+n)*m.ch], n)
		done += n
	}
}

// maxPiece bounds the frames processed per channel pass, so one channel's
// samples stay in cache.
const maxPiece = 2048

// writeStep measures n frames that all fall within one 100 ms step.
func (m *loudnessMeter) writeStep(x []float64, n int) {
	if cap(m.chanBuf) < n {
		m.chanBuf = getFloats()[:maxPiece]
	}
	buf := m.chanBuf[:n]
	for c := 0; c < m.ch; c++ {
		for i := range buf {
			v := x[i*m.ch+c]
			if v-v != 0 { // NaN or ±Inf
				v = 0
			}
			buf[i] = v
		}
		m.peaks[c].write(buf)
		if w := m.weights[c]; w != 0 {
			m.subSum += w * m.filters[c].sumSquares(buf)
		}
	}
	m.frames += int64(n)
	m.subPos += n
	if m.subPos == m.subLen {
		m.endStep()
	}
}

// endStep closes a 100 ms step and, once four are complete, records the
// 400 ms block ending with it.
func (m *loudnessMeter) endStep() {
	m.steps[m.nsteps%4] = m.subSum
	m.nsteps++
	m.subSum, m.subPos = 0, 0
	if m.nsteps < 4 {
		return
	}
	e := (m.steps[0] + m.steps[1] + m.steps[2] + m.steps[3]) / float64(4*m.subLen)
	m.hist.add(e)
}

// Loudness returns the loudness of everything written so far. The meter
// can go on measuring after it.
func (m *loudnessMeter) Loudness() Loudness {
	l := Loudness{
		Integrated: m.hist.integrated(),
		TruePeak:   math.Inf(-1),
		Short:      m.frames < int64(4*m.subLen),
		Duration:   audio.FramesDuration(m.frames, m.rate),
	}
	l.Silent = math.IsInf(l.Integrated, -1)
	for _, p := range m.peaks {
		if v := p.peak(); v > 0 {
			l.TruePeak = max(l.TruePeak, 20*math.Log10(v))
		}
	}
	return l
}

// loudnessWeights are the BS.1770-4 channel weights (Table 3: 1.0 for
// left, right and centre, 1.41 for surround, 0 for LFE) for the channel
// order ffmpeg assumes when a file names no layout (av_channel_layout_default:
// 3 channels are 2.1, 4 are 4.0, 5 are 5.0, 6 are 5.1, 7 are 6.1, 8 are
// 7.1), so that WAV and raw files compare with ffmpeg's ebur128 filter.
// WAV files voxform writes name no layout. Beyond 8 channels, where ffmpeg
// has no default, every channel weighs 1.
func loudnessWeights(n int) []float64 {
	const s, lfe = 1.41, 0
	layouts := map[int][]float64{
		1: {1},
		2: {1, 1},
		3: {1, 1, lfe},          // FL FR LFE
		4: {1, 1, 1, s},         // FL FR FC BC
		5: {1, 1, 1, s, s},      // FL FR FC BL BR
		6: {1, 1, 1, lfe, s, s}, // FL FR FC LFE BL BR
		7: {1, 1, 1, lfe, s, s, s},
		8: {1, 1, 1, lfe, s, s, s, s},
	}
	if w, ok := layouts[n]; ok {
		return w
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// kWeighting is the two-stage K-weighting filter of one channel: the
// pre-filter (a) then the RLB high-pass (b), each a biquad in transposed
// direct form II.
type kWeighting struct {
	a, b biquad
}

type biquad struct {
	b0, b1, b2, a1, a2 float64
	z1, z2             float64
}

// newKWeighting designs the K-weighting filter for rate Hz. The analogue
// parameters (centre frequencies, gain, Q) are those that give the
// BS.1770-4 coefficients at 48 kHz; they are published with libebur128.
func newKWeighting(rate int) kWeighting {
	fs := float64(rate)
	// Pre-filter: a high shelf.
	const f0, gain, q = 1681.974450955533, 3.999843853973347, 0.7071752369554196
	k := math.Tan(math.Pi * f0 / fs)
	vh := math.Pow(10, gain/20)
	vb := math.Pow(vh, 0.4996667741545416)
	a0 := 1 + k/q + k*k
	pre := biquad{
		b0: (vh + vb*k/q + k*k) / a0,
		b1: 2 * (k*k - vh) / a0,
		b2: (vh - vb*k/q + k*k) / a0,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/q + k*k) / a0,
	}
	// RLB: a second-order high-pass, numerator 1, -2, 1 as in BS.1770-4.
	const f1, q1 = 38.13547087602444, 0.5003270373238773
	k = math.Tan(math.Pi * f1 / fs)
	a0 = 1 + k/q1 + k*k
	rlb := biquad{b0: 1, b1: -2, b2: 1, a1: 2 * (k*k - 1) / a0, a2: (1 - k/q1 + k*k) / a0}
	return kWeighting{a: pre, b: rlb}
}

// sumSquares filters x and returns the sum of the squares of the output.
func (f *kWeighting) sumSquares(x []float64) float64 {
	a, b := f.a, f.b
	az1, az2, bz1, bz2 := a.z1, a.z2, b.z1, b.z2
	sum := 0.0
	for _, v := range x {
		y := a.b0*v + az1
		az1 = a.b1*v - a.a1*y + az2
		az2 = a.b2*v - a.a2*y
		z := b.b0*y + bz1
		bz1 = b.b1*y - b.a1*z + bz2
		bz2 = b.b2*y - b.a2*z
		sum += z * z
	}
	// Flush state that has decayed into subnormal range: subnormal
	// arithmetic is many times slower, and long silences reach it.
	f.a.z1, f.a.z2, f.b.z1, f.b.z2 = flush(az1), flush(az2), flush(bz1), flush(bz2)
	return sum
}

func flush(v float64) float64 {
	if math.Abs(v) < 1e-30 {
		return 0
	}
	return v
}

// blockHistogram keeps gating blocks in bins of 0.01 LU from -70 to +30
// LUFS, each with its count and exact energy sum, so integrated loudness
// needs fixed memory however long the audio. Only blocks in the one bin
// the relative gate falls in are kept or dropped together.
type blockHistogram struct {
	count  []int64
	energy []float64
	total  float64 // energy of every block above the absolute gate
	n      int64
}

const (
	histLow   = absoluteGate
	histHigh  = 30.0
	histGrain = 100 // bins per LU
)

// histograms holds the bins of meters released (see release), emptied:
// a measurement per output of an apply would otherwise allocate 160 KB
// for each, which the garbage collector then has to reclaim.
var histograms sync.Pool

func newBlockHistogram() blockHistogram {
	if h, ok := histograms.Get().(*blockHistogram); ok {
		return *h
	}
	n := int((histHigh-histLow)*histGrain) + 1
	return blockHistogram{count: make([]int64, n), energy: make([]float64, n)}
}

// floats holds the sample buffers of meters released (see release), each
// of chanLen samples: like the histograms, outputs measured by the
// thousand would otherwise make most of the garbage.
var floats sync.Pool

// chanLen is the length of a meter's buffers: a piece of one channel and
// the samples a true-peak window reaches back.
const chanLen = peakTaps - 1 + maxPiece

// getFloats returns an empty buffer of chanLen samples.
func getFloats() []float64 {
	if b, ok := floats.Get().(*[]float64); ok {
		return (*b)[:0]
	}
	return make([]float64, 0, chanLen)
}

// putFloats gives b back; it must not be used after it.
func putFloats(b []float64) {
	if cap(b) == chanLen {
		floats.Put(&b)
	}
}

// release gives the meter's buffers back for another meter; the meter
// must not be used after it.
func (m *loudnessMeter) release() {
	putFloats(m.chanBuf)
	for _, p := range m.peaks {
		putFloats(p.buf)
	}
	m.chanBuf, m.peaks = nil, nil
	h := m.hist
	m.hist = blockHistogram{}
	if h.count == nil {
		return
	}
	clear(h.count)
	clear(h.energy)
	h.total, h.n = 0, 0
	histograms.Put(&h)
}

// blockLoudness converts a weighted mean square to LUFS.
func blockLoudness(e float64) float64 { return loudnessShift + 10*math.Log10(e) }

func (h *blockHistogram) bin(lufs float64) int {
	i := int(math.Floor((lufs - histLow) * histGrain))
	return min(max(i, 0), len(h.count)-1)
}

// add records a block of weighted mean square e, if it passes the
// absolute gate.
func (h *blockHistogram) add(e float64) {
	l := blockLoudness(e)
	if !(l >= absoluteGate) { // also drops e == 0 (-Inf) and NaN
		return
	}
	i := h.bin(l)
	h.count[i]++
	h.energy[i] += e
	h.total += e
	h.n++
}

// integrated applies the relative gate and returns the loudness of the
// blocks kept, or -Inf when there are none.
func (h *blockHistogram) integrated() float64 {
	if h.n == 0 {
		return math.Inf(-1)
	}
	gate := blockLoudness(h.total/float64(h.n)) + relativeGate
	first := h.bin(gate)
	var sum float64
	var n int64
	for i := first; i < len(h.count); i++ {
		if h.count[i] == 0 {
			continue
		}
		// The gate's own bin: keep it if its blocks are above the gate
		// on average.
		if i == first && blockLoudness(h.energy[i]/float64(h.count[i])) < gate {
			continue
		}
		sum += h.energy[i]
		n += h.count[i]
	}
	if n == 0 {
		return math.Inf(-1)
	}
	return blockLoudness(sum / float64(n))
}
