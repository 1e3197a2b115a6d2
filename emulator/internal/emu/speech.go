package emu

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// Speech fault kinds, as the stats and GET /_emulator/speech-faults name
// them (Options.TruncateRate and the rates after it).
const (
	FaultTruncate = "truncate"
	FaultReplace  = "replace"
	FaultSilence  = "silence"
	FaultDropHalf = "drop_half"
)

// SpeechFaultKinds are the speech fault kinds in the order a draw tries
// them.
var SpeechFaultKinds = []string{FaultTruncate, FaultReplace, FaultSilence, FaultDropHalf}

func (o Options) speechRates() []float64 {
	return []float64{o.TruncateRate, o.ReplaceRate, o.SilenceRate, o.DropHalfRate}
}

// CheckSpeechFaults refuses a speech fault or noise rate outside 0 to 1,
// and speech fault rates that add up to more than 1.
func (o Options) CheckSpeechFaults() error {
	var sum float64
	for i, r := range o.speechRates() {
		if !(r >= 0 && r <= 1) { // NaN too
			return fmt.Errorf("%s rate %v: must be between 0 and 1", SpeechFaultKinds[i], r)
		}
		sum += r
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("speech fault rates add up to %v: must not exceed 1", sum)
	}
	if !(o.NoiseRate >= 0 && o.NoiseRate <= 1) {
		return fmt.Errorf("recognition noise rate %v: must be between 0 and 1", o.NoiseRate)
	}
	return nil
}

// speechCounts is how many times each request was synthesized.
type speechCounts struct {
	mu sync.Mutex
	n  map[[sha256.Size]byte]int
}

// SpeechDraw is the speech fault drawn for one synthesis.
type SpeechDraw struct {
	// Kind is one of SpeechFaultKinds, empty for none.
	Kind string
	// Request names the request: the start of its hash, in hex.
	Request string
	// Occurrence is 1 for the first synthesis of the request, 2 for the
	// second, and so on.
	Occurrence int
	// Rand makes the fault's own choices (which words).
	Rand *rand.Rand
}

// ResetSpeech forgets how many times each request was synthesized, as
// POST /_emulator/reset does: the same requests then fault as they did
// on a fresh emulator.
func (e *Env) ResetSpeech() {
	e.speech.mu.Lock()
	e.speech.n = nil
	e.speech.mu.Unlock()
}

// DrawSpeechFault draws the speech fault of one synthesis of request:
// everything that makes its audio (text, model, voice, format...), written
// the same way each time. The draw depends on Seed, request and how many
// syntheses of request came before, never on other requests, so that the
// same requests fault alike in any order and a repeated request draws
// afresh. With every speech fault rate 0 it draws nothing and counts
// nothing.
func (e *Env) DrawSpeechFault(request string) SpeechDraw {
	rates := e.Opts.speechRates()
	var total float64
	for _, r := range rates {
		total += r
	}
	if total <= 0 {
		return SpeechDraw{}
	}
	key := sha256.Sum256([]byte(request))
	e.speech.mu.Lock()
	if e.speech.n == nil {
		e.speech.n = map[[sha256.Size]byte]int{}
	}
	n := e.speech.n[key]
	e.speech.n[key] = n + 1
	e.speech.mu.Unlock()

	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], e.Opts.Seed)
	binary.BigEndian.PutUint64(b[8:], uint64(n))
	h := sha256.New()
	h.Write(b[:8])
	h.Write(key[:])
	h.Write(b[8:])
	sum := h.Sum(nil)
	d := SpeechDraw{Request: hex.EncodeToString(key[:8]), Occurrence: n + 1,
		Rand: rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[8:]), binary.BigEndian.Uint64(sum[16:])))}
	u := float64(binary.BigEndian.Uint64(sum)>>11) / (1 << 53)
	for i, r := range rates {
		if u < r {
			d.Kind = SpeechFaultKinds[i]
			break
		}
		u -= r
	}
	return d
}

// Hear is what recognition makes of speech the emulator synthesized: its
// text with each word misheard at Opts.NoiseRate, replaced by a word of
// its script. A misheard word stands alone (the word after it is heard
// right), so that noise is never a run of wrong words, as a replaced run
// (FaultReplace) is. The draws come from Seed and the audio
// (Spoken.Audio), so that the same audio is always heard alike.
func (e *Env) Hear(s Spoken) Spoken {
	if e.Opts.NoiseRate <= 0 || s.Text == "" {
		return s
	}
	rng := rand.New(rand.NewPCG(e.Opts.Seed, s.Audio))
	words := strings.Fields(s.Text)
	misheard := false
	for i, w := range words {
		roll := rng.Float64()
		if misheard = roll < e.Opts.NoiseRate && !misheard; misheard {
			words[i] = Substitute(w, rng)
		}
	}
	s.Text = strings.Join(words, " ")
	return s
}
