package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// threeHello declares three prompts checked by listening.
const threeHello = `
defaults:
  synthesis:
    listen: {}
voices:
  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  a: { voice: v, text: "नमस्ते", output: out/a.wav }
  b: { voice: v, text: "नमस्ते दोस्तों", output: out/b.wav }
  c: { voice: v, text: "नमस्ते, आप कैसे हैं", output: out/c.wav }
`

// TestApplySharesChecksThroughRemote: an apply pushes its listening
// checks to the remote cache with its outputs, the checks' fingerprints
// announced together (one index segment for them all, not one per
// check); a teammate who shares the remote, not the state, restores the
// outputs and their checks and pays for no check.
func TestApplySharesChecksThroughRemote(t *testing.T) {
	p := newProject(t)
	remote := filepath.Join(t.TempDir(), "remote")
	if err := os.Mkdir(remote, 0o755); err != nil {
		t.Fatal(err)
	}
	m := threeHello + "cache:\n  remote: file://" + remote + "\n"
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "voxform.yaml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	plan, s := p.plan(planner.Options{Cache: planner.CacheOn})
	if sum := p.apply(s, plan); sum.Done != 3 || sum.BilledAudioSeconds == 0 {
		t.Fatalf("apply: %+v", sum)
	}
	// One segment announces the outputs (keeper.announce), one the checks.
	segs, err := os.ReadDir(filepath.Join(remote, "v1", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) > 2 {
		t.Errorf("the apply wrote %d index segments to the remote, want at most 2 (the outputs', the checks')", len(segs))
	}

	c := &project{t: t, ws: workspace.New(t.TempDir()), cl: p.cl, ctx: p.ctx}
	c.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(filepath.Join(c.ws.Dir, "voxform.yaml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	cp, cs := c.plan(planner.Options{Cache: planner.CacheOn})
	var types []string
	for _, a := range cp.Actions {
		types = append(types, string(a.Type))
	}
	sum := c.apply(cs, cp)
	if sum.Done != 3 || sum.Failed != 0 {
		t.Fatalf("teammate's apply (%s): %+v", strings.Join(types, " "), sum)
	}
	if sum.BilledAudioSeconds != 0 || sum.BilledCharacters != 0 {
		t.Errorf("the teammate restored the outputs from the remote (%s) and paid %v s of checks, %d characters", strings.Join(types, " "), sum.BilledAudioSeconds, sum.BilledCharacters)
	}
}
