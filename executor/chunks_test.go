package executor_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/planner"
)

// chapterManifest declares one tts-v3.0 synthesis of chapter.txt, sent in
// requests of at most 300 characters.
const chapterManifest = `
version: 1
service: { max_text_chars: 300 }
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  chapter:
    voice: v3
    text_file: chapter.txt
    output: out/chapter.wav
`

// hindiChapter is n different Hindi sentences, with an audio tag now and
// then.
func hindiChapter(n int) string {
	var b strings.Builder
	for i := range n {
		if i%10 == 3 {
			b.WriteString("<whispers> ")
		}
		fmt.Fprintf(&b, "गाँव के %s घर में आज सुबह से बहुत चहल-पहल थी। ", strings.Repeat("पुराने ", i%4+1)+"क्रमांक"+fmt.Sprint(i))
		if i%12 == 11 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// isSynthesis reports whether req is a synthesis call.
func isSynthesis(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.Contains(req.URL.Path, "tts") && !strings.Contains(req.URL.Path, "embedding")
}

// TestChunkedApplyStopsAndResumes: a chapter over the request maximum is
// synthesized chunk by chunk; an apply stopped after a few chunks keeps
// them, so that the next apply bills only the rest (the two together
// bill the chapter exactly once); the joined output holds every chunk's
// audio in order; a one-sentence edit bills at most the two chunks
// around it; a last apply does nothing.
func TestChunkedApplyStopsAndResumes(t *testing.T) {
	text := hindiChapter(60)
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": text})
	p, _, done := h.plan()
	done()
	a := p.Actions[0]
	chunks := a.Desired.Details().Chunks
	if a.Type != planner.Create || len(chunks) < 8 || a.Chunks == nil || a.Chunks.Synthesize != len(chunks) {
		t.Fatalf("plan: %s %v %+v; want a create of every chunk", a.Type, a.Reasons, a.Chunks)
	}
	total := a.Cost.Characters

	// Stop once three chunk requests have been sent: the chunks in
	// flight finish and are kept; no other starts.
	stop := make(chan struct{})
	var sent atomic.Int32
	var once sync.Once
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if isSynthesis(req) && sent.Add(1) == 3 {
			once.Do(func() { close(stop) })
		}
		return next.RoundTrip(req)
	}
	s := h.applyWith(func(o *executor.Options) { o.Stop = stop; o.Parallelism = 1 })
	h.hook = nil
	if s.Done != 0 {
		t.Fatalf("stopped apply: %+v; want the chapter unfinished", s)
	}
	first := int64(h.counter("billed_characters"))
	if first == 0 || first >= total {
		t.Fatalf("stopped apply billed %d of %d characters", first, total)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out/chapter.wav")); err == nil {
		t.Fatal("a stopped apply left the output in place")
	}

	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("second apply: %+v", s)
	}
	if got := int64(h.counter("billed_characters")); got != total {
		t.Errorf("the two applies billed %d characters, the chapter %d: a kept chunk was paid again, or one was not paid", got, total)
	}
	rec := h.state().Resources["synthesis.chapter"]
	if rec == nil || len(rec.Details().Chunks) != len(chunks) {
		t.Fatalf("state records %v chunks, want %d", rec, len(chunks))
	}
	// The output is every chunk's audio, in order.
	var want int64
	for _, c := range rec.Details().Chunks {
		b, err := os.ReadFile(blobPath(h.dir, c.SHA256))
		if err != nil {
			t.Fatal(err)
		}
		_, data, err := audio.ParseWAV(b)
		if err != nil {
			t.Fatal(err)
		}
		want += int64(len(data))
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "out/chapter.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if _, data, err := audio.ParseWAV(b); err != nil || int64(len(data)) != want {
		t.Errorf("output holds %d bytes of audio (%v), the chunks %d", len(data), err, want)
	}

	// One sentence edited: at most the two chunks around it are billed.
	edited := strings.Replace(text, "क्रमांक31 घर में आज सुबह", "क्रमांक31 घर में कल शाम", 1)
	if edited == text {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(filepath.Join(h.dir, "chapter.txt"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, done = h.plan()
	done()
	if a = p.Actions[0]; a.Type != planner.Replace || a.Chunks.Synthesize < 1 || a.Chunks.Synthesize > 2 {
		t.Fatalf("edit plan: %s %v; want a replace of 1 or 2 chunks", a.Type, a.Reasons)
	}
	before := int64(h.counter("billed_characters"))
	if s := h.apply(); s.Done != 1 || s.BilledCharacters != a.Cost.Characters {
		t.Fatalf("edit apply: %+v; want %d characters billed", s, a.Cost.Characters)
	}
	if got := int64(h.counter("billed_characters")) - before; got != a.Cost.Characters {
		t.Errorf("the edit billed %d characters, planned %d", got, a.Cost.Characters)
	}
	if p, _, done = h.plan(); p.HasChanges() {
		t.Errorf("plan after the edit's apply: %v", p.Actions[0].Reasons)
	}
	done()
}

// blobPath is where the chunk store of a manifest directory without an
// output cache keeps the blob sha.
func blobPath(dir, sha string) string {
	return filepath.Join(dir, executor.ChunkDir, "v1", "blobs", sha[:2], sha)
}

// TestChunksNeverBilledUnpriced: a plan prices only the chunks its store
// lacks; chunks it found there and that are gone by the apply (a cache gc,
// a cleared store) are not paid for unseen: that resource fails before
// any call, naming both figures, and bills nothing. The next plan prices
// every chunk the store lacks, and its apply bills exactly that.
func TestChunksNeverBilledUnpriced(t *testing.T) {
	text := hindiChapter(40)
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": text})
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("first apply: %+v", s)
	}
	edited := strings.Replace(text, "क्रमांक21 घर में आज सुबह", "क्रमांक21 घर में कल शाम", 1)
	if err := os.WriteFile(filepath.Join(h.dir, "chapter.txt"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	p, rec, done := h.plan()
	a := p.Actions[0]
	if a.Type != planner.Replace || a.Chunks.Synthesize < 1 || a.Chunks.Synthesize > 2 {
		done()
		t.Fatalf("edit plan: %s %v; want a replace of 1 or 2 chunks", a.Type, a.Reasons)
	}
	priced := a.Cost.Characters
	// The store loses its chunks between the plan and the apply.
	if err := os.RemoveAll(filepath.Join(h.dir, executor.ChunkDir, "v1", "entries")); err != nil {
		t.Fatal(err)
	}
	before := int64(h.counter("billed_characters"))
	var failed []string
	s, err := executor.Apply(t.Context(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec,
		Events: func(e executor.Event) {
			if e.Kind == executor.EventFailed {
				failed = append(failed, e.Err.Error())
			}
		}})
	done()
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(h.counter("billed_characters")) - before; got > priced {
		t.Fatalf("apply billed %d characters, the plan priced %d", got, priced)
	}
	if s.Failed != 1 || len(failed) != 1 || !strings.Contains(failed[0], "plan priced "+numfmt.Thousands(priced)) ||
		!strings.Contains(failed[0], "plan again") {
		t.Fatalf("apply: %+v %q; want the chapter failed, naming the priced %d characters", s, failed, priced)
	}

	// The next plan prices every chunk the store lacks; its apply bills
	// that, and nothing is left.
	p, _, done = h.plan()
	done()
	if a = p.Actions[0]; a.Chunks.Synthesize != len(a.Desired.Details().Chunks) || a.Cost.Characters != a.Desired.Characters {
		t.Fatalf("plan after the loss: %v %+v cost %d; want every chunk priced (%d)", a.Reasons, a.Chunks, a.Cost.Characters, a.Desired.Characters)
	}
	before = int64(h.counter("billed_characters"))
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("apply after planning again: %+v", s)
	}
	if got := int64(h.counter("billed_characters")) - before; got != a.Cost.Characters {
		t.Errorf("apply billed %d characters, the plan priced %d", got, a.Cost.Characters)
	}
}
