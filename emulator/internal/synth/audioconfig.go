package synth

import (
	"slices"
)

// audio resolves audio_config (speech-synthesis.md, "audio_config", "Audio
// format reference", "Encoding aliases"). An omitted audio_config gives the
// documented defaults: wav, 48000 Hz, mono, 16-bit (SPEC section 8a).
func (j *job) audio(raw rawRequest) error {
	f := outFormat{Container: "wav", Rate: 48000, Channels: 1, Width: 2, Bitrate: "128k"}
	c := raw.AudioConfig
	if c == nil {
		j.Format = f
		return nil
	}
	encoding := "linear_pcm"
	if c.Encoding != nil {
		if !slices.Contains(encodings, *c.Encoding) {
			return invalid("audio_config.encoding %q is not one of linear_pcm, pcm_s16le, pcm_mulaw, pcm_alaw, oggopus", *c.Encoding)
		}
		encoding = *c.Encoding
	}
	if c.Container != nil {
		if !slices.Contains(containers, *c.Container) {
			return invalid("audio_config.container %q is not one of wav, raw, mp3, ogg, mulaw, alaw", *c.Container)
		}
		if j.live && *c.Container == "ogg" {
			// The live service's Opus is container raw with encoding
			// oggopus (an Ogg Opus file all the same).
			return invalid("audio_config.container ogg is not supported: for Opus send container raw with encoding oggopus")
		}
		f.Container = *c.Container
	}
	if err := resolveAlias(&f, encoding); err != nil {
		return err
	}
	if c.SampleRate != nil {
		r := *c.SampleRate
		if r < 8000 || r > 48000 {
			return invalid("audio_config.sample_rate %d is out of range 8000 to 48000", r)
		}
		if !slices.Contains(sampleRates, r) {
			return invalid("audio_config.sample_rate %d is not supported: use 8000, 16000, 22050, 24000, 44100 or 48000", r)
		}
		f.Rate = r
	}
	if c.NumChannels != nil {
		if n := *c.NumChannels; n < 1 || n > 8 {
			return invalid("audio_config.num_channels %d is out of range 1 to 8", n)
		}
		f.Channels = *c.NumChannels
	}
	if c.SampleWidth != nil {
		if n := *c.SampleWidth; n < 1 || n > 4 {
			return invalid("audio_config.sample_width %d is out of range 1 to 4", n)
		}
		f.Width = *c.SampleWidth
	}
	if c.Bitrate != nil {
		if !slices.Contains(bitrates, *c.Bitrate) {
			return invalid("audio_config.bitrate %q is not one of 32k, 64k, 96k, 128k, 192k", *c.Bitrate)
		}
		f.Bitrate = *c.Bitrate // used only by mp3; accepted and ignored otherwise
	}
	return j.finishFormat(f, encoding)
}

// resolveAlias folds the encoding aliases into the container.
func resolveAlias(f *outFormat, encoding string) error {
	switch {
	case encoding == "pcm_mulaw" && (f.Container == "raw" || f.Container == "mulaw"):
		f.Container = "mulaw"
	case encoding == "pcm_alaw" && (f.Container == "raw" || f.Container == "alaw"):
		f.Container = "alaw"
	case encoding == "oggopus" && (f.Container == "raw" || f.Container == "ogg"):
		f.Container = "ogg"
	case encoding == "pcm_mulaw", encoding == "pcm_alaw", encoding == "oggopus":
		if f.Container != "mp3" {
			return invalid("audio_config.encoding %s does not fit container %s", encoding, f.Container)
		}
	}
	return nil
}

// finishFormat applies the container's own rules.
func (j *job) finishFormat(f outFormat, encoding string) error {
	switch f.Container {
	case "mulaw", "alaw":
		f.Rate, f.Width = 8000, 1 // forced (Rules)
	case "mp3":
		if f.Channels > 2 {
			return invalid("audio_config.num_channels %d: mp3 carries at most 2 channels", f.Channels)
		}
		f.Width = 2
	case "ogg":
		f.Width = 2
	case "wav", "raw":
		if encoding == "pcm_s16le" && f.Width != 2 {
			return invalid("audio_config.encoding pcm_s16le needs sample_width 2, not %d", f.Width)
		}
	}
	j.Format = f
	return nil
}
