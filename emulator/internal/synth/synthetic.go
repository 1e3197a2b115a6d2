package synth

import (
	"hash/fnv"
	"io"
	"math"
	"unicode"
	"unicode/utf8"
)

// The synthetic voice: a deterministic waveform whose energy envelope
// follows the text, one short voiced unit per character, so that different
// texts have different envelopes (and the emulator's recognition half can
// tell them apart). Used when espeak-ng is absent or disabled.

const (
	charSeconds  = 0.065 // a letter at speed 1.0
	markSeconds  = 0.025 // a combining mark (matra, virama)
	spaceSeconds = 0.045
	punctSeconds = 0.16
	pauseSeconds = 0.35 // <pauses>
	eventSeconds = 0.45 // <laugh>, <sigh>, ...
)

// unit is a stretch of synthetic sound.
type unit struct {
	n     int64   // samples
	amp   float64 // peak amplitude
	f0    float64 // voice pitch, Hz
	f1    float64 // a formant, Hz
	noise float64 // breathiness, 0..1
	pulse float64 // tremolo rate in Hz (laughter), 0: none
}

// style is the delivery a tag sets (rule 1: from the tag to the next one).
type style struct {
	amp, pitch, dur, noise, pulse float64
}

var neutral = style{amp: 1, pitch: 1, dur: 1}

var styles = map[string]style{
	"whispers":      {amp: 0.35, pitch: 1, dur: 1.05, noise: 0.8},
	"shouting":      {amp: 1.45, pitch: 1.15, dur: 1, noise: 0.1},
	"excited":       {amp: 1.2, pitch: 1.25, dur: 0.9},
	"slow":          {amp: 1, pitch: 0.95, dur: 1.35},
	"laugh":         {amp: 1.1, pitch: 1.1, dur: 1, pulse: 6},
	"giggle":        {amp: 0.9, pitch: 1.3, dur: 0.95, pulse: 9},
	"sigh":          {amp: 0.8, pitch: 0.9, dur: 1.1, noise: 0.4},
	"exhales":       {amp: 0.8, pitch: 0.95, dur: 1.05, noise: 0.4},
	"sniffles":      {amp: 0.85, pitch: 1, dur: 1, noise: 0.3, pulse: 3},
	"yawns":         {amp: 0.8, pitch: 0.85, dur: 1.2, noise: 0.3},
	"coughs":        {amp: 0.9, pitch: 0.9, dur: 1, noise: 0.5},
	"clears throat": {amp: 0.9, pitch: 0.9, dur: 1, noise: 0.5},
}

// voiceIdentity is what makes one voice differ from another.
func voiceIdentity(j *job) (f0, formant float64) {
	h := hash64(j.Model + "\x00" + j.Voice + "\x00" + j.Embedding)
	return 100 + float64(h%150), float64((h>>8)%400) - 200
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// unitPlan walks the synthetic units of a job at rate Hz one at a time, so
// that a long text is never laid out whole in memory.
type unitPlan struct {
	j           *job
	rate        float64
	f0, formant float64
	st          style
	part        int // index in j.Parts
	off         int // byte offset in the part's text
}

func newUnitPlan(j *job, rate int) *unitPlan {
	f0, formant := voiceIdentity(j)
	return &unitPlan{j: j, rate: float64(rate), f0: f0, formant: formant, st: neutral}
}

// next returns the next unit that has samples, or false at the end.
func (p *unitPlan) next() (unit, bool) {
	for p.part < len(p.j.Parts) {
		pt := p.j.Parts[p.part]
		if pt.Tag != "" {
			p.part++
			var u unit
			var seconds float64
			switch tags[pt.Tag] {
			case tagSilence:
				seconds = pauseSeconds
			case tagEvent:
				p.st = styles[pt.Tag]
				seconds, u = eventSeconds, unit{amp: 0.6, f0: p.f0 * 1.2, f1: 900, noise: 0.6, pulse: 7}
			case tagStyle:
				p.st = styles[pt.Tag]
			}
			if u, ok := p.sized(seconds, u); ok {
				return u, true
			}
			continue
		}
		if p.off >= len(pt.Text) {
			p.part, p.off = p.part+1, 0
			continue
		}
		r, size := utf8.DecodeRuneInString(pt.Text[p.off:])
		p.off += size
		if u, ok := p.sized(charUnit(r, p.st, p.f0, p.formant)); ok {
			return u, true
		}
	}
	return unit{}, false
}

// sized gives u the samples of seconds at the job's speed.
func (p *unitPlan) sized(seconds float64, u unit) (unit, bool) {
	u.n = int64(seconds / p.j.Speed * p.rate)
	return u, u.n > 0
}

// planTotal is the exact number of samples of j at rate Hz.
func planTotal(j *job, rate int) int64 {
	p := newUnitPlan(j, rate)
	var total int64
	for u, ok := p.next(); ok; u, ok = p.next() {
		total += u.n
	}
	return total
}

// charUnit is the sound of one character in a style.
func charUnit(r rune, st style, f0, formant float64) (float64, unit) {
	h := hash64(string(r))
	switch {
	case unicode.IsSpace(r):
		return spaceSeconds * st.dur, unit{amp: 0.02}
	case unicode.IsPunct(r) || unicode.IsSymbol(r):
		return punctSeconds * st.dur, unit{}
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		return markSeconds * st.dur, unit{amp: 0.2 * st.amp, f0: f0 * st.pitch, f1: 500 + formant, noise: st.noise}
	}
	amp := (0.25 + 0.6*float64(h&0xff)/255) * st.amp
	f1 := 300 + float64((h>>8)%2200) + formant
	return charSeconds * st.dur, unit{amp: amp, f0: f0 * st.pitch * (0.9 + 0.2*float64((h>>20)&0xff)/255), f1: f1, noise: st.noise, pulse: st.pulse}
}

// synthetic streams the units as 16-bit mono samples. Phases are 32-bit
// fixed point (2^32 is one cycle) read through a sine table, so that a
// sample costs a few nanoseconds: the emulator must answer thousands of
// short syntheses a second.
type synthetic struct {
	plan  *unitPlan
	u     unit // the unit being read
	more  bool // u is valid
	rate  float64
	pos   int64 // samples of u already read
	ph0   uint32
	ph1   uint32
	rng   uint64
	total int64
}

func newSynthetic(j *job, rate int) *synthetic {
	s := &synthetic{plan: newUnitPlan(j, rate), rate: float64(rate), total: planTotal(j, rate), rng: hash64(j.Text) | 1}
	s.u, s.more = s.plan.next()
	return s
}

// Total is the exact number of samples.
func (s *synthetic) Total() int64 { return s.total }

// Read fills p with samples.
func (s *synthetic) Read(p []int16) (int, error) {
	n := 0
	for n < len(p) && s.more {
		u := &s.u
		k := int(min(int64(len(p)-n), u.n-s.pos))
		if u.amp == 0 {
			clear(p[n : n+k])
		} else {
			s.fill(p[n:n+k], u)
		}
		n += k
		s.pos += int64(k)
		if s.pos == u.n {
			s.pos = 0
			s.u, s.more = s.plan.next()
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

const cycle = 1 << 32 // one cycle of a fixed-point phase

// fill renders samples pos..pos+len(out) of unit u.
func (s *synthetic) fill(out []int16, u *unit) {
	inc0 := uint32(u.f0 / s.rate * cycle)
	inc1 := uint32(u.f1 / s.rate * cycle)
	// A raised-cosine ramp of up to 5 ms at both ends avoids clicks.
	ramp := min(int64(s.rate*0.005), u.n/2)
	scale := u.amp * 0.7 * 32767
	var pulseInc uint32
	if u.pulse > 0 {
		pulseInc = uint32(u.pulse / s.rate * cycle)
	}
	pulsePh := uint32(float64(s.pos) * u.pulse / s.rate * cycle)
	pos := s.pos
	for i := range out {
		s.ph0 += inc0
		s.ph1 += inc1
		v := 0.6*sineTable[s.ph0>>20] + 0.25*sineTable[(2*s.ph0)>>20] + 0.15*sineTable[s.ph1>>20]
		if u.noise > 0 {
			s.rng ^= s.rng << 13
			s.rng ^= s.rng >> 7
			s.rng ^= s.rng << 17
			nz := float64(int64(s.rng>>11))/float64(1<<52) - 1
			v = (1-u.noise)*v + u.noise*nz
		}
		g := scale
		if pos < ramp {
			g *= rampGain(pos, ramp)
		} else if u.n-pos <= ramp {
			g *= rampGain(u.n-pos, ramp)
		}
		if pulseInc != 0 {
			g *= 0.55 + 0.45*sineTable[pulsePh>>20]
			pulsePh += pulseInc
		}
		out[i] = int16(max(-32767, min(32767, v*g)))
		pos++
	}
}

// rampGain is the raised cosine 0.5-0.5*cos(pi*k/ramp) = sin^2(pi*k/(2*ramp)).
func rampGain(k, ramp int64) float64 {
	x := sineTable[(k*1024/ramp)&4095]
	return x * x
}

// sineTable holds one cycle of a sine in 4096 steps.
var sineTable = func() []float64 {
	t := make([]float64, 4096)
	for i := range t {
		t[i] = math.Sin(2 * math.Pi * float64(i) / 4096)
	}
	return t
}()
