package emu

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"sync"
)

// EnvelopeWindow is the length of one envelope window in seconds.
const EnvelopeWindow = 0.02

// Envelope accumulates the energy envelope of mono audio: the RMS of each
// 20 ms window. It survives resampling, mu-law/A-law companding, channel
// downmixing and lossy coding well, so it identifies audio the emulator
// synthesized whatever form it comes back in. Feed it samples in [-1, 1].
type Envelope struct {
	per    int
	n      int
	sum    float64
	values []float32
}

// NewEnvelope returns an envelope builder for audio at rate Hz.
func NewEnvelope(rate int) *Envelope {
	per := int(float64(rate) * EnvelopeWindow)
	if per < 1 {
		per = 1
	}
	return &Envelope{per: per}
}

// Reserve makes room for the windows of samples more samples, so that a
// long rendering's envelope is allocated once instead of regrown.
func (e *Envelope) Reserve(samples int64) {
	e.values = slices.Grow(e.values, int(samples/int64(e.per))+1)
}

// Add feeds one sample.
func (e *Envelope) Add(s float64) {
	e.sum += s * s
	e.n++
	if e.n == e.per {
		e.values = append(e.values, float32(math.Sqrt(e.sum/float64(e.n))))
		e.n, e.sum = 0, 0
	}
}

// Values returns the envelope so far (whole windows only).
func (e *Envelope) Values() []float32 { return e.values }

// Spoken is what the emulator said in a piece of audio it synthesized.
type Spoken struct {
	Text     string // the text spoken, tags removed
	Language string // the synthesis language (may be empty or "auto")
	Seconds  float64
	// Audio identifies the rendering (from its envelope): recognition
	// noise is drawn from it.
	Audio uint64
}

type entry struct {
	env    []float32 // normalized by its peak
	spoken Spoken
	// lead is where its speech begins (SpeechSpan), in windows.
	lead int
}

// Registry remembers the envelopes of synthesized audio, so that a
// transcription of that audio returns the text that was spoken. It lives as
// long as the emulator process.
type Registry struct {
	mu    sync.Mutex
	byLen map[int][]*entry
	// bySpeech indexes the same entries by the length of their speech
	// (SpeechSpan), for LookupSpeech.
	bySpeech map[int][]*entry
	// known holds the hash of every envelope remembered, so that a second
	// rendering of the same audio is recognised at once rather than by
	// comparing it with every envelope of its length (which made
	// remembering n syntheses cost n² comparisons).
	known map[[sha256.Size]byte]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byLen: map[int][]*entry{}, bySpeech: map[int][]*entry{}, known: map[[sha256.Size]byte]bool{}}
}

// Remember records audio's envelope and what it says. An envelope
// remembered already keeps what it first said.
func (r *Registry) Remember(env []float32, s Spoken) {
	if len(env) < 5 {
		return
	}
	norm := normalize(env)
	h := sha256.New()
	var b [4]byte
	for _, v := range norm {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		h.Write(b[:])
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known[key] {
		return
	}
	r.known[key] = true
	s.Audio = binary.BigEndian.Uint64(key[:8])
	lo, hi := SpeechSpan(norm)
	e := &entry{env: norm, spoken: s, lead: lo}
	r.byLen[len(norm)] = append(r.byLen[len(norm)], e)
	if hi > lo {
		r.bySpeech[hi-lo] = append(r.bySpeech[hi-lo], e)
	}
}

// Lookup finds audio whose envelope matches env (lengths within a few
// windows, shapes within a small mean difference).
func (r *Registry) Lookup(env []float32) (Spoken, bool) {
	if len(env) < 5 {
		return Spoken{}, false
	}
	norm := normalize(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	best, bestD := Spoken{}, 0.06
	found := false
	for l := len(norm) - 3; l <= len(norm)+3; l++ {
		for _, e := range r.byLen[l] {
			if d := distance(e.env, norm); d < bestD {
				best, bestD, found = e.spoken, d, true
			}
		}
	}
	return best, found
}

// LookupPrefix finds audio whose envelope begins as env does: a recording
// still streaming in. Each candidate's beginning is compared with env,
// both normalized by their own peak; a candidate shorter than env by more
// than a few windows is not one. It returns what the whole recording says.
func (r *Registry) LookupPrefix(env []float32) (Spoken, bool) {
	if len(env) < 5 {
		return Spoken{}, false
	}
	norm := normalize(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	lens := make([]int, 0, len(r.byLen))
	for l := range r.byLen {
		if l >= len(norm)-3 {
			lens = append(lens, l)
		}
	}
	slices.Sort(lens)
	best, bestD := Spoken{}, 0.06
	found := false
	for _, l := range lens {
		n := min(l, len(norm))
		for _, e := range r.byLen[l] {
			if d := distance(normalize(e.env[:n]), norm); d < bestD {
				best, bestD, found = e.spoken, d, true
			}
		}
	}
	return best, found
}

func normalize(env []float32) []float32 {
	var peak float32
	for _, v := range env {
		peak = max(peak, v)
	}
	out := make([]float32, len(env))
	if peak == 0 {
		return out
	}
	for i, v := range env {
		out[i] = v / peak
	}
	return out
}

// distance is the mean absolute difference over the common prefix, plus a
// penalty for the length difference.
func distance(a, b []float32) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return math.Inf(1)
	}
	var sum float64
	for i := 0; i < n; i++ {
		sum += math.Abs(float64(a[i] - b[i]))
	}
	return sum/float64(n) + 0.01*math.Abs(float64(len(a)-len(b)))
}

// SpeechLevel is the level, relative to an envelope's peak, from which a
// window holds speech.
const SpeechLevel = 0.02

// SpeechSpan returns the windows [lo, hi) of env from its first to its
// last window at SpeechLevel of its peak or above: where its speech
// begins and ends. It is empty (lo == hi) when env is silent.
func SpeechSpan(env []float32) (lo, hi int) {
	var peak float32
	for _, v := range env {
		peak = max(peak, v)
	}
	if peak <= 0 {
		return 0, 0
	}
	level := peak * SpeechLevel
	lo, hi = -1, 0
	for i, v := range env {
		if v >= level {
			if lo < 0 {
				lo = i
			}
			hi = i + 1
		}
	}
	return max(lo, 0), hi
}

// Speech is how a recording shows LookupSpeech the audio around a stretch
// of speech it heard: At(lead, length) returns the recording's envelopes
// of length windows that begin lead windows before that speech begins,
// one for each alignment the recording tries (a recording's windows need
// not line up with those of the audio it holds).
type Speech interface {
	At(lead, length int) [][]float32
}

// LookupSpeech finds remembered audio whose speech (SpeechSpan) is n
// windows long, within a few, and whose whole envelope matches the
// recording's around speech of that length: audio the emulator
// synthesized, heard among other sounds and silences (one turn of a
// conversation on one channel of a call recording).
func (r *Registry) LookupSpeech(n int, around Speech) (Spoken, bool) {
	if n < 1 {
		return Spoken{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	best, bestD := Spoken{}, 0.06
	found := false
	for l := n - 3; l <= n+3; l++ {
		for _, e := range r.bySpeech[l] {
			for _, env := range around.At(e.lead, len(e.env)) {
				if d := distanceBelow(e.env, normalize(env), bestD); d < bestD {
					best, bestD, found = e.spoken, d, true
				}
			}
		}
	}
	return best, found
}

// distanceBelow is distance, giving up (with +Inf) as soon as it cannot
// come out below limit: most candidates are far off, and give up early.
func distanceBelow(a, b []float32, limit float64) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return math.Inf(1)
	}
	penalty := 0.01 * math.Abs(float64(len(a)-len(b)))
	budget := (limit - penalty) * float64(n)
	var sum float64
	for i := 0; i < n; i++ {
		if sum += math.Abs(float64(a[i] - b[i])); sum >= budget {
			return math.Inf(1)
		}
	}
	return sum/float64(n) + penalty
}
