package contract_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/deliver"
)

// TestRecordingConversion: which recordings become a declared format by
// a copy, a lossless conversion, a lossy one (refused unless convert:
// true) or not at all.
func TestRecordingConversion(t *testing.T) {
	wav := func(rate, ch, bits int, codec string) audio.Info {
		return audio.Info{Container: audio.ContainerWAV, Codec: codec, SampleRate: rate, Channels: ch, BitsPerSample: bits}
	}
	resolve := func(c contract.AudioConfig) contract.Format {
		f, _ := contract.Resolve(&c)
		return f
	}
	tests := []struct {
		name  string
		info  audio.Info
		to    contract.AudioConfig
		copy  bool
		lossy string // "" lossless; "-" refused whatever convert says
	}{
		{"the declared WAV", wav(16000, 1, 16, "pcm"), contract.AudioConfig{SampleRate: 16000}, true, ""},
		{"WAV to raw", wav(16000, 1, 16, "pcm"), contract.AudioConfig{Container: "raw", SampleRate: 16000}, false, ""},
		{"wider", wav(16000, 2, 16, "pcm"), contract.AudioConfig{SampleRate: 16000, NumChannels: 2, SampleWidth: 3}, false, ""},
		{"8-bit to 16-bit", wav(8000, 1, 8, "pcm"), contract.AudioConfig{SampleRate: 8000}, false, ""},
		{"mu-law WAV to raw mu-law", wav(8000, 1, 8, "mulaw"), contract.AudioConfig{Container: "mulaw"}, false, ""},
		{"mu-law to 16-bit", wav(8000, 1, 8, "mulaw"), contract.AudioConfig{SampleRate: 8000}, false, ""},
		{"narrower", wav(16000, 1, 24, "pcm"), contract.AudioConfig{SampleRate: 16000}, false, "24-bit pcm to 16-bit pcm"},
		{"float", wav(16000, 1, 32, "float"), contract.AudioConfig{SampleRate: 16000}, false, "32-bit float to 16-bit pcm"},
		{"rate", wav(48000, 1, 16, "pcm"), contract.AudioConfig{SampleRate: 16000}, false, "sample rate change (48000 Hz to 16000 Hz)"},
		{"channels", wav(16000, 2, 16, "pcm"), contract.AudioConfig{SampleRate: 16000}, false, "channel change (2 to 1)"},
		{"G.711 encode", wav(8000, 1, 16, "pcm"), contract.AudioConfig{Container: "alaw"}, false, "G.711 (alaw)"},
		{"an MP3 for mp3", audio.Info{Container: audio.ContainerMP3, Codec: "mp3"}, contract.AudioConfig{Container: "mp3"}, true, ""},
		{"a WAV for mp3", wav(16000, 1, 16, "pcm"), contract.AudioConfig{Container: "mp3"}, false, "MP3 encoding"},
		{"a WAV for ogg", wav(48000, 2, 24, "pcm"), contract.AudioConfig{Container: "ogg"}, false, "Ogg Opus encoding"},
		{"an Ogg for mp3", audio.Info{Container: audio.ContainerOgg, Codec: "opus"}, contract.AudioConfig{Container: "mp3"}, false, "-"},
		{"an MP3 for wav", audio.Info{Container: audio.ContainerMP3, Codec: "mp3"}, contract.AudioConfig{}, false, "-"},
	}
	for _, tc := range tests {
		f := resolve(tc.to)
		c, err := contract.RecordingConversion(tc.info, f)
		switch {
		case tc.lossy == "-":
			if err == nil {
				t.Errorf("%s: converted (%+v), want refused", tc.name, c)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
			continue
		case c.Copy != tc.copy || (tc.lossy == "") != (c.Lossy == "") || !strings.Contains(c.Lossy, tc.lossy):
			t.Errorf("%s: %+v, want copy %v, lossy %q", tc.name, c, tc.copy, tc.lossy)
		}
		if encoded := !tc.copy && (f.Container == "mp3" || f.Container == "ogg"); (c.Encode == f.Container) != encoded {
			t.Errorf("%s: encode %q, want an encoding to %s: %v", tc.name, c.Encode, f.Container, encoded)
		}
		_, err = contract.CheckRecording(tc.info, f, false)
		if (err != nil) != (tc.lossy != "") {
			t.Errorf("%s: CheckRecording without convert: %v", tc.name, err)
		}
		if _, err := contract.CheckRecording(tc.info, f, true); err != nil {
			t.Errorf("%s: CheckRecording with convert: %v", tc.name, err)
		}
	}
}

// TestRecordingProfile: a recording is encoded to an mp3 output at its
// declared bit rate, rate and channels, of constant bit rate; to an ogg
// output as Opus at 48000 Hz whatever the declared rate, at libopus's
// default bit rate for its channels; each profile has no rule but its
// encoding and is one mastering takes.
func TestRecordingProfile(t *testing.T) {
	for _, tc := range []struct {
		cfg  contract.AudioConfig
		want deliver.Encoding
	}{
		{contract.AudioConfig{Container: "mp3", SampleRate: 16000, Bitrate: "64k"},
			deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 16000, Channels: 1, BitrateMode: "cbr", Bitrate: 64000}},
		{contract.AudioConfig{Container: "ogg", SampleRate: 22050, NumChannels: 2},
			deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 2, BitrateMode: "vbr", Bitrate: 96000}},
		{contract.AudioConfig{Container: "ogg", SampleRate: 8000},
			deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 1, BitrateMode: "vbr", Bitrate: 64000}},
	} {
		f, _ := contract.Resolve(&tc.cfg)
		p := contract.RecordingProfile(f)
		if p.Encoding != tc.want || p.Loudness != nil || p.Peak != nil || p.Head != nil || p.Tail != nil || p.MaxSeconds != 0 {
			t.Errorf("%+v: %+v, want the encoding %+v alone", tc.cfg, p, tc.want)
		}
		if ps := deliver.Validate(p); len(ps) != 0 {
			t.Errorf("%+v: mastering refuses the profile: %v", tc.cfg, ps)
		}
	}
}
