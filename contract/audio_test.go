package contract_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *contract.AudioConfig
		want contract.Format
		// problems as "field:E|W"
		problems string
	}{
		{"defaults", nil, contract.Format{Container: "wav", Encoding: "linear_pcm", SampleRate: 48000, NumChannels: 1, SampleWidth: 2}, ""},
		{"raw+pcm_mulaw is mulaw at 8000", &contract.AudioConfig{Container: "raw", Encoding: "pcm_mulaw", SampleRate: 16000},
			contract.Format{Container: "mulaw", Encoding: "pcm_mulaw", SampleRate: 8000, NumChannels: 1, SampleWidth: 1}, "sample_rate:W"},
		{"raw+pcm_alaw is alaw", &contract.AudioConfig{Container: "raw", Encoding: "pcm_alaw"},
			contract.Format{Container: "alaw", Encoding: "pcm_alaw", SampleRate: 8000, NumChannels: 1, SampleWidth: 1}, ""},
		{"raw+oggopus is ogg", &contract.AudioConfig{Container: "raw", Encoding: "oggopus", SampleRate: 24000},
			contract.Format{Container: "ogg", SampleRate: 24000, NumChannels: 1, SampleWidth: 2}, ""},
		{"ogg+oggopus is ogg", &contract.AudioConfig{Container: "ogg", Encoding: "oggopus"},
			contract.Format{Container: "ogg", SampleRate: 48000, NumChannels: 1, SampleWidth: 2}, ""},
		{"mp3 default bitrate", &contract.AudioConfig{Container: "mp3"},
			contract.Format{Container: "mp3", SampleRate: 48000, NumChannels: 1, SampleWidth: 2, Bitrate: "128k"}, ""},
		{"bitrate outside mp3 is unused", &contract.AudioConfig{Container: "wav", Bitrate: "64k"},
			contract.Format{Container: "wav", Encoding: "linear_pcm", SampleRate: 48000, NumChannels: 1, SampleWidth: 2}, "bitrate:W"},
		{"linear_pcm with ogg is ignored", &contract.AudioConfig{Container: "ogg", Encoding: "linear_pcm"},
			contract.Format{Container: "ogg", SampleRate: 48000, NumChannels: 1, SampleWidth: 2}, "encoding:W"},
		{"encoding with mp3 is ignored", &contract.AudioConfig{Container: "mp3", Encoding: "pcm_s16le"},
			contract.Format{Container: "mp3", SampleRate: 48000, NumChannels: 1, SampleWidth: 2, Bitrate: "128k"}, "encoding:W"},
		{"wav+pcm_mulaw is undocumented", &contract.AudioConfig{Container: "wav", Encoding: "pcm_mulaw"},
			contract.Format{Container: "wav", Encoding: "pcm_mulaw", SampleRate: 48000, NumChannels: 1, SampleWidth: 2}, "encoding:E"},
		{"pcm_s16le is 16-bit", &contract.AudioConfig{Container: "raw", Encoding: "pcm_s16le", SampleWidth: 3},
			contract.Format{Container: "raw", Encoding: "pcm_s16le", SampleRate: 48000, NumChannels: 1, SampleWidth: 3}, "sample_width:E"},
		{"mp3 holds two channels", &contract.AudioConfig{Container: "mp3", NumChannels: 3},
			contract.Format{Container: "mp3", SampleRate: 48000, NumChannels: 3, SampleWidth: 2, Bitrate: "128k"}, "num_channels:E"},
		{"unsupported rate", &contract.AudioConfig{SampleRate: 11025},
			contract.Format{Container: "wav", Encoding: "linear_pcm", SampleRate: 11025, NumChannels: 1, SampleWidth: 2}, "sample_rate:E"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ps := contract.Resolve(tc.in)
			if got != tc.want {
				t.Errorf("format %+v, want %+v", got, tc.want)
			}
			var sum []string
			for _, p := range ps {
				sev := "E"
				if p.Severity == contract.Warning {
					sev = "W"
				}
				sum = append(sum, p.Field+":"+sev)
			}
			if strings.Join(sum, ",") != tc.problems {
				t.Errorf("problems %v (%+v), want %s", sum, ps, tc.problems)
			}
		})
	}
}

// Two spellings of one output resolve to one canonical form (one
// fingerprint), and the wire form resolves back to the same format.
func TestCanonicalAndWireAgree(t *testing.T) {
	pairs := [][2]*contract.AudioConfig{
		{{Container: "raw", Encoding: "pcm_mulaw"}, {Container: "mulaw", SampleRate: 8000}},
		{{Container: "ogg", Encoding: "oggopus"}, {Container: "raw", Encoding: "oggopus"}},
		{nil, {Container: "wav", SampleRate: 48000, NumChannels: 1, SampleWidth: 2, Encoding: "linear_pcm"}},
		{{Container: "mp3"}, {Container: "mp3", Bitrate: "128k"}},
	}
	for _, p := range pairs {
		a, _ := contract.Resolve(p[0])
		b, _ := contract.Resolve(p[1])
		if !reflect.DeepEqual(a.Canonical(), b.Canonical()) {
			t.Errorf("%+v and %+v: canonical %v != %v", p[0], p[1], a.Canonical(), b.Canonical())
		}
		back, ps := contract.Resolve(a.Wire())
		if back != a || len(ps) != 0 {
			t.Errorf("wire %+v resolves to %+v %v, want %+v", a.Wire(), back, ps, a)
		}
	}
}

// TestModelRequest: each model is sent what it takes, and nothing else.
// conformance: TTS-009, TTS-010
func TestModelRequest(t *testing.T) {
	format, _ := contract.Resolve(nil)
	fast := 1.1
	for _, tc := range []struct {
		model, voice, language string
		speed                  *float64
		want                   contract.SynthesisRequest
	}{
		{"tts-v2.0", "Kaveri", "", nil, contract.SynthesisRequest{Model: "tts-v2.0", Voice: "Kaveri", Language: "IND-IN"}},
		{"tts-v2.5", "Kaveri", "hi-IN", nil, contract.SynthesisRequest{Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", Speed: 1.0}},
		{"tts-v3.0", "Shivani", "hi-IN", &fast, contract.SynthesisRequest{Model: "tts-v3.0", Voice: "Shivani", Language: "hi-IN", Speed: 1.1}},
		{"vc-v1", "Kaveri", "hi-IN", &fast, contract.SynthesisRequest{Model: "vc-v1"}},
		// A model the manifest's catalog: block declares follows tts-v2.5.
		{"tts-v9", "Asha", "hi-IN", nil, contract.SynthesisRequest{Model: "tts-v9", Voice: "Asha", Language: "hi-IN", Speed: 1.0}},
	} {
		got := contract.SynthesisModel(tc.model).Request("नमस्ते", tc.voice, tc.language, tc.speed, format)
		tc.want.Text, tc.want.AudioConfig = "नमस्ते", format.Wire()
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.model, *got, tc.want)
		}
	}
}
