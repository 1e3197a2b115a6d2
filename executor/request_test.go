package executor

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// TestSynthesisRequestAlwaysCarriesAudioConfig: the machine-readable schema
// lists audio_config as required, and what the service does without it is
// not documented, so a synthesis whose manifest sets no audio_config sends
// the documented defaults; one that sets it sends it resolved (every field
// its container uses, the defaults filled in), as planned. All four models
// are sent, although the schema's enum lists only two (the prose lists
// four).
//
// conformance: TTS-006, TTS-018, TTS-021, TTS-024, TTS-026, TTS-029
func TestSynthesisRequestAlwaysCarriesAudioConfig(t *testing.T) {
	op := &synthesisOp{files: &outputs{}}
	body := func(s *manifest.Synthesis) map[string]any {
		t.Helper()
		s.Name, s.Address = "s", "synthesis.s"
		// The documents' rules: the documented profile.
		doc := &manifest.Manifest{Service: manifest.Service{Profile: contract.ProfileDocumented}, Syntheses: []*manifest.Synthesis{s}}
		ds, err := planner.Build(doc, nil)
		if err != nil {
			t.Fatal(err)
		}
		req, err := op.request(&planner.Action{Desired: ds[0]})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, model := range []string{"tts-v2.0", "tts-v2.5", "tts-v3.0"} {
		got := body(&manifest.Synthesis{Model: model, VoiceName: "Kaveri", Text: "hello"})
		want := map[string]any{"container": "wav", "encoding": "linear_pcm", "sample_rate": 48000.0, "num_channels": 1.0, "sample_width": 2.0}
		if d := cmp.Diff(want, got["audio_config"]); d != "" {
			t.Errorf("%s without audio_config sends (-want +got):\n%s", model, d)
		}
		if got["model"] != model {
			t.Errorf("model %v, want %s", got["model"], model)
		}
	}
	got := body(&manifest.Synthesis{Model: "tts-v2.5", VoiceName: "Kaveri", Text: "hello", AudioConfig: &manifest.AudioConfig{Container: "mp3", Bitrate: "64k"}})
	if d := cmp.Diff(map[string]any{"container": "mp3", "bitrate": "64k", "sample_rate": 48000.0, "num_channels": 1.0}, got["audio_config"]); d != "" {
		t.Errorf("an explicit audio_config is sent resolved (-want +got):\n%s", d)
	}
}
