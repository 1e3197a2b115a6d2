package planner_test

import (
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// TestProfileSpellingKeepsFingerprint: switching the service profile, or
// spelling a model the live way, changes what is sent and not the
// fingerprint: nothing is replaced and nothing billed again.
func TestProfileSpellingKeepsFingerprint(t *testing.T) {
	build := func(profile contract.Profile, model, container, encoding string) *planner.Desired {
		t.Helper()
		s := &manifest.Synthesis{Name: "s", Address: "synthesis.s", Model: contract.CanonicalModel(model), VoiceName: "Asmita",
			Language: "ta-IN", Text: "வணக்கம்", Output: "a.opus",
			AudioConfig: &manifest.AudioConfig{Container: container, Encoding: encoding}}
		ds, err := planner.Build(&manifest.Manifest{Service: manifest.Service{Profile: profile}, Syntheses: []*manifest.Synthesis{s}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ds[0]
	}
	live := build(contract.ProfileLive, "timbre-v2.5", "raw", "oggopus")
	doc := build(contract.ProfileDocumented, "tts-v2.5", "ogg", "")
	if live.Fingerprint != doc.Fingerprint {
		t.Errorf("fingerprints differ: live %s, documented %s", live.Fingerprint, doc.Fingerprint)
	}
	if w := live.Wire.Synthesis; w.Model != "timbre-v2.5" || w.AudioConfig.Container != "raw" || w.AudioConfig.Encoding != "oggopus" {
		t.Errorf("live wire: %+v %+v", w, w.AudioConfig)
	}
	if w := doc.Wire.Synthesis; w.Model != "tts-v2.5" || w.AudioConfig.Container != "ogg" {
		t.Errorf("documented wire: %+v %+v", w, w.AudioConfig)
	}
}
