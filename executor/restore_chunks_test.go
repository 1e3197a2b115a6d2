package executor_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
)

// A chunk's cached audio is joined into a repaired output only when it
// is the audio the state records for that chunk: an entry rewritten to
// hold another chunk's audio under the same fingerprint is refused, no
// output is written, and the state keeps its record.
func TestJoinRefusesChunkUnlikeTheState(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{
		"main.yaml":   chapterManifest + "    cues: { vtt: out/chapter.vtt }\n",
		"chapter.txt": hindiChapter(12),
	})
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	rec := h.state().Resources["synthesis.chapter"]
	if rec == nil || len(rec.Details().Chunks) < 2 {
		t.Fatalf("state: %+v; want a chunked synthesis", rec)
	}
	entry := func(fp string) string {
		return filepath.Join(h.dir, executor.ChunkDir, "v1", "entries", fp[:2], fp+".json")
	}
	var first, second cache.Entry
	for fp, e := range map[string]*cache.Entry{rec.Details().Chunks[0].Fingerprint: &first, rec.Details().Chunks[1].Fingerprint: &second} {
		b, err := os.ReadFile(entry(fp))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, e); err != nil {
			t.Fatal(err)
		}
	}
	first.Files = second.Files
	b, _ := json.Marshal(&first)
	if err := os.WriteFile(entry(first.Fingerprint), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"out/chapter.wav", "out/chapter.vtt"} {
		if err := os.Remove(filepath.Join(h.dir, o)); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(h.dir, "voxform.state.json"))
	if a := chapterAction(h); a == nil || a.Type != planner.Repair {
		t.Fatalf("plan: %+v; want a repair", a)
	}
	s := h.apply()
	if s.Failed != 1 || !strings.Contains(s.Failures[0].Err.Error(), "is not the recorded one") {
		t.Fatalf("apply: %+v; want the join refused", s)
	}
	for _, o := range []string{"out/chapter.wav", "out/chapter.vtt"} {
		if _, err := os.Stat(filepath.Join(h.dir, o)); err == nil {
			t.Errorf("%s written from a chunk unlike the state", o)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(h.dir, "voxform.state.json")); !bytes.Equal(before, after) {
		t.Errorf("the state changed:\n%s", after)
	}
}
