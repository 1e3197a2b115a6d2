package deliver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Measures of loudness and of peaks.
const (
	LUFS       = "lufs" // integrated loudness, BS.1770-4
	RMS        = "rms"  // unweighted RMS of every sample, dBFS
	TruePeak   = "true" // dBTP, 4x oversampled
	SamplePeak = "sample"
)

// Containers and codecs a profile may ask for.
const (
	ContainerWAV = "wav"
	ContainerMP3 = "mp3"
	ContainerMP4 = "mp4" // AAC in MPEG-4 (.m4a)
	ContainerOgg = "ogg" // Opus in Ogg

	CodecPCM16 = "pcm_s16le"
	CodecPCM24 = "pcm_s24le"
	CodecMuLaw = "pcm_mulaw"
	CodecALaw  = "pcm_alaw"
	CodecMP3   = "mp3"
	CodecAAC   = "aac"
	CodecOpus  = "opus"

	CBR = "cbr"
	VBR = "vbr"
)

// HeadTailThreshold is the level below which audio counts as silence (or
// room tone) at the head and tail of a file: a 10 ms window whose RMS is
// under -50 dBFS.
const HeadTailThreshold = -50.0

// Level is a loudness rule: Target is what mastering aims at; Min and
// Max bound what passes.
type Level struct {
	Measure string  `json:"measure"` // LUFS or RMS
	Target  float64 `json:"target"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// Ceiling is a peak rule: no peak above Max.
type Ceiling struct {
	Measure string  `json:"measure"` // TruePeak or SamplePeak
	Max     float64 `json:"max"`
}

// Pad is a head or tail rule: mastering leaves exactly Seconds of
// silence (or room tone) there; Min and Max bound what passes. Tone,
// when set, is the RMS level in dBFS of the room tone laid there (a
// deterministic noise); nil is digital silence.
type Pad struct {
	Seconds float64  `json:"seconds"`
	Min     float64  `json:"min"`
	Max     float64  `json:"max"`
	Tone    *float64 `json:"tone,omitempty"`
}

// Encoding is the format a profile delivers in.
type Encoding struct {
	Container   string `json:"container"`
	Codec       string `json:"codec"`
	SampleRate  int    `json:"sample_rate"`
	Channels    int    `json:"channels"`               // 1 or 2
	BitrateMode string `json:"bitrate_mode,omitempty"` // CBR or VBR; empty for PCM
	Bitrate     int    `json:"bitrate,omitempty"`      // bits per second; 0 for PCM
}

// Profile is a delivery profile. Every rule but Encoding is optional
// (nil or zero: not a rule).
type Profile struct {
	// Name is the built-in's or the manifest's name for the profile. It
	// is not part of the fingerprint: two names for the same rules
	// deliver the same bytes.
	Name       string   `json:"-"`
	Encoding   Encoding `json:"encoding"`
	Loudness   *Level   `json:"loudness,omitempty"`
	Peak       *Ceiling `json:"peak,omitempty"`
	NoiseFloor *float64 `json:"noise_floor,omitempty"`
	Head       *Pad     `json:"head,omitempty"`
	Tail       *Pad     `json:"tail,omitempty"`
	MaxSeconds float64  `json:"max_seconds,omitempty"`
	MaxBytes   int64    `json:"max_bytes,omitempty"`
	// Source says where a built-in's rules come from, for the README and
	// verify's output; empty for a custom profile.
	Source string `json:"-"`
}

// EncodingOnly reports whether the profile has no rule but its encoding:
// no loudness, peak, noise floor, pad, duration or size rule.
func (p *Profile) EncodingOnly() bool {
	return p.Loudness == nil && p.Peak == nil && p.NoiseFloor == nil && p.Head == nil && p.Tail == nil && p.MaxSeconds == 0 && p.MaxBytes == 0
}

// Canonical is the profile's rules as canonical JSON (fields in a fixed
// order, no name, no source): what a delivered output's fingerprint
// covers.
func (p *Profile) Canonical() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		panic(fmt.Sprintf("deliver: canonical profile: %v", err)) // only numbers and strings
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Extension is the file extension (without the dot) of the profile's
// container: wav, mp3, m4a or ogg.
func (p *Profile) Extension() string {
	switch p.Encoding.Container {
	case ContainerMP4:
		return "m4a"
	case "":
		return "wav"
	}
	return p.Encoding.Container
}

// NeedsEncoder reports whether the profile's codec is encoded by the
// outside encoder (audio/encode) rather than by voxform itself (PCM,
// mu-law and A-law WAV).
func (p *Profile) NeedsEncoder() bool {
	switch p.Encoding.Codec {
	case CodecMP3, CodecAAC, CodecOpus:
		return true
	}
	return false
}

// Clone returns a deep copy of p, for a custom profile built on a
// built-in.
func (p *Profile) Clone() *Profile {
	c := *p
	if p.Loudness != nil {
		l := *p.Loudness
		c.Loudness = &l
	}
	if p.Peak != nil {
		k := *p.Peak
		c.Peak = &k
	}
	if p.NoiseFloor != nil {
		n := *p.NoiseFloor
		c.NoiseFloor = &n
	}
	c.Head, c.Tail = clonePad(p.Head), clonePad(p.Tail)
	return &c
}

func clonePad(p *Pad) *Pad {
	if p == nil {
		return nil
	}
	c := *p
	if p.Tone != nil {
		t := *p.Tone
		c.Tone = &t
	}
	return &c
}

// Builtin returns a copy of the built-in profile called name, or nil.
func Builtin(name string) *Profile {
	mk, ok := builtins[name]
	if !ok {
		return nil
	}
	p := mk()
	p.Name = name
	return p
}

// BuiltinNames lists the built-in profiles, sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func f(v float64) *float64 { return &v }

// builtins make the built-in profiles. Each rule's source is in Source
// (and in the README's "Delivering" section).
var builtins = map[string]func() *Profile{
	"acx": func() *Profile {
		return &Profile{
			Encoding:   Encoding{Container: ContainerMP3, Codec: CodecMP3, SampleRate: 44100, Channels: 1, BitrateMode: CBR, Bitrate: 192000},
			Loudness:   &Level{Measure: RMS, Target: -20, Min: -23, Max: -18},
			Peak:       &Ceiling{Measure: SamplePeak, Max: -3},
			NoiseFloor: f(-60),
			Head:       &Pad{Seconds: 0.75, Min: 0.5, Max: 1},
			Tail:       &Pad{Seconds: 2, Min: 1, Max: 5},
			MaxSeconds: 120 * 60,
			Source:     "ACX Audio Submission Requirements: MP3 at 44.1 kHz, CBR of 192 kbps or more, RMS -23 to -18 dB, peaks at most -3 dB, noise floor at most -60 dB RMS, 0.5-1 s of room tone at the head and 1-5 s at the tail, at most 120 minutes a file, all files mono or all stereo",
		}
	},
	"podcast": func() *Profile {
		return &Profile{
			Encoding: Encoding{Container: ContainerMP3, Codec: CodecMP3, SampleRate: 44100, Channels: 1, BitrateMode: CBR, Bitrate: 128000},
			Loudness: &Level{Measure: LUFS, Target: -16, Min: -17, Max: -15},
			Peak:     &Ceiling{Measure: TruePeak, Max: -1},
			Source:   "Apple Podcasts and Spotify loudness guidance: -16 LUFS within 1 LU, true peak at most -1 dBTP; MP3 at 44.1 kHz, 128 kbps CBR",
		}
	},
	"broadcast": func() *Profile {
		return &Profile{
			Encoding: Encoding{Container: ContainerWAV, Codec: CodecPCM24, SampleRate: 48000, Channels: 1},
			Loudness: &Level{Measure: LUFS, Target: -23, Min: -23.5, Max: -22.5},
			Peak:     &Ceiling{Measure: TruePeak, Max: -1},
			Source:   "EBU R128 (2020) and EBU Tech 3343: -23 LUFS (within 0.5 LU for file-based programmes), true peak at most -1 dBTP; 48 kHz 24-bit PCM WAV (EBU Tech 3285)",
		}
	},
	"telephony": telephony,
	"amazon-connect": func() *Profile {
		p := telephony()
		p.MaxSeconds = 5 * 60
		p.MaxBytes = 50 * 1000 * 1000
		p.Source = "Amazon Connect prompt requirements: 8 kHz mono mu-law in WAV, less than 5 minutes and 50 MB"
		return p
	},
}

// telephony is the format every IVR platform takes: 8 kHz mono G.711
// mu-law in a WAV header, peaks kept under full scale (mu-law clips).
func telephony() *Profile {
	return &Profile{
		Encoding: Encoding{Container: ContainerWAV, Codec: CodecMuLaw, SampleRate: 8000, Channels: 1},
		Peak:     &Ceiling{Measure: SamplePeak, Max: -1},
		Source:   "Amazon Connect, Cisco Unified CCX, Avaya Experience Portal and Genesys Cloud prompt formats: 8 kHz, mono, 8-bit G.711 mu-law in a WAV (RIFF) header",
	}
}
