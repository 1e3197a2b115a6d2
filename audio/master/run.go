package master

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/deliver"
)

// The passes of mastering, each a stream over the source:
//
//  1. analyse: the source as the profile hears it (mixed, resampled) is
//     measured: its loudness (LUFS, or RMS) and, for every level, its
//     first and last sound window (analysis.sound). What it read is kept
//     (kept.go) for the next passes, which read it instead of decoding
//     and resampling again.
//  2. measure: the whole output (head, gained and limited sound, tail) is
//     rendered without being written and its loudness measured, as the
//     rule measures it (RMS counts the head and tail); the gain is
//     corrected, until the loudness is within 0.02 dB of the target or
//     after 4 such passes. Limiting lowers the loudness of loud speech,
//     which a single gain cannot foresee: the first correction is the
//     difference, the next ones divide it by the slope the passes so far
//     show (the secant method), which limiting makes less than 1.
//  3. write: the output is rendered with the last gain and written.
//
// A profile without a loudness rule gets no gain, and no measuring pass.

// mastering is the mastering of one source for one profile.
type mastering struct {
	ctx      context.Context
	src      string
	raw      *audio.Format
	tmpDir   string // where the source is kept ("": the system's)
	kept     *kept  // the source as the analysis read it (nil: read it again)
	p        *deliver.Profile
	rate, ch int
	format   audio.Format
	ceil     float64 // the limiter's ceiling, linear
	truePeak bool
	target   float64 // the loudness target, dB (with p.Loudness)

	// The analysis and the last gain planned, kept for the next plan
	// when an encoding asks for another mastering.
	a          *analysis
	lastGain   float64
	lastTarget float64
}

// adjust moves the targets of mastering by what an encoding was seen to
// do to them (Master): the loudness target by the loudness the encoding
// lost or gained, the limiter's ceiling down by a peak's overshoot. Both
// are 0 for the first mastering, and for MasterPCM.
type adjust struct {
	loudness, ceiling float64 // dB
}

// newMastering prepares the mastering of src for p; close ends it.
func newMastering(ctx context.Context, src string, raw *audio.Format, p *deliver.Profile, tmpDir string) *mastering {
	e := p.Encoding
	m := &mastering{ctx: ctx, src: src, raw: raw, tmpDir: tmpDir, p: p, rate: e.SampleRate, ch: e.Channels}
	m.format = audio.Format{SampleRate: e.SampleRate, Channels: e.Channels, BitsPerSample: 32, Encoding: audio.Float}
	switch e.Codec {
	case deliver.CodecPCM16:
		m.format.BitsPerSample, m.format.Encoding = 16, audio.PCM
	case deliver.CodecPCM24:
		m.format.BitsPerSample, m.format.Encoding = 24, audio.PCM
	case deliver.CodecMuLaw:
		m.format.BitsPerSample, m.format.Encoding = 8, audio.MuLaw
	case deliver.CodecALaw:
		m.format.BitsPerSample, m.format.Encoding = 8, audio.ALaw
	}
	m.adjust(adjust{})
	return m
}

// adjust sets the loudness target and the limiter's ceiling.
func (m *mastering) adjust(adj adjust) {
	ceil := 0.0
	if c := m.p.Peak; c != nil {
		ceil, m.truePeak = c.Max, c.Measure == deliver.TruePeak
	}
	m.ceil = fromDB(ceil - margin(m.p) - adj.ceiling)
	if m.p.Loudness != nil {
		m.target = m.p.Loudness.Target + adj.loudness
	}
}

// write masters the source into w, a WAV file in m.format, and returns
// its frames.
func (m *mastering) write(w io.WriteSeeker) (int64, error) {
	ps, err := m.plan()
	if err != nil {
		return 0, err
	}
	ww, err := audio.NewWAVWriter(w, m.format)
	if err != nil {
		return 0, err
	}
	lv, err := m.run(ps, ww)
	if err == nil {
		err = ww.Close()
	}
	return lv.frames, err
}

// pass is one rendering of the output.
type pass struct {
	gainDB     float64
	start, end int64 // the frames of the source kept
	head, tail int64 // frames of padding
}

// levels are the figures of a rendered output.
type levels struct {
	frames     int64
	integrated float64 // LUFS
	rms        float64 // dBFS
}

// plan analyses the source (once) and finds the gain that meets the
// loudness target: from the analysis the first time, from the last gain
// moved by the target's adjustment after.
func (m *mastering) plan() (pass, error) {
	ps := pass{head: padFrames(m.p.Head, m.rate), tail: padFrames(m.p.Tail, m.rate)}
	if m.a != nil {
		ps.gainDB = m.lastGain + m.target - m.lastTarget
		return m.converge(ps)
	}
	a, err := m.analyse(int64(MaxSeconds * float64(m.rate)))
	if errors.Is(err, errTooLong) {
		return pass{}, fmt.Errorf("the source lasts over %g s, the longest audio mastering takes", MaxSeconds)
	}
	if err != nil {
		return pass{}, err
	}
	m.a = a
	if l := m.p.Loudness; l != nil {
		got := m.loudness(levels{integrated: a.integrated, rms: a.rms})
		if math.IsInf(got, -1) || math.IsNaN(got) {
			return pass{}, errors.New("the source is silent: " + silentBelow(l.Measure))
		}
		ps.gainDB = m.target - got
	}
	return m.converge(ps)
}

// minSlope bounds the correction of a pass: the loudness of a heavily
// limited signal still rises by a tenth of a dB for every dB of gain.
const minSlope = 0.1

// converge renders the output without writing it and corrects the gain
// until its loudness meets the target (see the passes above).
func (m *mastering) converge(ps pass) (pass, error) {
	var prevGain, prevGot float64
	for i := 0; ; i++ {
		if err := m.place(m.a, &ps); err != nil {
			return pass{}, err
		}
		m.lastGain, m.lastTarget = ps.gainDB, m.target
		if m.p.Loudness == nil || i == maxPasses {
			return ps, nil
		}
		lv, err := m.run(ps, nil)
		if err != nil {
			return pass{}, err
		}
		got := m.loudness(lv)
		d := m.target - got
		if math.Abs(d) <= converged {
			return ps, nil
		}
		slope := 1.0 // dB of loudness per dB of gain: 1 until limiting is seen
		if i > 0 && ps.gainDB != prevGain {
			slope = min(max((got-prevGot)/(ps.gainDB-prevGain), minSlope), 1)
		}
		prevGain, prevGot = ps.gainDB, got
		ps.gainDB += d / slope
	}
}

// place bounds the gain and finds the sound the gain keeps.
func (m *mastering) place(a *analysis, ps *pass) error {
	if ps.gainDB > MaxGain {
		return fmt.Errorf("the source is %.1f dB quieter than the loudness target; mastering adds at most %g dB", ps.gainDB, MaxGain)
	}
	start, end, ok := a.sound(ps.gainDB)
	if !ok && !m.p.EncodingOnly() {
		// A profile of an encoding alone (a recording's) takes silence
		// as it is: an IVR pause is silence. Any rule refuses it.
		return fmt.Errorf("the source is silent: no 10 ms window is above %g dBFS at a gain of %.1f dB", threshold, ps.gainDB)
	}
	// Without a head (tail) rule, the source's own silence stays.
	if m.p.Head == nil {
		start = 0
	}
	if m.p.Tail == nil {
		end = a.frames
	}
	ps.start, ps.end = start, end
	if max := m.p.MaxSeconds; max > 0 {
		if s := float64(ps.head+end-start+ps.tail) / float64(m.rate); s > max {
			return fmt.Errorf("the mastered audio would last %.3f s, over the profile's max_duration of %g s", s, max)
		}
	}
	return nil
}

// close removes the kept source.
func (m *mastering) close() {
	if m.kept != nil {
		m.kept.close()
		m.kept = nil
	}
}

// analyse runs the analysis pass over the source and, when reading it
// costs something, keeps what it read for the next passes (a scratch
// file that cannot be made or written is no error: they read the source
// again).
func (m *mastering) analyse(limit int64) (*analysis, error) {
	f, s, costly, err := openSource(m.src, m.raw, m.rate, m.ch)
	if err != nil {
		return nil, err
	}
	var t *tee
	if costly {
		if k, err := newKept(m.tmpDir, s.Channels()); err == nil {
			t = newTee(s, k)
			s = t
		}
	}
	c := newChain(m.ctx, f, s, m.ch)
	defer c.Close()
	a, err := analyse(c, m.rate, limit)
	if t != nil {
		if err == nil && t.finish() == nil {
			m.kept = t.k
		} else {
			t.k.close()
		}
	}
	return a, err
}

// open opens the source for a pass after the analysis.
func (m *mastering) open() (*chain, error) {
	if m.kept != nil {
		return m.kept.open(m.ctx, m.ch), nil
	}
	f, s, _, err := openSource(m.src, m.raw, m.rate, m.ch)
	if err != nil {
		return nil, err
	}
	return newChain(m.ctx, f, s, m.ch), nil
}

// loudness is the figure of lv the profile's loudness rule measures.
func (m *mastering) loudness(lv levels) float64 {
	if m.p.Loudness.Measure == deliver.RMS {
		return lv.rms
	}
	return lv.integrated
}

func padFrames(p *deliver.Pad, rate int) int64 {
	if p == nil {
		return 0
	}
	return int64(math.Round(p.Seconds * float64(rate)))
}

// Seeds of the room tone's generator: fixed, so that the tone is the same
// in every run; the head's and the tail's differ.
const (
	toneSeed = 0x766f78666f726d // "voxform"
	headSeed = 1
	tailSeed = 2
)

// run renders the output of ps and measures it; with w nil nothing is
// written.
func (m *mastering) run(ps pass, w io.Writer) (levels, error) {
	c, err := m.open()
	if err != nil {
		return levels{}, err
	}
	defer c.Close()
	s, err := newSink(m, w)
	if err != nil {
		return levels{}, err
	}
	if err := s.pad(m.p.Head, ps.head, headSeed); err != nil {
		return levels{}, err
	}
	lim := newLimiter(c, fromDB(ps.gainDB), m.ceil, m.truePeak, m.rate)
	if err := s.copy(lim, ps.start, ps.end); err != nil {
		return levels{}, err
	}
	if err := s.pad(m.p.Tail, ps.tail, tailSeed); err != nil {
		return levels{}, err
	}
	return s.levels(), nil
}

// sink measures the output and writes it.
type sink struct {
	m     *mastering
	w     io.Writer
	meter *loudness.Meter
	sumsq float64
	n     int64 // frames
	buf   []float64
	bytes []byte
}

func newSink(m *mastering, w io.Writer) (*sink, error) {
	meter, err := loudness.NewMeter(m.rate, m.ch)
	if err != nil {
		return nil, err
	}
	return &sink{m: m, w: w, meter: meter, buf: make([]float64, 4096*m.ch)}, nil
}

// write takes interleaved frames of the output.
func (s *sink) write(x []float64) error {
	if s.m.p.Loudness != nil && s.m.p.Loudness.Measure == deliver.LUFS {
		s.meter.Write(x)
	}
	for _, v := range x {
		s.sumsq += v * v
	}
	s.n += int64(len(x) / s.m.ch)
	if s.w == nil {
		return nil
	}
	s.bytes = audio.AppendSamples(s.bytes[:0], s.m.format, x)
	_, err := s.w.Write(s.bytes)
	return err
}

// copy writes the frames [start, end) of src.
func (s *sink) copy(src audio.SampleSource, start, end int64) error {
	ch := int64(s.m.ch)
	for at := int64(0); at < end; {
		if err := s.m.ctx.Err(); err != nil {
			return err
		}
		k := min(int64(len(s.buf))/ch, end-at)
		n, err := src.ReadSamples(s.buf[:k*ch])
		got := int64(n) / ch
		if from := max(start-at, 0); from < got {
			if werr := s.write(s.buf[from*ch : got*ch]); werr != nil {
				return werr
			}
		}
		at += got
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pad writes frames of silence, or of room tone at p's Tone dBFS RMS:
// uniform noise from a generator seeded with seed.
func (s *sink) pad(p *deliver.Pad, frames int64, seed uint64) error {
	var rng *rand.Rand
	amp := 0.0
	if p != nil && p.Tone != nil {
		rng = rand.New(rand.NewPCG(toneSeed, seed))
		amp = fromDB(*p.Tone) * math.Sqrt(3) // uniform on [-a, a] has RMS a/sqrt(3)
	}
	ch := int64(s.m.ch)
	for frames > 0 {
		k := min(int64(len(s.buf))/ch, frames)
		x := s.buf[:k*ch]
		for i := range x {
			x[i] = 0
			if rng != nil {
				x[i] = amp * (2*rng.Float64() - 1)
			}
		}
		if err := s.write(x); err != nil {
			return err
		}
		frames -= k
	}
	return nil
}

func (s *sink) levels() levels {
	lv := levels{frames: s.n, integrated: math.Inf(-1), rms: math.Inf(-1)}
	if s.n > 0 {
		lv.rms = dB(math.Sqrt(s.sumsq / float64(s.n*int64(s.m.ch))))
		lv.integrated = s.meter.Loudness().Integrated
	}
	return lv
}

// margin is how far (dB) under the profile's peak ceiling the limiter
// holds the signal, so that what is measured in the delivered file stays
// under it: the quantisation of the codec, the 4x oversampling of the
// limiter against the meter's 192 kHz, and the overshoot of lossy
// encoders (see the package's tests for the figures).
func margin(p *deliver.Profile) float64 {
	tp := p.Peak != nil && p.Peak.Measure == deliver.TruePeak
	switch p.Encoding.Codec {
	case deliver.CodecPCM16, deliver.CodecPCM24:
		if tp {
			return 0.2
		}
		return 0.05
	case deliver.CodecMuLaw, deliver.CodecALaw:
		return 0.4
	}
	return 0.5
}

// silentBelow names the level under which a source has no loudness.
func silentBelow(measure string) string {
	if measure == deliver.LUFS {
		return "its loudness is below the -70 LUFS gate" // BS.1770-4's absolute gate
	}
	return "it is digital silence"
}
