package schema

import (
	"path"
	"slices"
	"strings"

	"github.com/voxform/voxform/manifest"
)

// outputExt maps a container to the usual extensions of its files.
var outputExt = map[string][]string{
	"wav": {".wav", ".wave"}, "raw": {".raw", ".pcm"}, "mp3": {".mp3"}, "ogg": {".ogg", ".opus"},
	"mulaw": {".ulaw", ".mulaw", ".mu", ".raw", ".pcm"}, "alaw": {".alaw", ".al", ".raw", ".pcm"},
}

func (c *checker) checkSyntheses() {
	voices := map[string]*manifest.Voice{}
	for _, v := range c.m.Voices {
		voices[v.Name] = v
	}
	for _, s := range c.m.Syntheses {
		c.checkSynthesis(s, voices[s.Voice])
	}
}

// checkSynthesis checks one synthesis instance. Messages name values, not
// instances, so that a problem shared by every row of a for_each is
// reported once at its position.
func (c *checker) checkSynthesis(s *manifest.Synthesis, v *manifest.Voice) {
	f := func(n string) manifest.Pos { return at(s.Fields, n, s.Pos) }
	if _, set := s.Fields["voice"]; !set {
		c.ds.Errorf(s.Pos, "synthesis %q has no voice", s.Name).WithHint("name one of the voices: entries")
	}
	if _, set := s.Fields["text"]; !set {
		c.ds.Errorf(s.Pos, "synthesis %q has no text", s.Name)
	}
	if _, set := s.Fields["output"]; !set {
		c.ds.Errorf(s.Pos, "synthesis %q has no output", s.Name).WithHint("set output: to the file to write")
	}
	if !slices.Contains(c.cat.Transports, s.Transport) {
		c.unknownName(f("transport"), "transport", s.Transport, c.cat.Transports, "")
	}
	ac := c.checkAudioConfig(s)
	model := c.cat.Model(s.Model)
	if v == nil || model == nil {
		return // reported with the voice
	}
	if v.Fields != nil {
		if p := f("language"); s.Language != "" && p != at(v.Fields, "language", v.Pos) {
			c.checkLanguage(model, s.Language, p)
		}
		if p := f("speed"); s.Speed != nil && p != at(v.Fields, "speed", v.Pos) {
			c.checkSpeed(model, *s.Speed, p)
		}
	}
	if s.Language == "" && model.LanguageRequired {
		c.ds.Errorf(s.Pos, "synthesis %q needs a language: model %s requires one", s.Name, model.Name).
			WithHint("set language: on voice %q or on the synthesis (%s)", v.Name, strings.Join(model.Languages, ", "))
	}
	if _, set := s.Fields["text"]; set {
		c.checkText(s, model)
	}
	if s.Transport == manifest.TransportWebSocket && ac != nil && !ac.Raw {
		c.ds.Errorf(f("transport"), "transport websocket delivers raw PCM, which voxform cannot turn into %s", ac.Name).
			WithHint("use container wav, raw, mulaw or alaw with websocket, or transport rest or sse for %s", ac.Name)
	}
	if s.Transport == manifest.TransportSSE && ac != nil && ac.Name == "ogg" {
		c.ds.Warnf(f("transport"), "ogg over sse arrives as one chunk at the end (no incremental delivery)")
	}
	if ac != nil && s.Output != "" {
		ext := strings.ToLower(path.Ext(s.Output))
		if exts := outputExt[ac.Name]; ext != "" && !slices.Contains(exts, ext) {
			c.ds.Warnf(f("output"), "output %q has extension %s but the audio is %s", s.Output, ext, ac.Name).
				WithHint("name it with %s", exts[0])
		}
	}
}

// checkAudioConfig checks audio_config and returns the effective
// container (aliases resolved), or nil when it is invalid. mulaw and alaw
// force 8000 Hz: the synthesis's AudioConfig is updated to show it.
// conformance: TTS-019, TTS-020, TTS-022, TTS-025, TTS-027, TTS-028, TTS-030, TTS-032, TTS-033,
// TTS-040, TTS-041, TTS-042, TTS-043, TTS-044, TTS-045
func (c *checker) checkAudioConfig(s *manifest.Synthesis) *Container {
	a := s.AudioConfig
	if a == nil {
		return c.cat.Container(c.cat.Defaults.Container)
	}
	f := func(n string) manifest.Pos {
		return at(s.Fields, "audio_config."+n, at(s.Fields, "audio_config", s.Pos))
	}
	ok := true
	if a.SampleRate != 0 && !slices.Contains(c.cat.SampleRates, a.SampleRate) {
		c.ds.Errorf(f("sample_rate"), "sample_rate %d is not a supported rate (8000, 16000, 22050, 24000, 44100, 48000)", a.SampleRate)
	}
	if _, set := s.Fields["audio_config.num_channels"]; set && (a.NumChannels < 1 || a.NumChannels > c.cat.MaxChannels) {
		c.ds.Errorf(f("num_channels"), "num_channels %d is out of range 1 to %d", a.NumChannels, c.cat.MaxChannels)
	}
	if _, set := s.Fields["audio_config.sample_width"]; set && (a.SampleWidth < 1 || a.SampleWidth > c.cat.MaxSampleWidth) {
		c.ds.Errorf(f("sample_width"), "sample_width %d is out of range 1 to %d bytes", a.SampleWidth, c.cat.MaxSampleWidth)
	}
	if _, set := s.Fields["audio_config.sample_rate"]; set && a.SampleRate == 0 {
		c.ds.Errorf(f("sample_rate"), "sample_rate 0 is not a supported rate (8000, 16000, 22050, 24000, 44100, 48000)")
	}
	if a.Encoding != "" && !slices.Contains(c.cat.Encodings, a.Encoding) {
		c.unknownName(f("encoding"), "encoding", a.Encoding, c.cat.Encodings, "")
		ok = false
	}
	container := a.Container
	if container == "" {
		container = c.cat.Defaults.Container
	}
	if c.cat.Container(container) == nil {
		c.unknownName(f("container"), "container", container, c.cat.ContainerNames(), "")
		return nil
	}
	if a.Bitrate != "" && !slices.Contains(c.cat.Bitrates, a.Bitrate) {
		c.unknownName(f("bitrate"), "bitrate", a.Bitrate, c.cat.Bitrates, "")
	}
	if !ok {
		return nil
	}
	eff, good := c.effectiveContainer(container, a.Encoding)
	if !good {
		c.ds.Errorf(f("encoding"), "encoding %s does not go with container %s", a.Encoding, container).
			WithHint("%s", encodingHint(container))
		return nil
	}
	if a.Encoding != "" && container == "mp3" {
		c.ds.Warnf(f("encoding"), "encoding %s is ignored with container mp3", a.Encoding)
	}
	if a.Bitrate != "" && eff != "mp3" {
		c.ds.Errorf(f("bitrate"), "bitrate %s applies only to container mp3, not %s", a.Bitrate, eff).
			WithHint("remove bitrate:")
	}
	if a.Encoding == "pcm_s16le" && a.SampleWidth != 0 && a.SampleWidth != 2 {
		c.ds.Errorf(f("sample_width"), "sample_width %d does not go with encoding pcm_s16le (16-bit, 2 bytes)", a.SampleWidth)
	}
	if eff == "mp3" && a.NumChannels > 2 {
		c.ds.Errorf(f("num_channels"), "num_channels %d: mp3 holds at most 2 channels", a.NumChannels)
	}
	k := c.cat.Container(eff)
	if k.ForcedRate != 0 {
		if a.SampleRate != 0 && a.SampleRate != k.ForcedRate {
			c.ds.Warnf(f("sample_rate"), "sample_rate %d is ignored: %s audio is always %d Hz", a.SampleRate, eff, k.ForcedRate).
				WithHint("remove sample_rate:, or set it to %d", k.ForcedRate)
		}
		s.AudioConfig = c.forced(a, k.ForcedRate)
	}
	return k
}

// effectiveContainer resolves the documented encoding aliases.
func (c *checker) effectiveContainer(container, encoding string) (string, bool) {
	if encoding == "" {
		return container, true
	}
	for _, al := range c.cat.Aliases {
		if al.Container == container && al.Encoding == encoding {
			return al.Equivalent, true
		}
	}
	switch container {
	case "wav", "raw":
		return container, encoding == "linear_pcm" || encoding == "pcm_s16le"
	case "mp3":
		return container, true
	case "mulaw":
		return container, encoding == "pcm_mulaw"
	case "alaw":
		return container, encoding == "pcm_alaw"
	}
	return container, false
}

func encodingHint(container string) string {
	switch container {
	case "wav":
		return "wav takes linear_pcm or pcm_s16le; for G.711 use container mulaw or alaw"
	case "ogg":
		return "ogg takes oggopus (or no encoding)"
	case "mulaw":
		return "mulaw takes pcm_mulaw (or no encoding)"
	case "alaw":
		return "alaw takes pcm_alaw (or no encoding)"
	}
	return "leave encoding out; container decides"
}

// forced returns a copy of a with the sample rate a container forces; the
// copy is shared by every instance that shares a.
func (c *checker) forced(a *manifest.AudioConfig, rate int) *manifest.AudioConfig {
	if f, ok := c.forcedAC[a]; ok {
		return f
	}
	f := *a
	f.SampleRate = rate
	c.forcedAC[a] = &f
	return &f
}
