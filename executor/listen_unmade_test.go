package executor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
)

// TestListenCheckErrorKeepsPaidTake: a check the recognizer refuses,
// after the take was paid for, keeps the take: it is committed and
// recorded without its check, billed as the service billed it, and the
// apply fails naming the output and the check's error; the next apply
// checks the recorded take and synthesizes nothing.
func TestListenCheckErrorKeepsPaidTake(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": listenPrompts(1, 0)})
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if isCheck(req) {
			return answer(req, 400, ""), nil
		}
		return next.RoundTrip(req)
	}
	s := h.apply()
	if s.Failed != 1 || s.Done != 0 || !strings.Contains(s.Failures[0].Err.Error(), "out/p0.wav: its listening check was not made") {
		t.Fatalf("first apply: %+v; want synthesis.p0 failed, naming its output and the check", s)
	}
	if billed := h.counter("billed_characters"); billed == 0 || float64(s.BilledCharacters) != billed {
		t.Errorf("summary billed %d characters; the service billed %v", s.BilledCharacters, billed)
	}
	r := h.state().Resources["synthesis.p0"]
	if r == nil || len(r.Outputs) == 0 || r.Outputs[0].Listen != nil || r.BilledCharacters == 0 {
		t.Fatalf("state: %+v; want the take recorded, billed, without a check", r)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out", "p0.wav")); err != nil {
		t.Fatalf("the paid take is not in place: %v", err)
	}
	h.hook = nil
	p, _, done := h.plan()
	done()
	if a := p.Action("synthesis.p0"); a == nil || a.Type != planner.Check || a.Cost.AudioSeconds == 0 {
		t.Fatalf("next plan: %+v; want a priced Check action", a)
	}
	s = h.apply()
	if s.Failed != 0 || h.counter("syntheses") != 1 {
		t.Fatalf("second apply: %+v, %v syntheses; want the recorded take checked, nothing synthesized again", s, h.counter("syntheses"))
	}
	if recordedListen(t, h, "synthesis.p0") == nil {
		t.Error("the second apply recorded no check")
	}
}

// TestListenLongGujaratiKeepsTake: Gujarati audio over REST's limit,
// which no recognition the checks use hears: the synthesis is paid once,
// recorded without its check, and never paid again.
func TestListenLongGujaratiKeepsTake(t *testing.T) {
	text := strings.Repeat("ગામના જૂના ઘરમાં આજે સવારથી ઘણી ચહલપહલ હતી, લોકો મેળાની તૈયારી કરી રહ્યા હતા. ", 20)
	m := "version: 1\nvoices:\n  v3: { model: tts-v2.5, voice: Falak, language: gu-IN }\nsyntheses:\n  g:\n    voice: v3\n    listen: {}\n    text: \"" + text + "\"\n    output: out/g.wav\n"
	h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": m})
	s := h.apply()
	if billed := h.counter("billed_characters"); billed == 0 || float64(s.BilledCharacters) != billed {
		t.Errorf("first apply billed %d characters; the service billed %v", s.BilledCharacters, billed)
	}
	if r := h.state().Resources["synthesis.g"]; r == nil || len(r.Outputs) == 0 {
		t.Fatalf("state: %+v; want the take recorded", r)
	}
	h.apply()
	if n := h.counter("syntheses"); n != 1 {
		t.Errorf("the text was synthesized (and billed) %v times", n)
	}
}

// TestListenCorruptCheckDocMadeAgain: a cache entry under a check's
// fingerprint that is not a check document is as none: the check is made
// again, and kept over it.
func TestListenCorruptCheckDocMadeAgain(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": listenPrompts(1, 0)})
	h.apply()
	fp := recordedListen(t, h, "synthesis.p0").Fingerprint
	store, err := cache.OpenLocal(filepath.Join(h.dir, filepath.FromSlash(executor.ChunkDir)))
	if err != nil {
		t.Fatal(err)
	}
	bogus := filepath.Join(t.TempDir(), "x")
	os.WriteFile(bogus, []byte("{}"), 0o644)
	sum := sha256.Sum256([]byte("{}"))
	if err := store.Store(&cache.Entry{Fingerprint: fp, Kind: "synthesis", Files: []cache.File{{Role: "json", SHA256: hex.EncodeToString(sum[:]), Size: 2}}}, map[string]string{"json": bogus}); err != nil {
		t.Fatal(err)
	}
	p, rec, done := h.planWith(planner.Options{Replace: []string{"synthesis.p0"}})
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	done()
	if err != nil || s.Failed != 0 || s.Done != 1 {
		t.Fatalf("replace: %+v, %v; want the check made again", s, err)
	}
	if l := recordedListen(t, h, "synthesis.p0"); l == nil || l.Fingerprint != fp {
		t.Fatalf("recorded check %+v; want one of fingerprint %.12s", l, fp)
	}
	if e, err := store.Entry(fp); err != nil || e == nil || e.Kind != "transcription" {
		t.Errorf("the cache holds %+v (%v) under the check's fingerprint; want the check document", e, err)
	}
}

// chapterWithListen is chapterManifest with listen: spec on the chapter.
func chapterWithListen(spec string) string {
	return strings.Replace(chapterManifest, "    output: out/chapter.wav\n", "    output: out/chapter.wav\n    listen: "+spec+"\n", 1)
}

// TestListenChunkCheckErrorRecordsChapter: listen: added to a recorded
// chapter; a chunk that fails is synthesized again, and the check of its
// new take is refused: the chapter is joined from the store and recorded
// (the new take in it, unchecked), the apply fails naming it, and the
// next apply checks that chunk and succeeds.
func TestListenChunkCheckErrorRecordsChapter(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 5, TruncateRate: 0.4}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": hindiChapter(16)})
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("first apply %+v", s)
	}
	os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(chapterWithListen("{ regenerate: 1 }")), 0o644)
	var mu sync.Mutex
	regenerated := false
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		mu.Lock()
		regenerated = regenerated || isSynthesis(req)
		refuse := regenerated && isCheck(req)
		mu.Unlock()
		if refuse {
			return answer(req, 400, ""), nil
		}
		return next.RoundTrip(req)
	}
	s := h.apply()
	if !regenerated {
		t.Fatal("no chunk failed its check at this seed")
	}
	if s.Failed != 1 || !strings.Contains(s.Failures[0].Err.Error(), "out/chapter.wav: listening checks not made") || s.BilledCharacters == 0 {
		t.Fatalf("check apply: %+v; want the chapter recorded and failing, its new take billed", s)
	}
	unchecked := 0
	for _, c := range h.state().Resources["synthesis.chapter"].Details().Chunks {
		if c.Listen == nil {
			unchecked++
		}
	}
	if unchecked == 0 {
		t.Fatal("every chunk recorded checked; want the new take unchecked")
	}
	h.hook = nil
	synth := h.counter("syntheses")
	if s := h.apply(); s.Failed != 0 || s.Done != 1 || h.counter("syntheses") != synth {
		t.Fatalf("next apply: %+v; want the unchecked chunks checked, nothing synthesized", s)
	}
}

// TestListenRegeneratedChunkAfterInterrupt: an apply cancelled while the
// take of a chunk made again (kept in the chunk store, paid for) is being
// checked leaves the state recording the chunk's old audio: the next
// apply takes the store's audio as the chunk's take, checks it, joins
// the chapter from it and records it, paying no synthesis but what its
// regeneration asks.
func TestListenRegeneratedChunkAfterInterrupt(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 5, TruncateRate: 0.4}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": hindiChapter(16)})
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("first apply %+v", s)
	}
	os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(chapterWithListen("{ regenerate: 1 }")), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	regenerated := false
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		mu.Lock()
		regenerated = regenerated || isSynthesis(req)
		stop := regenerated && isCheck(req)
		mu.Unlock()
		if stop {
			cancel()
			return nil, context.Canceled
		}
		return next.RoundTrip(req)
	}
	before := h.state().Resources["synthesis.chapter"]
	p, rec, done := h.plan()
	s, err := executor.Apply(ctx, p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	done()
	if err != nil || !regenerated {
		t.Fatalf("interrupted apply: %+v, %v (regenerated %v)", s, err, regenerated)
	}
	if after := h.state().Resources["synthesis.chapter"]; after.Details().Chunks[0].Listen != nil || len(after.Details().Chunks) != len(before.Details().Chunks) {
		t.Fatalf("the interrupted apply recorded checks: %+v", after.Details().Chunks[0])
	}
	h.hook = nil
	synth := h.counter("syntheses")
	s = h.apply()
	if s.Failed != 0 || s.Done != 1 || h.counter("syntheses") != synth+float64(s.Takes) {
		t.Fatalf("next apply: %+v, %v syntheses after %v; want the chapter recorded from the store, nothing synthesized but its regeneration", s.Failures, h.counter("syntheses"), synth)
	}
	changed := 0
	for i, c := range h.state().Resources["synthesis.chapter"].Details().Chunks {
		if c.Listen == nil {
			t.Errorf("chunk %d recorded unchecked", i+1)
		}
		if c.SHA256 != before.Details().Chunks[i].SHA256 {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no chunk records the take made again")
	}
	if s := h.apply(); s.Done+s.Failed != 0 {
		t.Errorf("a last apply did work: %+v", s)
	}
}

// TestListenCheckKeepsChapterFile: a Check action of a recorded chapter
// whose chunks are kept as they are writes no new output file.
func TestListenCheckKeepsChapterFile(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": hindiChapter(16)})
	h.apply()
	out := filepath.Join(h.dir, "out", "chapter.wav")
	before, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(chapterWithListen("{}")), 0o644)
	s := h.apply()
	after, err := os.Stat(out)
	if err != nil || s.Done != 1 || s.Takes != 0 {
		t.Fatalf("check apply: %+v, %v", s, err)
	}
	if !os.SameFile(before, after) {
		t.Errorf("a check that made no take replaced %s with a new file", out)
	}
	r := h.state().Resources["synthesis.chapter"]
	for i, c := range r.Details().Chunks {
		if c.Listen == nil || c.End <= c.Start {
			t.Fatalf("chunk %d recorded %+v; want its check and its place", i+1, c)
		}
	}
	if s := h.apply(); s.Done+s.Failed != 0 {
		t.Errorf("a last apply did work: %+v", s)
	}
}

// TestListenLostTakeKeepsLast: a take made again for a failing check
// that the service refuses ends the takes: the take before it, paid for
// and failing, is committed and recorded with its check, billed, and the
// apply fails naming the output and the lost take.
func TestListenLostTakeKeepsLast(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 3, SilenceRate: 1}, map[string]string{"main.yaml": listenPrompts(1, 1)})
	var mu sync.Mutex
	syntheses := 0
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		mu.Lock()
		if isSynthesis(req) {
			syntheses++
		}
		refuse := isSynthesis(req) && syntheses > 1
		mu.Unlock()
		if refuse {
			return answer(req, 400, ""), nil
		}
		return next.RoundTrip(req)
	}
	s := h.apply()
	if s.Failed != 1 || !strings.Contains(s.Failures[0].Err.Error(), "out/p0.wav: its check failed, and take 2:") || s.ListenFailing != 1 {
		t.Fatalf("apply: %+v; want the failing take recorded, the apply failing naming the lost take", s)
	}
	if billed := h.counter("billed_characters"); billed == 0 || float64(s.BilledCharacters) != billed {
		t.Errorf("summary billed %d characters; the service billed %v", s.BilledCharacters, billed)
	}
	if l := recordedListen(t, h, "synthesis.p0"); l == nil || l.Pass {
		t.Errorf("recorded check %+v; want the first take's, failing", l)
	}
}

// TestListenRestoreCheckErrorRecords: a restore without a record whose
// check the recognizer refuses records the restored take without its
// check, and fails naming it; the next apply checks it.
func TestListenRestoreCheckErrorRecords(t *testing.T) {
	dir := t.TempDir()
	m := strings.Replace(listenPrompts(1, 0), "version: 1\n", "version: 1\ncache: { dir: \""+dir+"\" }\n", 1)
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": m})
	local, err := cache.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := applyCached(t, h, local); s.Done != 1 {
		t.Fatalf("first apply: %+v", s)
	}
	fp := recordedListen(t, h, "synthesis.p0").Fingerprint
	for _, p := range []string{"voxform.state.json", "out"} {
		os.RemoveAll(filepath.Join(h.dir, p))
	}
	local.Remove(fp)
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if isCheck(req) {
			return answer(req, 400, ""), nil
		}
		return next.RoundTrip(req)
	}
	s := applyCached(t, h, local)
	if s.Failed != 1 || !strings.Contains(s.Failures[0].Err.Error(), "out/p0.wav: its listening check was not made") {
		t.Fatalf("restore: %+v; want it recorded, failing", s)
	}
	if r := h.state().Resources["synthesis.p0"]; r == nil || r.Outputs[0].Listen != nil {
		t.Fatalf("state %+v; want the restored take recorded unchecked", r)
	}
	h.hook = nil
	if s := applyCached(t, h, local); s.Failed != 0 || s.Done != 1 || recordedListen(t, h, "synthesis.p0") == nil {
		t.Fatalf("next apply: %+v; want the check made", s)
	}
}
