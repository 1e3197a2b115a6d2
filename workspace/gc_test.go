package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// chapterYAML declares one synthesis longer than a request takes: it is
// sent in chunks of at most 300 characters, each cached on its own.
const chapterYAML = `
service: { max_text_chars: 300 }
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  chapter:
    voice: v3
    text_file: chapter.txt
    output: out/chapter.wav
`

// chapter is n different Hindi sentences.
func chapter(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "गाँव के पुराने घर क्रमांक%d में आज सुबह से बहुत चहल-पहल थी। ", i)
	}
	return b.String()
}

// TestGCKeepsChunks: cache gc keeps every fingerprint the state
// references, the chunks of a chunked synthesis included (it kept only
// each resource's own, and the next edit paid again for every chunk it
// had removed), and still removes what no state references.
func TestGCKeepsChunks(t *testing.T) {
	p := newProject(t)
	for name, body := range map[string]string{"voxform.yaml": chapterYAML, "chapter.txt": chapter(40)} {
		if err := os.WriteFile(filepath.Join(p.ws.Dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	plan, s := p.plan(planner.Options{Cache: planner.CacheLocal})
	if sum := p.apply(s, plan); sum.Done != 1 {
		t.Fatalf("apply: %+v", sum)
	}
	st, err := p.ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := st.Resources["synthesis.chapter"]
	if r == nil || len(r.Details().Chunks) < 4 {
		t.Fatalf("state: %+v; want a chunked synthesis", r)
	}
	local, err := cache.OpenLocal(p.ws.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	// An entry no state references, to be removed.
	stray := strings.Repeat("ab", 32)
	e := &cache.Entry{Fingerprint: stray, Kind: "synthesis", Files: []cache.File{{Role: "audio", SHA256: r.Outputs[0].SHA256, Size: r.Outputs[0].Size}}}
	if err := local.Store(e, map[string]string{"audio": filepath.Join(p.ws.Dir, "out", "chapter.wav")}); err != nil {
		t.Fatal(err)
	}

	rep, err := p.ws.GC(p.ctx, p.load(), workspace.GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries != 1 || local.Has(stray) {
		t.Errorf("gc removed %d entries (the stray one still there: %v); want the stray one only", rep.Entries, local.Has(stray))
	}
	if !local.Has(r.Fingerprint) {
		t.Error("gc removed the resource's own entry")
	}
	for i, c := range r.Details().Chunks {
		if !local.Has(c.Fingerprint) {
			t.Errorf("gc removed chunk %d of %d, which the state references", i+1, len(r.Details().Chunks))
		}
	}
	// The next plan with the cache finds every chunk: nothing to do.
	plan, s = p.plan(planner.Options{Cache: planner.CacheLocal})
	defer s.Close()
	if plan.HasChanges() {
		t.Errorf("plan after gc: %+v", plan.Actions[0])
	}
}

// TestSavedPlanOfLostChunks: a saved plan that priced an edit by the
// chunks it found cached is refused as stale once they are gone (removed
// by hand, or by a gc that did not keep them), instead of paying for them
// unseen: the plan again prices every chunk the cache lacks.
func TestSavedPlanOfLostChunks(t *testing.T) {
	p := newProject(t)
	text := chapter(40)
	for name, body := range map[string]string{"voxform.yaml": chapterYAML, "chapter.txt": text} {
		if err := os.WriteFile(filepath.Join(p.ws.Dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	opts := planner.Options{Cache: planner.CacheLocal}
	plan, s := p.plan(opts)
	if sum := p.apply(s, plan); sum.Done != 1 {
		t.Fatalf("apply: %+v", sum)
	}
	edited := strings.Replace(text, "क्रमांक21 में आज सुबह", "क्रमांक21 में कल शाम", 1)
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "chapter.txt"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, s = p.plan(opts)
	a := plan.Actions[0]
	if a.Chunks == nil || a.Chunks.Synthesize < 1 || a.Chunks.Synthesize > 2 {
		s.Close()
		t.Fatalf("edit plan: %v %+v; want 1 or 2 chunks billed", a.Reasons, a.Chunks)
	}
	saved := planner.NewSaved(plan, p.load(), nil, nil)
	s.Close()
	if err := os.RemoveAll(filepath.Join(p.ws.CacheDir, "v1", "entries")); err != nil {
		t.Fatal(err)
	}
	s, err := p.ws.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fresh, err := s.Replan(p.ctx, "edit.plan", saved, p.load())
	if !errors.Is(err, planner.ErrStalePlan) {
		if err == nil {
			sum, _ := s.Apply(p.ctx, fresh, executor.Options{Client: p.cl})
			t.Fatalf("the saved plan of %d characters was applied with its chunks gone: %+v", a.Cost.Characters, sum)
		}
		t.Fatalf("replan: %v; want the saved plan refused as stale", err)
	}
}
