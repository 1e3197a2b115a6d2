package executor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/planner"
)

// TestDroppedCueFormatPriced: a synthesis whose cue format is removed from
// the manifest is made again without it, and that work is priced by the
// plan (it was planned free and billed the whole text); its apply bills
// what the plan priced, and nothing is left to do.
func TestDroppedCueFormatPriced(t *testing.T) {
	const both = "    cues: { vtt: out/short.vtt, json: out/short.cues.json }\n"
	m := `
version: 1
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  short:
    voice: v3
    text: "नमस्ते, आज की कहानी छोटी है।"
    output: out/short.wav
` + both
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": m})
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("first apply: %+v", s)
	}
	dropped := strings.Replace(m, both, "    cues: { vtt: out/short.vtt }\n", 1)
	if err := os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(dropped), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, done := h.plan()
	done()
	a := p.Actions[0]
	if a.Type != planner.Repair || a.Cost.Characters != a.Desired.Characters {
		t.Fatalf("plan after a cue format is removed: %s %v cost %d; want a repair priced %d", a.Type, a.Reasons, a.Cost.Characters, a.Desired.Characters)
	}
	before := int64(h.counter("billed_characters"))
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("apply: %+v", s)
	}
	if got := int64(h.counter("billed_characters")) - before; got != a.Cost.Characters {
		t.Errorf("apply billed %d characters, the plan priced %d", got, a.Cost.Characters)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out", "short.cues.json")); err == nil {
		t.Error("the dropped cue file is still there")
	}
	if p, _, done = h.plan(); p.HasChanges() {
		t.Errorf("plan after the apply: %v", p.Actions[0].Reasons)
	}
	done()
}
