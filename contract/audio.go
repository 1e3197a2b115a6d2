package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/voxform/voxform/audio"
)

// Containers (speech-synthesis.md, audio_config).
const (
	WAV   = "wav"
	Raw   = "raw"
	MP3   = "mp3"
	Ogg   = "ogg"
	MuLaw = "mulaw"
	ALaw  = "alaw"
)

// Encodings.
const (
	LinearPCM = "linear_pcm"
	PCMS16LE  = "pcm_s16le"
	PCMMuLaw  = "pcm_mulaw"
	PCMALaw   = "pcm_alaw"
	OggOpus   = "oggopus"
)

// Documented audio_config defaults and bounds.
const (
	DefaultContainer  = WAV
	DefaultEncoding   = LinearPCM
	DefaultSampleRate = 48000
	DefaultChannels   = 1
	DefaultWidth      = 2
	DefaultBitrate    = "128k"
	TelephonyRate     = 8000 // mulaw and alaw override sample_rate to it
	MinSampleRate     = 8000
	MaxSampleRate     = 48000
	MaxChannels       = 8
	MaxSampleWidth    = 4
	MaxMP3Channels    = 2
)

// SampleRates, Encodings and Bitrates are the documented values.
var (
	SampleRates = []int{8000, 16000, 22050, 24000, 44100, 48000}
	Encodings   = []string{LinearPCM, PCMS16LE, PCMMuLaw, PCMALaw, OggOpus}
	Bitrates    = []string{"32k", "64k", "96k", "128k", "192k"}
)

// ContainerInfo is a row of the audio format reference.
type ContainerInfo struct {
	Name        string `json:"name"`
	Encoding    string `json:"encoding,omitempty"` // its own encoding, "" for n/a
	Output      string `json:"output"`
	ContentType string `json:"content_type"`
	ForcedRate  int    `json:"forced_sample_rate,omitempty"` // mulaw, alaw: 8000
	Bitrate     bool   `json:"bitrate"`                      // mp3 only
	// Raw is true for containers voxform can write itself from the raw
	// PCM a WebSocket delivers.
	Raw bool `json:"websocket_ok"`
	// Extensions are the usual file name extensions, the first preferred.
	Extensions []string `json:"extensions"`
}

// Containers is the audio format reference, in its order.
var Containers = []*ContainerInfo{
	{Name: WAV, Encoding: LinearPCM, Output: "WAV file with header", ContentType: "audio/wav", Raw: true, Extensions: []string{".wav", ".wave"}},
	{Name: Raw, Encoding: LinearPCM, Output: "raw 16-bit PCM", ContentType: "application/octet-stream", Raw: true, Extensions: []string{".raw", ".pcm"}},
	{Name: MP3, Output: "MP3 file", ContentType: "audio/mpeg", Bitrate: true, Extensions: []string{".mp3"}},
	{Name: Ogg, Output: "OGG Opus file", ContentType: "audio/ogg", Extensions: []string{".ogg", ".opus"}},
	{Name: MuLaw, Output: "raw G.711 mu-law", ContentType: "audio/basic", ForcedRate: TelephonyRate, Raw: true, Extensions: []string{".ulaw", ".mulaw", ".mu", ".raw", ".pcm"}},
	{Name: ALaw, Output: "raw G.711 A-law", ContentType: "audio/alaw", ForcedRate: TelephonyRate, Raw: true, Extensions: []string{".alaw", ".al", ".raw", ".pcm"}},
}

// Container returns the reference row of a container, or nil.
func Container(name string) *ContainerInfo {
	for _, c := range Containers {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ContainerNames lists the containers.
func ContainerNames() []string {
	out := make([]string, len(Containers))
	for i, c := range Containers {
		out[i] = c.Name
	}
	return out
}

// Alias is a container/encoding pair the documents make equal to another
// container.
type Alias struct {
	Container  string `json:"container"`
	Encoding   string `json:"encoding"`
	Equivalent string `json:"equivalent"`
}

// Aliases are the documented encoding aliases.
var Aliases = []Alias{
	{Raw, PCMMuLaw, MuLaw}, {Raw, PCMALaw, ALaw}, {Raw, OggOpus, Ogg}, {Ogg, OggOpus, Ogg},
}

// AudioConfig is audio_config as sent: zero fields are left out.
type AudioConfig struct {
	SampleRate  int    `json:"sample_rate,omitempty"`
	NumChannels int    `json:"num_channels,omitempty"`
	SampleWidth int    `json:"sample_width,omitempty"`
	Encoding    string `json:"encoding,omitempty"`
	Container   string `json:"container,omitempty"`
	Bitrate     string `json:"bitrate,omitempty"`
}

// Format is the audio a synthesis produces: an AudioConfig resolved by
// Resolve, every field set.
type Format struct {
	Container   string
	Encoding    string // what the container holds: linear_pcm, pcm_mulaw, pcm_alaw, mp3 and ogg: ""
	SampleRate  int
	NumChannels int
	SampleWidth int    // bytes per sample of PCM-like containers
	Bitrate     string // mp3 only
}

// Severity of a Problem.
type Severity int

// Severities.
const (
	Error Severity = iota
	Warning
)

// Problem is a rule of audio_config broken (Error) or a value that has no
// effect (Warning), naming the field it is about.
type Problem struct {
	Field    string // audio_config field: sample_rate, encoding, ...
	Severity Severity
	Message  string
	Hint     string
	// Value and Choices are set when Value is not one of Choices (an
	// unknown encoding, container or bitrate), for a "did you mean".
	Value   string
	Choices []string
}

// Resolve returns the format the service produces for c, and the rules c
// breaks or values it sets to no effect. The documented defaults fill what
// c leaves out (a nil c is all defaults), the encoding aliases fold into
// their container (raw+pcm_mulaw is mulaw, raw+pcm_alaw is alaw, raw or
// ogg + oggopus is ogg), mulaw and alaw are 8000 Hz, and an encoding or a
// bitrate that the container does not use is dropped with a warning. With
// an Error the format is still filled as well as it can be.
func Resolve(c *AudioConfig) (Format, []Problem) {
	var in AudioConfig
	if c != nil {
		in = *c
	}
	var ps []Problem
	add := func(field string, sev Severity, hint, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Severity: sev, Message: fmt.Sprintf(format, args...), Hint: hint})
	}
	f := Format{
		Container: orString(in.Container, DefaultContainer), SampleRate: orInt(in.SampleRate, DefaultSampleRate),
		NumChannels: orInt(in.NumChannels, DefaultChannels), SampleWidth: orInt(in.SampleWidth, DefaultWidth),
	}
	if c != nil && c.SampleRate != 0 && !slices.Contains(SampleRates, c.SampleRate) {
		add("sample_rate", Error, "", "sample_rate %d is not a supported rate (%s)", c.SampleRate, joinInts(SampleRates))
	}
	if f.NumChannels < 1 || f.NumChannels > MaxChannels {
		add("num_channels", Error, "", "num_channels %d is out of range 1 to %d", f.NumChannels, MaxChannels)
	}
	if f.SampleWidth < 1 || f.SampleWidth > MaxSampleWidth {
		add("sample_width", Error, "", "sample_width %d is out of range 1 to %d bytes", f.SampleWidth, MaxSampleWidth)
	}
	unknown := func(field, value string, choices []string) {
		ps = append(ps, Problem{Field: field, Severity: Error, Value: value, Choices: choices,
			Message: fmt.Sprintf("%s %q is not one of %s", field, value, strings.Join(choices, ", "))})
	}
	if in.Encoding != "" && !slices.Contains(Encodings, in.Encoding) {
		unknown("encoding", in.Encoding, Encodings)
		return f, ps
	}
	if Container(f.Container) == nil {
		unknown("container", f.Container, ContainerNames())
		return f, ps
	}
	if in.Bitrate != "" && !slices.Contains(Bitrates, in.Bitrate) {
		unknown("bitrate", in.Bitrate, Bitrates)
	}
	written, aliased := f.Container, false
	for _, al := range Aliases {
		if al.Container == written && al.Encoding == in.Encoding {
			f.Container, aliased = al.Equivalent, true
		}
	}
	info := Container(f.Container)
	switch {
	case in.Encoding == "" || in.Encoding == info.Encoding:
	case f.Container == WAV || f.Container == Raw:
		if in.Encoding != PCMS16LE {
			add("encoding", Error, encodingHint(written), "encoding %s does not go with container %s", in.Encoding, written)
		}
	case aliased:
	default: // mp3, ogg, mulaw, alaw: the container decides (n/a)
		add("encoding", Warning, "remove encoding:; the container decides", "encoding %s is ignored with container %s", in.Encoding, written)
	}
	if in.Encoding == PCMS16LE && c.SampleWidth != 0 && c.SampleWidth != 2 {
		add("sample_width", Error, "", "sample_width %d does not go with encoding pcm_s16le (16-bit, 2 bytes)", c.SampleWidth)
	}
	switch f.Container {
	case WAV, Raw:
		f.Encoding = orString(in.Encoding, LinearPCM)
	case MuLaw:
		f.Encoding, f.SampleWidth = PCMMuLaw, 1
	case ALaw:
		f.Encoding, f.SampleWidth = PCMALaw, 1
	case MP3, Ogg:
		f.SampleWidth = 2
	}
	if info.ForcedRate != 0 {
		if c != nil && c.SampleRate != 0 && c.SampleRate != info.ForcedRate {
			add("sample_rate", Warning, fmt.Sprintf("remove sample_rate:, or set it to %d", info.ForcedRate),
				"sample_rate %d is ignored: %s audio is always %d Hz", c.SampleRate, f.Container, info.ForcedRate)
		}
		f.SampleRate = info.ForcedRate
	}
	if info.Bitrate {
		f.Bitrate = orString(in.Bitrate, DefaultBitrate)
		if f.NumChannels > MaxMP3Channels {
			add("num_channels", Error, "", "num_channels %d: mp3 holds at most %d channels", f.NumChannels, MaxMP3Channels)
		}
	} else if in.Bitrate != "" {
		add("bitrate", Warning, "remove bitrate:", "bitrate %s is used only with container mp3, not %s", in.Bitrate, f.Container)
	}
	return f, ps
}

func encodingHint(container string) string {
	if container == WAV {
		return "wav takes linear_pcm or pcm_s16le; for G.711 use container mulaw or alaw"
	}
	return "raw takes linear_pcm, pcm_s16le, pcm_mulaw, pcm_alaw or oggopus"
}

// Canonical is the format as the fingerprint sees it: only the fields the
// container uses, so that two spellings of one output are one request.
func (f Format) Canonical() map[string]any {
	out := map[string]any{"container": f.Container, "num_channels": f.NumChannels, "sample_rate": f.SampleRate}
	switch f.Container {
	case MP3:
		out["bitrate"] = f.Bitrate
	case WAV, Raw:
		out["sample_width"] = f.SampleWidth
		out["encoding"] = f.Encoding
	}
	return out
}

// Wire is the audio_config voxform sends for f in profile p: every field
// the container uses, spelled as the documents' format reference does. The
// live service takes Ogg Opus only as container raw with encoding oggopus
// (the same bytes; it refuses container ogg): every spelling of Ogg Opus
// resolves to container ogg (Resolve), and the live profile sends it so, as
// it sends a model by its live name (WireModel). The fingerprint is over
// Canonical, the same for every spelling and profile.
func (p Profile) Wire(f Format) *AudioConfig {
	w := &AudioConfig{Container: f.Container, SampleRate: f.SampleRate, NumChannels: f.NumChannels}
	switch f.Container {
	case MP3:
		w.Bitrate = f.Bitrate
	case WAV, Raw:
		w.SampleWidth, w.Encoding = f.SampleWidth, f.Encoding
	case Ogg:
		if p == ProfileLive {
			w.Container, w.Encoding = Raw, OggOpus
		}
	}
	return w
}

// FrameBytes is the size of one frame of a PCM-like format (0 for mp3, ogg).
func (f Format) FrameBytes() int {
	if f.Container == MP3 || f.Container == Ogg {
		return 0
	}
	return f.NumChannels * f.SampleWidth
}

// Headered reports whether the container has a header voxform can check
// (wav, mp3, ogg) rather than being headerless samples.
func (f Format) Headered() bool {
	return f.Container == WAV || f.Container == MP3 || f.Container == Ogg
}

// Audio is the sample format of a headerless f (raw, mulaw, alaw), for
// validating and decoding it.
func (f Format) Audio() (audio.Format, error) {
	a := audio.Format{SampleRate: f.SampleRate, Channels: f.NumChannels, BitsPerSample: 8 * f.SampleWidth, Encoding: audio.PCM}
	switch f.Container {
	case MuLaw:
		a.Encoding, a.BitsPerSample = audio.MuLaw, 8
	case ALaw:
		a.Encoding, a.BitsPerSample = audio.ALaw, 8
	case Raw, WAV:
	default:
		return a, fmt.Errorf("%s audio has no raw sample format", f.Container)
	}
	return a, nil
}

// AudioContainer is the audio package's name of a headered container.
func (f Format) AudioContainer() audio.Container { return audio.Container(f.Container) }

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// SampleRateList is the supported sample rates, as messages list them.
func SampleRateList() string { return joinInts(SampleRates) }

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// RecordedRawFormat is the sample format of headerless audio made with a
// recorded request's audio_config (a decoded JSON object, nil for none:
// the defaults), or nil when that audio has a container of its own.
func RecordedRawFormat(audioConfig map[string]any) (*audio.Format, error) {
	var cfg AudioConfig
	if audioConfig != nil {
		b, err := json.Marshal(audioConfig)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("recorded audio_config: %w", err)
		}
	}
	f, _ := Resolve(&cfg)
	if f.Headered() {
		return nil, nil
	}
	a, err := f.Audio()
	if err != nil {
		return nil, err
	}
	return &a, nil
}
