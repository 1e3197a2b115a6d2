package e2e_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestLiveNamesAreTheDocumentedOnes: the live-voices example, applied with
// the live names, is the same work as the same manifest written with the
// documents' names, under either profile: it plans no change, and an
// apply calls nothing.
func TestLiveNamesAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	// The example is written for the live service: it runs against the
	// live profile in both passes of the suite.
	e := startEmulator(t, emulator.Options{Seed: 7, Profile: "live"})
	p := newProject(t, "live-voices", e)
	p.env = append(p.env, "VOXFORM_PROFILE=live")
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	before := e.stats(t).calls()
	editFile(t, p.path("main.yaml"), "model: timbre-v2.5, voice: Asmita", "model: tts-v2.5, voice: Asmita")
	editFile(t, p.path("main.yaml"), "model: timbre-v2.5, voice: Suhana", "model: tts-v2.5, voice: Suhana")
	p.assertNoChanges()
	// The documents' profile, and Opus as the documents write it: the same
	// work again (the voices beyond the documents' five examples are known
	// to both profiles).
	editFile(t, p.path("main.yaml"), "audio_config: { container: raw, encoding: oggopus }", "audio_config: { container: ogg, encoding: oggopus }")
	withProfile := *p
	withProfile.env = append(slices.Clone(p.env), "VOXFORM_PROFILE=documented")
	withProfile.assertNoChanges()
	editFile(t, p.path("main.yaml"), "audio_config: { container: ogg, encoding: oggopus }", "audio_config: { container: raw, encoding: oggopus }")
	p.assertNoChanges()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if after := e.stats(t).calls(); after != before {
		t.Errorf("the same work under other names made %d calls", after-before)
	}
	if b, err := os.ReadFile(p.path("build/ta/welcome.opus")); err != nil || !strings.HasPrefix(string(b), "OggS") {
		t.Errorf("build/ta/welcome.opus is not an Ogg file: %v", err)
	}
}
