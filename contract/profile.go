package contract

import (
	"fmt"
	"slices"
)

// Profile is which service voxform speaks to: the one the service documents
// describe, or the live service as its owner's published client (version
// 0.7.x) speaks to it. They differ in model names on the wire, the Opus
// rule, the realtime recognition protocol and the REST recognition answer.
type Profile string

const (
	// ProfileLive is the live service, the default: a user with only an
	// API key reaches it with working requests.
	ProfileLive Profile = "live"
	// ProfileDocumented is the service as the documents describe it.
	ProfileDocumented Profile = "documented"
)

// DefaultProfile is the profile of a manifest that names none.
const DefaultProfile = ProfileLive

// Profiles lists the profiles.
var Profiles = []Profile{ProfileLive, ProfileDocumented}

// LiveBaseURL is the live service's base URL, the default of the live
// profile (the documents name none).
const LiveBaseURL = "https://api.vachana.ai"

// ParseProfile returns the profile named s ("" is the default).
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return DefaultProfile, nil
	}
	if p := Profile(s); slices.Contains(Profiles, p) {
		return p, nil
	}
	return "", fmt.Errorf("profile %q is not live or documented", s)
}

// liveModelNames are the live names of the documented models (the live
// service accepts only these for them).
var liveModelNames = map[string]string{
	"tts-v2.0": "timbre-v2.0",
	"tts-v2.5": "timbre-v2.5",
}

// modelAliases maps every other spelling of a documented model to its
// documented (canonical) name: the live names, and the live service's
// earlier name of tts-v2.0.
var modelAliases = map[string]string{
	"timbre-v2.0":      "tts-v2.0",
	"timbre-v2.5":      "tts-v2.5",
	"vachana-voice-v3": "tts-v2.0",
}

// CanonicalModel returns the documented name of a synthesis model spelled
// either way ("timbre-v2.5" is "tts-v2.5"); other names are returned as
// they are. Fingerprints are over the canonical name, so that a spelling or
// a profile switched replaces nothing and bills nothing.
func CanonicalModel(name string) string {
	if c, ok := modelAliases[name]; ok {
		return c
	}
	return name
}

// WireModel is the name this profile sends for the canonical model name.
func (p Profile) WireModel(canonical string) string {
	if p == ProfileLive {
		if n, ok := liveModelNames[canonical]; ok {
			return n
		}
	}
	return canonical
}

// ModelSpellings lists the other names a canonical model is known by.
func ModelSpellings(canonical string) []string {
	var out []string
	for alias, c := range modelAliases {
		if c == canonical {
			out = append(out, alias)
		}
	}
	slices.Sort(out)
	return out
}

// RealtimeSampleRates are the rates realtime recognition audio may be sent
// at in this profile (16-bit mono PCM): 16 or 8 kHz as documented; the live
// service also takes 44.1 and 48 kHz.
func (p Profile) RealtimeSampleRates() []int {
	if p == ProfileLive {
		return []int{16000, 8000, 44100, 48000}
	}
	return []int{16000, 8000}
}

// CheckRealtimeRate refuses a realtime recognition sample rate this
// profile's service does not take.
func (p Profile) CheckRealtimeRate(rate int) error {
	rates := p.RealtimeSampleRates()
	if !slices.Contains(rates, rate) {
		return fmt.Errorf("sample_rate %d is not %s (realtime audio is 16-bit mono PCM)", rate, joinOr(rates))
	}
	return nil
}
