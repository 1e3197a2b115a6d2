package executor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// listenPrompts declares n Hindi prompts with listen: (regenerate r).
func listenPrompts(n, regenerate int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `
version: 1
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
defaults:
  synthesis:
    listen: { regenerate: %d }
syntheses:
`, regenerate)
	for i := range n {
		// Texts of different lengths: silent takes differ too.
		fmt.Fprintf(&b, "  p%d:\n    voice: v3\n    text: \"गाँव के %sघर में आज सुबह से बहुत चहल-पहल थी, क्रमांक %d के लोग मेले की तैयारी कर रहे थे।\"\n    output: out/p%d.wav\n",
			i, strings.Repeat("पुराने ", i+1), i, i)
	}
	return b.String()
}

// isCheck reports whether req is a REST recognition call.
func isCheck(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/stt/v3")
}

// countChecks counts the recognition calls of h's client.
func countChecks(h *harness) *atomic.Int32 {
	var n atomic.Int32
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if isCheck(req) {
			n.Add(1)
		}
		return next.RoundTrip(req)
	}
	return &n
}

// TestListenFlagsSilence: with every synthesis silent and regenerate: 0,
// each prompt is checked once, recorded failing (in place, its check
// billed in the record as the emulator billed it), and the summary lists
// every one; a second apply makes no check and still reports them.
func TestListenFlagsSilence(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 3, SilenceRate: 1}, map[string]string{"main.yaml": listenPrompts(3, 0)})
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 3 || s.Failed != 0 || s.ListenFailing != 3 || len(s.ListenFailed) != 3 || s.Takes != 0 {
		t.Fatalf("summary %+v; want 3 done, 3 failing checks", s)
	}
	if checks.Load() != 3 {
		t.Errorf("%d checks made, want 3", checks.Load())
	}
	var secs float64
	for addr, r := range h.state().Resources {
		l := r.Outputs[0].Listen
		if l == nil || l.Pass || l.Heard != "" || l.MissingTail == 0 || l.API != "rest" || l.LanguageCode != "hi-IN" || l.Seconds <= 0 {
			t.Fatalf("%s: listen %+v; want a failing REST check that heard nothing", addr, l)
		}
		if r.Details().BilledAudioSeconds != l.Seconds {
			t.Errorf("%s: billed %v s, its check %v s", addr, r.Details().BilledAudioSeconds, l.Seconds)
		}
		secs += r.Details().BilledAudioSeconds
	}
	if got := h.counter("billed_audio_seconds"); math.Abs(got-secs) > 0.01 || math.Abs(s.BilledAudioSeconds-secs) > 0.01 {
		t.Errorf("the emulator billed %v s of recognition, the summary %v s, the state %v s", got, s.BilledAudioSeconds, secs)
	}
	if f := s.ListenFailed[0]; f.Address != "synthesis.p0" || f.Chunk != -1 || !strings.Contains(f.String(), "missing_tail") {
		t.Errorf("first failure %+v (%s)", f, f)
	}
	s = h.apply()
	if s.Done != 0 || s.ListenFailing != 3 || checks.Load() != 3 {
		t.Errorf("second apply: %+v after %d checks; want nothing done, no check, the 3 failures still reported", s, checks.Load())
	}
}

// TestListenRegenerates: with faults on some syntheses and regenerate: 2,
// every failing prompt is synthesized again until it passes, or three
// takes failed (then it is recorded failing, with its takes, and the
// summary lists it); the extra takes, and the characters and seconds
// billed, are exactly what the emulator counts, and are in the records.
func TestListenRegenerates(t *testing.T) {
	const n = 8
	h := newHarness(t, emulator.Options{Seed: 11, TruncateRate: 0.2, ReplaceRate: 0.2}, map[string]string{"main.yaml": listenPrompts(n, 2)})
	s := h.apply()
	syntheses := int(h.counter("syntheses"))
	if s.Done != n || s.Failed != 0 || s.Takes == 0 || s.Takes != syntheses-n {
		t.Fatalf("summary %+v after %d syntheses; want %d done and every extra take counted", s, syntheses, n)
	}
	var chars int64
	var secs float64
	takes, failing := 0, 0
	for addr, r := range h.state().Resources {
		l := r.Outputs[0].Listen
		switch {
		case l == nil:
			t.Fatalf("%s: no check recorded", addr)
		case !l.Pass && l.Takes != 3:
			t.Errorf("%s: listen %+v; want a passing take kept, or 3 takes failing", addr, l)
		case !l.Pass:
			failing++
		}
		takes += max(l.Takes, 1)
		chars += r.BilledCharacters
		secs += r.Details().BilledAudioSeconds
	}
	if takes != syntheses {
		t.Errorf("records count %d takes, the emulator %d syntheses", takes, syntheses)
	}
	if got := int64(h.counter("billed_characters")); got != chars || s.BilledCharacters != chars {
		t.Errorf("billed characters: emulator %d, summary %d, state %d", got, s.BilledCharacters, chars)
	}
	if got := h.counter("billed_audio_seconds"); math.Abs(got-secs) > 0.01 {
		t.Errorf("billed seconds: emulator %v, state %v", got, secs)
	}
	if s.Takes < 2 || s.ListenFailing != failing {
		t.Errorf("%d extra takes; failing checks reported %+v, %d in the state", s.Takes, s.ListenFailed, failing)
	}
}

// TestListenCheckAction: listen: added to syntheses already made plans a
// Check of each; apply checks the recorded outputs (no synthesis), and
// then nothing is left to do.
func TestListenCheckAction(t *testing.T) {
	m := listenPrompts(2, 0)
	plain := strings.Replace(m, "    listen: { regenerate: 0 }\n", "    listen: false\n", 1)
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": plain})
	if s := h.apply(); s.Done != 2 {
		t.Fatalf("apply without listen: %+v", s)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, done := h.plan()
	done()
	if len(p.Actions) != 2 || p.Actions[0].Type != planner.Check {
		t.Fatalf("plan after listen: added: %v", p.Actions)
	}
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 2 || checks.Load() != 2 || h.counter("syntheses") != 2 || s.ListenFailing != 0 {
		t.Fatalf("check apply: %+v, %d checks, %v syntheses", s, checks.Load(), h.counter("syntheses"))
	}
	for addr, r := range h.state().Resources {
		if l := r.Outputs[0].Listen; l == nil || !l.Pass {
			t.Errorf("%s: listen %+v", addr, l)
		}
	}
	p, _, done = h.plan()
	done()
	if p.HasChanges() {
		t.Errorf("plan after the checks: %v", p.Actions[0].Reasons)
	}
}

// recordedListen is the check recorded on addr's output.
func recordedListen(t *testing.T, h *harness, addr string) *state.Listen {
	t.Helper()
	r := h.state().Resources[addr]
	if r == nil || len(r.Outputs) == 0 {
		t.Fatalf("%s not recorded", addr)
	}
	return r.Outputs[0].Listen
}

// TestListenChunks: a chapter of about ten chunks with listen: records,
// per chunk, its place in the joined output (contiguous, from 0 to the
// output's length), its loudness, its edge silences and its check; a
// faulted chunk is synthesized again alone; a second apply makes no
// check.
func TestListenChunks(t *testing.T) {
	m := strings.Replace(chapterManifest, "    output: out/chapter.wav\n", "    output: out/chapter.wav\n    listen: { regenerate: 1 }\n", 1)
	h := newHarness(t, emulator.Options{Seed: 7, ReplaceRate: 0.15}, map[string]string{"main.yaml": m, "chapter.txt": hindiChapter(40)})
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 1 || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	r := h.state().Resources["synthesis.chapter"]
	n := len(r.Details().Chunks)
	if n < 8 || n > 14 {
		t.Fatalf("%d chunks; want about ten", n)
	}
	end := 0.0
	takes := 0
	for i, c := range r.Details().Chunks {
		if c.Start != end || c.End <= c.Start || c.Loudness == nil || c.Loudness.Integrated == nil || c.Listen == nil || c.Lead < 0 || c.Tail < 0 {
			t.Fatalf("chunk %d: %+v; want its place after %v s, loudness, edges and check", i, c, end)
		}
		if c.Listen.Seconds > 59.5 || c.Listen.API != "rest" {
			t.Fatalf("chunk %d checked as %+v", i, c.Listen)
		}
		end = c.End
		takes += max(c.Listen.Takes, 1)
	}
	if got := int(h.counter("syntheses")); takes != got || s.Takes == 0 || s.Takes != got-n || int(checks.Load()) < got-s.Takes {
		t.Errorf("chunks record %d takes, the emulator made %d syntheses, the summary %d extra takes, %d checks", takes, got, s.Takes, checks.Load())
	}
	if got := int64(h.counter("billed_characters")); got != r.BilledCharacters {
		t.Errorf("billed %d characters, recorded %d", got, r.BilledCharacters)
	}
	if got := h.counter("billed_audio_seconds"); math.Abs(got-r.Details().BilledAudioSeconds) > 0.01 {
		t.Errorf("billed %v s of checks, recorded %v", got, r.Details().BilledAudioSeconds)
	}
	before := checks.Load()
	if s := h.apply(); s.Done != 0 || checks.Load() != before {
		t.Errorf("second apply: %+v, %d more checks", s, checks.Load()-before)
	}
}

// TestListenKeyNeverRecorded: a service that echoes the API key in a
// transcript (in any form the client knows) never gets it into the
// state: the heard text is redacted when received.
func TestListenKeyNeverRecorded(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": listenPrompts(1, 0)})
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || !isCheck(req) {
			return resp, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		echoed := strings.Replace(string(body), `"transcript":"`, `"transcript":"test-key dGVzdC1rZXk= `, 1)
		if echoed == string(body) {
			t.Errorf("no transcript in %s", body)
		}
		resp.Body = io.NopCloser(strings.NewReader(echoed))
		resp.ContentLength = int64(len(echoed))
		resp.Header.Del("Content-Length")
		return resp, nil
	}
	if s := h.apply(); s.Done != 1 {
		t.Fatalf("apply: %+v", s)
	}
	l := recordedListen(t, h, "synthesis.p0")
	if !strings.Contains(l.Heard, "[redacted] [redacted]") {
		t.Errorf("heard %q; want the echoed key redacted", l.Heard)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, state.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "test-key") || strings.Contains(string(b), "dGVzdC1rZXk") {
		t.Error("the state holds the API key")
	}
	if out, err := exec.Command("grep", "-rl", "test-key", filepath.Join(h.dir, ".voxform")).Output(); err == nil {
		t.Errorf("the chunk store holds the API key: %s", out)
	}
}

// TestListenCheckNotPaidTwice: a check kept in the store is not paid
// again: with the state and the outputs lost, apply synthesizes the same
// audio again and finds its checks by fingerprint, for free.
func TestListenCheckNotPaidTwice(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": listenPrompts(2, 0)})
	checks := countChecks(h)
	if s := h.apply(); s.Done != 2 || checks.Load() != 2 {
		t.Fatalf("first apply: %+v, %d checks", s, checks.Load())
	}
	for _, p := range []string{state.StateFileName, "out"} {
		if err := os.RemoveAll(filepath.Join(h.dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	s := h.apply()
	if s.Done != 2 || checks.Load() != 2 || h.counter("syntheses") != 4 || s.BilledAudioSeconds != 0 {
		t.Fatalf("apply without the state: %+v, %d checks; want the checks found in the store", s, checks.Load())
	}
	for addr, r := range h.state().Resources {
		if l := r.Outputs[0].Listen; l == nil || !l.Pass || r.Details().BilledAudioSeconds != 0 {
			t.Errorf("%s: %+v billed %v s", addr, l, r.Details().BilledAudioSeconds)
		}
	}
}

// applyCached plans and applies with a local output cache at dir.
func applyCached(t *testing.T, h *harness, local *cache.Local) *executor.Summary {
	t.Helper()
	p, rec, done := h.planWith(planner.Options{Cache: planner.CacheLocal})
	defer done()
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec, Cache: &cache.Cache{Local: local}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestListenRestore: a restore keeps each listening record it keeps the
// record of (outputs removed, the state kept: nothing changes in it); a
// restore without a record (the state lost) finds every check in the
// cache by its fingerprint: no synthesis and no check is paid, each
// prompt and chunk is recorded with its check, each chunk placed.
func TestListenRestore(t *testing.T) {
	m := listenPrompts(2, 0) + strings.Replace(strings.SplitN(chapterManifest, "syntheses:\n", 2)[1],
		"    output: out/chapter.wav\n", "    output: out/chapter.wav\n    listen: true\n", 1)
	dir := t.TempDir()
	m = strings.Replace(m, "version: 1\n", fmt.Sprintf("version: 1\nservice: { max_text_chars: 300 }\ncache: { dir: %q }\n", dir), 1)
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": m, "chapter.txt": hindiChapter(20)})
	local, err := cache.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := applyCached(t, h, local); s.Done != 3 || s.Failed != 0 {
		t.Fatalf("first apply: %+v", s)
	}
	made := h.state()
	checks := countChecks(h)
	syntheses := h.counter("syntheses")

	if err := os.RemoveAll(filepath.Join(h.dir, "out")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(h.dir, state.StateFileName))
	if s := applyCached(t, h, local); s.Done != 3 || s.Failed != 0 {
		t.Fatalf("restoring apply: %+v %v", s, s.Failures)
	}
	if after, _ := os.ReadFile(filepath.Join(h.dir, state.StateFileName)); string(after) != string(before) {
		t.Errorf("a restore that keeps its record changed the state")
	}

	for _, p := range []string{state.StateFileName, "out", executor.ChunkDir} {
		if err := os.RemoveAll(filepath.Join(h.dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	if s := applyCached(t, h, local); s.Done != 3 || s.Failed != 0 || s.BilledAudioSeconds != 0 || s.BilledCharacters != 0 {
		t.Fatalf("apply without the state: %+v %v", s, s.Failures)
	}
	if checks.Load() != 0 || h.counter("syntheses") != syntheses {
		t.Errorf("restores made %d checks and %v syntheses", checks.Load(), h.counter("syntheses")-syntheses)
	}
	for addr, r := range h.state().Resources {
		was := made.Resources[addr]
		if len(r.Details().Chunks) > 0 {
			for i, c := range r.Details().Chunks {
				w := was.Details().Chunks[i]
				if c.Listen == nil || c.Listen.Fingerprint != w.Listen.Fingerprint || !c.Listen.Pass || c.Start != w.Start || c.End != w.End || c.Loudness == nil {
					t.Errorf("%s chunk %d restored as %+v, made as %+v", addr, i, c, w)
				}
			}
			continue
		}
		if l := r.Outputs[0].Listen; l == nil || l.Fingerprint != was.Outputs[0].Listen.Fingerprint || !l.Pass {
			t.Errorf("%s restored with check %+v", addr, l)
		}
	}
}

// TestListenLongCheckBatched: a take longer than REST recognition takes
// (contract.ListenRESTMax) is checked through the batch jobs' seam, not
// REST; its check is recorded as a batch one, and kept: a second apply
// asks nothing.
func TestListenLongCheckBatched(t *testing.T) {
	text := strings.TrimSpace(hindiChapter(24))
	m := fmt.Sprintf(`
version: 1
service: { max_text_chars: 5000 }
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  long:
    voice: v3
    text: %q
    output: out/long.wav
    listen: true
`, text)
	var batched []float64
	executor.SetBatchCheck(t, func(paths []string, secs []float64) []string {
		batched = append(batched, secs...)
		heard := make([]string, len(paths))
		for i := range heard {
			heard[i] = narration.Spoken(text)
		}
		return heard
	})
	h := newHarness(t, emulator.Options{Seed: 5, MaxText: 5000}, map[string]string{"main.yaml": m})
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 1 || s.Failed != 0 {
		t.Fatalf("apply: %+v %v", s, s.Failures)
	}
	l := recordedListen(t, h, "synthesis.long")
	if len(batched) != 1 || batched[0] <= 59.5 || checks.Load() != 0 || l.API != "batch" || !l.Pass || l.Seconds != math.Round(batched[0]*1000)/1000 {
		t.Fatalf("checks: batched %v, %d REST; recorded %+v", batched, checks.Load(), l)
	}
	if s := h.apply(); s.Done != 0 || len(batched) != 1 {
		t.Errorf("second apply: %+v, %d batched", s, len(batched))
	}
}

// TestListenNeverUnpriced: a take whose rendition lasts longer than the
// plan priced its check at is not sent: the resource fails with
// ErrUnpriced naming both figures, and no recognition is asked for.
func TestListenNeverUnpriced(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 5}, map[string]string{"main.yaml": listenPrompts(1, 0)})
	checks := countChecks(h)
	p, rec, done := h.plan()
	defer done()
	a := p.Actions[0]
	if a.Listen == nil || a.Listen.Worst.AudioSeconds < 2 {
		t.Fatalf("plan: %+v", a.Listen)
	}
	a.Listen.Worst.AudioSeconds = 1.5 // as if the audio were shorter than it is
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 1 || !errors.Is(s.Failures[0].Err, executor.ErrUnpriced) || !strings.Contains(s.Failures[0].Err.Error(), "of the 1.5 s the plan priced") {
		t.Fatalf("apply: %+v; want the check refused as unpriced", s)
	}
	if checks.Load() != 0 {
		t.Errorf("%d checks sent", checks.Load())
	}
}

// TestListenSeamsAndMove: apply judges the seams of a chunked output
// from its chunk records and lists the failing ones (a limit no chapter
// meets here); a move of the output keeps every check, place and
// measure recorded.
func TestListenSeamsAndMove(t *testing.T) {
	m := strings.Replace(chapterManifest, "    output: out/chapter.wav\n", "    output: out/chapter.wav\n    listen: { seams: { min_gap: 59s, max_gap: 60s } }\n", 1)
	h := newHarness(t, emulator.Options{Seed: 7}, map[string]string{"main.yaml": m, "chapter.txt": hindiChapter(16)})
	s := h.apply()
	made := h.state().Resources["synthesis.chapter"]
	n := len(made.Details().Chunks)
	if s.Done != 1 || n < 3 || s.ListenFailing != n-1 || !s.ListenFailed[0].Seam || !strings.Contains(s.ListenFailed[0].String(), "seam 1|2 of") {
		t.Fatalf("apply: %+v; want its %d seams failing", s, n-1)
	}
	moved := strings.Replace(m, "out/chapter.wav", "out/moved.wav", 1)
	if err := os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := h.apply(); s.Done != 1 || s.BilledAudioSeconds != 0 || s.BilledCharacters != 0 {
		t.Fatalf("move: %+v", s)
	}
	r := h.state().Resources["synthesis.chapter"]
	if r.Outputs[0].Path != "out/moved.wav" || len(r.Details().Chunks) != n {
		t.Fatalf("moved record: %+v", r)
	}
	for i, c := range r.Details().Chunks {
		if w := made.Details().Chunks[i]; c.Listen == nil || c.Listen.Fingerprint != w.Listen.Fingerprint || c.Start != w.Start || c.Loudness == nil || c.Tail != w.Tail {
			t.Errorf("chunk %d moved as %+v, made as %+v", i, c, w)
		}
	}
}

// TestListenKeepsPriorPassing: a prompt replaced (-replace) whose every
// take fails its check keeps the recorded output of the same request,
// which passed: the file stays as it was, the record with its passing
// check, what the failed takes billed added to it.
func TestListenKeepsPriorPassing(t *testing.T) {
	for seed := uint64(1); seed < 40; seed++ {
		h := newHarness(t, emulator.Options{Seed: seed, SilenceRate: 0.5}, map[string]string{"main.yaml": listenPrompts(1, 0)})
		if s := h.apply(); s.ListenFailing != 0 {
			continue // the first take failed: another seed
		}
		made := h.state().Resources["synthesis.p0"]
		p, rec, done := h.planWith(planner.Options{Replace: []string{"synthesis.p0"}})
		s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
		done()
		if err != nil {
			t.Fatal(err)
		}
		if h.counter("syntheses") != 2 {
			t.Fatalf("replace made %v syntheses", h.counter("syntheses")-1)
		}
		if faults, _ := h.stats()["speech_faults"].(map[string]any); faults[emulator.FaultSilence] != 1.0 {
			continue // the new take passed: another seed
		}
		r := h.state().Resources["synthesis.p0"]
		if r.Outputs[0].SHA256 != made.Outputs[0].SHA256 || !r.Outputs[0].Listen.Pass || s.ListenFailing != 0 {
			t.Fatalf("replace: %+v; record %+v; want the prior passing output kept", s, r.Outputs[0])
		}
		if r.BilledCharacters != 2*made.BilledCharacters || int64(h.counter("billed_characters")) != r.BilledCharacters {
			t.Errorf("record billed %d characters, the emulator %v", r.BilledCharacters, h.counter("billed_characters"))
		}
		return
	}
	t.Fatal("no seed made a passing take then a failing one")
}

// TestListenCheckRegenerates: listen: added to a prompt whose recorded
// take is silent plans a Check; its check fails, and regenerate makes a
// new take that replaces the recorded output and its cue file in place
// (owned: only while they hold what the state records).
func TestListenCheckRegenerates(t *testing.T) {
	plain := strings.Replace(listenPrompts(1, 2), "    listen: { regenerate: 2 }\n", "    listen: false\n", 1) + "    cues: { vtt: out/p0.vtt }\n"
	for seed := uint64(1); seed < 40; seed++ {
		h := newHarness(t, emulator.Options{Seed: seed, SilenceRate: 0.4}, map[string]string{"main.yaml": plain})
		if s := h.apply(); s.Done != 1 {
			t.Fatalf("apply without listen: %+v", s)
		}
		if faults, _ := h.stats()["speech_faults"].(map[string]any); faults[emulator.FaultSilence] != 1.0 {
			continue // the take is not silent: another seed
		}
		made := h.state().Resources["synthesis.p0"]
		listened := strings.Replace(plain, "    listen: false\n", "    listen: { regenerate: 2 }\n", 1)
		if err := os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(listened), 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, done := h.plan()
		done()
		if a := p.Actions[0]; a.Type != planner.Check {
			t.Fatalf("plan: %s %v", a.Type, a.Reasons)
		}
		s := h.apply()
		r := h.state().Resources["synthesis.p0"]
		l := r.Outputs[0].Listen
		if s.Done != 1 || s.Takes < 1 || l == nil || l.Takes != s.Takes+1 || r.Outputs[0].SHA256 == made.Outputs[0].SHA256 || r.Outputs[1].SHA256 == "" {
			t.Fatalf("check apply: %+v; record %+v", s, r.Outputs)
		}
		if l.Pass == (s.ListenFailing != 0) {
			t.Errorf("check %+v, summary %+v", l, s.ListenFailed)
		}
		if got := int64(h.counter("billed_characters")); got != r.BilledCharacters {
			t.Errorf("billed %d characters, recorded %d", got, r.BilledCharacters)
		}
		return
	}
	t.Fatal("no seed made a silent first take")
}

// TestListenLongCheckJob: against the emulator's batch jobs, a take
// longer than REST takes is heard by a job and recorded as a batch check;
// a second apply starts no job.
func TestListenLongCheckJob(t *testing.T) {
	text := strings.TrimSpace(hindiChapter(24))
	m := fmt.Sprintf("version: 1\nservice: { max_text_chars: 5000 }\nvoices:\n  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }\n"+
		"syntheses:\n  long:\n    voice: v3\n    text: %q\n    output: out/long.wav\n    listen: true\n", text)
	h := newHarness(t, emulator.Options{Seed: 5, MaxText: 5000, TimeScale: 1000}, map[string]string{"main.yaml": m})
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 1 || s.Failed != 0 {
		t.Fatalf("apply: %+v %v", s, s.Failures)
	}
	l := recordedListen(t, h, "synthesis.long")
	if l.API != "batch" || l.Seconds <= 59.5 || !l.Pass || checks.Load() != 0 || h.counter("batch_jobs_started") != 1 {
		t.Fatalf("recorded %+v after %d REST checks and %v jobs", l, checks.Load(), h.counter("batch_jobs_started"))
	}
	if s := h.apply(); s.Done != 0 || h.counter("batch_jobs_started") != 1 {
		t.Errorf("second apply: %+v, %v jobs", s, h.counter("batch_jobs_started"))
	}
}
