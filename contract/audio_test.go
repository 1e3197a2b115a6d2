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
		for _, prof := range contract.Profiles {
			w := prof.Wire(a)
			back, ps := contract.Resolve(w)
			if back != a || len(ps) != 0 {
				t.Errorf("%s wire %+v resolves to %+v %v, want %+v", prof, w, back, ps, a)
			}
			if prof == contract.ProfileLive && w.Container == "ogg" {
				t.Errorf("live wire %+v: the live service refuses container ogg", w)
			}
		}
	}
}

// TestModelRequest: each model is sent what it takes, and nothing else, in
// each profile.
// conformance: TTS-009, TTS-010
func TestModelRequest(t *testing.T) {
	format, _ := contract.Resolve(nil)
	opus, _ := contract.Resolve(&contract.AudioConfig{Container: "ogg"})
	fast := 1.1
	doc, live := contract.ProfileDocumented, contract.ProfileLive
	for _, tc := range []struct {
		profile                contract.Profile
		model, voice, language string
		speed                  *float64
		format                 contract.Format
		want                   contract.SynthesisRequest
	}{
		{doc, "tts-v2.0", "Kaveri", "", nil, format, contract.SynthesisRequest{Model: "tts-v2.0", Voice: "Kaveri", Language: "IND-IN"}},
		{doc, "tts-v2.5", "Kaveri", "hi-IN", nil, format, contract.SynthesisRequest{Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", Speed: 1.0}},
		{doc, "tts-v3.0", "Shivani", "hi-IN", &fast, format, contract.SynthesisRequest{Model: "tts-v3.0", Voice: "Shivani", Language: "hi-IN", Speed: 1.1}},
		{doc, "vc-v1", "Kaveri", "hi-IN", &fast, format, contract.SynthesisRequest{Model: "vc-v1"}},
		// A model the manifest's catalog: block declares follows tts-v2.5.
		{doc, "tts-v9", "Asha", "hi-IN", nil, format, contract.SynthesisRequest{Model: "tts-v9", Voice: "Asha", Language: "hi-IN", Speed: 1.0}},
		{doc, "tts-v2.5", "Kaveri", "hi-IN", nil, opus, contract.SynthesisRequest{Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", Speed: 1.0}},
		// The live service: its model names; language and speed for
		// timbre-v2.5 only; Opus as raw + oggopus.
		{live, "tts-v2.0", "Kaveri", "IND-IN", &fast, format, contract.SynthesisRequest{Model: "timbre-v2.0", Voice: "Kaveri"}},
		{live, "timbre-v2.5", "Asmita", "ta-IN", nil, format, contract.SynthesisRequest{Model: "timbre-v2.5", Voice: "Asmita", Language: "ta-IN", Speed: 1.0}},
		{live, "tts-v2.5", "Asmita", "ta-IN", &fast, opus, contract.SynthesisRequest{Model: "timbre-v2.5", Voice: "Asmita", Language: "ta-IN", Speed: 1.1}},
		{live, "vachana-voice-v3", "Pranav", "", nil, format, contract.SynthesisRequest{Model: "timbre-v2.0", Voice: "Pranav"}},
	} {
		got := tc.profile.SynthesisModel(tc.model).Request(tc.profile, "नमस्ते", tc.voice, tc.language, tc.speed, tc.profile.Wire(tc.format))
		tc.want.Text, tc.want.AudioConfig = "नमस्ते", tc.profile.Wire(tc.format)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: %+v, want %+v", tc.profile, tc.model, got, tc.want)
		}
	}
	if w := live.Wire(opus); w.Container != "raw" || w.Encoding != "oggopus" {
		t.Errorf("live Opus is sent as %+v, want container raw, encoding oggopus", w)
	}
	if w := doc.Wire(opus); w.Container != "ogg" {
		t.Errorf("documented Opus is sent as %+v, want container ogg", w)
	}
}

// TestProfiles: the live catalog knows each voice's language; model
// spellings fold into one name.
func TestProfiles(t *testing.T) {
	live := contract.BuiltinFor(contract.ProfileLive)
	v25 := live.Model("tts-v2.5")
	if len(v25.Voices) != 42 || v25.VoiceLanguages["Asmita"] != "ta-IN" || v25.VoiceLanguages["Suhana"] != "te-IN" || v25.VoiceLanguages["Poorvi"] != "hi-en" {
		t.Errorf("live tts-v2.5: %d voices, %v", len(v25.Voices), v25.VoiceLanguages)
	}
	if got := v25.VoicesOf("kn-IN"); !reflect.DeepEqual(got, []string{"Saanvi", "Kavin"}) {
		t.Errorf("Kannada voices: %v", got)
	}
	// The documents show five of the voices and quote a larger catalog:
	// both profiles know the whole list, the five among them.
	doc := contract.Builtin()
	if d := doc.Model("tts-v2.5"); !reflect.DeepEqual(d.Voices, v25.Voices) || !reflect.DeepEqual(d.VoiceLanguages, v25.VoiceLanguages) {
		t.Errorf("documented tts-v2.5 voices: %v", d.Voices)
	}
	if live.Recognition["realtime"].ITN == doc.Recognition["realtime"].ITN || !live.Recognition["realtime"].ITN {
		t.Errorf("realtime ITN: live %v, documented %v; only the live service takes it", live.Recognition["realtime"].ITN, doc.Recognition["realtime"].ITN)
	}
	for in, want := range map[string]string{"timbre-v2.5": "tts-v2.5", "timbre-v2.0": "tts-v2.0", "vachana-voice-v3": "tts-v2.0", "tts-v3.0": "tts-v3.0", "custom": "custom"} {
		if got := contract.CanonicalModel(in); got != want {
			t.Errorf("CanonicalModel(%s) = %s, want %s", in, got, want)
		}
	}
	if p, err := contract.ParseProfile(""); p != contract.ProfileLive || err != nil {
		t.Errorf("default profile %q %v", p, err)
	}
	if _, err := contract.ParseProfile("staging"); err == nil {
		t.Error("unknown profile accepted")
	}
	if err := contract.ProfileLive.CheckRealtimeRate(44100); err != nil {
		t.Error(err)
	}
	if err := contract.ProfileDocumented.CheckRealtimeRate(44100); err == nil {
		t.Error("documented realtime at 44100 accepted")
	}
}
