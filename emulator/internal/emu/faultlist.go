package emu

import (
	"cmp"
	"encoding/json"
	"slices"
)

// MaxSpeechFaultsListed bounds the list of faulted syntheses kept for
// GET /_emulator/speech-faults (each holds up to two texts of MaxText
// characters, so the list holds at most a few tens of megabytes); those
// past it are counted in the stats, not listed.
const MaxSpeechFaultsListed = 2_000

// SpeechFault is one synthesis whose audio carries a speech fault.
type SpeechFault struct {
	Kind string `json:"kind"` // one of SpeechFaultKinds
	// Route is the synthesis route ("POST /api/v1/tts/inference").
	Route string `json:"route"`
	// Requested is the text of the request, tags included; Spoken is
	// what the audio says (tags removed; empty for silence).
	Requested string `json:"requested"`
	Spoken    string `json:"spoken"`
	// Request and Occurrence are SpeechDraw's: which request, and which
	// synthesis of it.
	Request    string `json:"request"`
	Occurrence int    `json:"occurrence"`
	// AudioSHA256 is the SHA-256 of the audio the answer carried, in hex,
	// once it was all sent: the file of the format asked for (the body of
	// an inference, which the chunks of a documented SSE stream join into
	// and the pieces of a live one carry), or the PCM a WebSocket's frames
	// carry. Empty while it is being sent, and when the answer was cut.
	AudioSHA256 string `json:"audio_sha256"`
}

// SpeechFault counts a faulted synthesis and lists it. It returns the
// entry listed, for SpeechFaultSent, or nil past MaxSpeechFaultsListed.
func (s *Stats) SpeechFault(f SpeechFault) *SpeechFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.SpeechFaults[f.Kind]++
	if len(s.faults) >= MaxSpeechFaultsListed {
		s.unlisted++
		return nil
	}
	p := &f
	s.faults = append(s.faults, p)
	return p
}

// SpeechFaultSent records the hash of the audio of a listed fault (f
// from SpeechFault; nil is ignored).
func (s *Stats) SpeechFaultSent(f *SpeechFault, sha256hex string) {
	if f == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f.AudioSHA256 = sha256hex
}

// speechFaultsJSON is the document of GET /_emulator/speech-faults.
type speechFaultsJSON struct {
	// Faults are sorted by requested text, request and occurrence, so
	// that the same requests list alike in any order.
	Faults []SpeechFault `json:"faults"`
	// Unlisted counts the faults past MaxSpeechFaultsListed.
	Unlisted int64 `json:"unlisted"`
}

// SpeechFaultsJSON returns the document of GET /_emulator/speech-faults:
// the faulted syntheses since the start or the last Reset.
func (s *Stats) SpeechFaultsJSON() ([]byte, error) {
	s.mu.Lock()
	doc := speechFaultsJSON{Faults: make([]SpeechFault, len(s.faults)), Unlisted: s.unlisted}
	for i, f := range s.faults {
		doc.Faults[i] = *f
	}
	s.mu.Unlock()
	slices.SortFunc(doc.Faults, func(a, b SpeechFault) int {
		return cmp.Or(cmp.Compare(a.Requested, b.Requested), cmp.Compare(a.Request, b.Request),
			cmp.Compare(a.Occurrence, b.Occurrence))
	})
	return json.Marshal(doc)
}
