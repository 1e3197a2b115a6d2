package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// TestGeneratedProjectsLoad checks, at small sizes, that the generated
// manifests load without a diagnostic and expand as the harness expects.
func TestGeneratedProjectsLoad(t *testing.T) {
	cases := []struct {
		name   string
		write  func(dir string) error
		syn, n int
	}{
		{"syntheses", func(d string) error { return writeSyntheses(d, 50, 4) }, 50, 0},
		{"raw 8 kHz syntheses", func(d string) error { return writeSynthesesAs(d, raw8k, 0, 50, 16) }, 50, 0},
		{"long", func(d string) error { return writeLong(d, "websocket", longText(60)) }, 1, 0},
		{"recordings", func(d string) error { return writeRecordings(d, 12) }, 0, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.write(dir); err != nil {
				t.Fatal(err)
			}
			m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
			if len(ds) != 0 {
				t.Fatalf("diagnostics: %v", ds)
			}
			if len(m.Syntheses) != c.syn || len(m.Transcriptions) != c.n {
				t.Fatalf("got %d syntheses and %d transcriptions, want %d and %d", len(m.Syntheses), len(m.Transcriptions), c.syn, c.n)
			}
		})
	}
}

// TestPromptTextsDistinct checks that the first 100,000 prompts have distinct
// texts, so that each has its own fingerprint and audio.
func TestPromptTextsDistinct(t *testing.T) {
	seen := map[string]int{}
	for i := range 100_000 {
		s := promptText(i)
		if j, ok := seen[s]; ok {
			t.Fatalf("prompts %d and %d are both %q", j, i, s)
		}
		seen[s] = i
	}
}

// TestRecordingIsValidWAV checks a generated recording with the audio
// package's prober.
func TestRecordingIsValidWAV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.wav")
	if err := writeTone(p, 3); err != nil {
		t.Fatal(err)
	}
	info, err := audio.Probe(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.SampleRate != 16000 || info.Channels != 1 || info.Duration.Seconds() != recordingSeconds {
		t.Fatalf("recording is %+v", info)
	}
}

// TestParseBench reads `go test -bench` output with packages, sub-benchmarks
// and custom units.
func TestParseBench(t *testing.T) {
	out := "goos: linux\npkg: github.com/voxform/voxform/state\nBenchmarkJournalAppend/resources=10-2   \t     100\t   1234567 ns/op\t  2048 B/op\t  12 allocs/op\n" +
		"pkg: github.com/voxform/voxform/bench\nBenchmarkSSEStream/raw-2 \t 3\t 5000 ns/op\t 200.5 MB/s\nPASS\n"
	got := parseBench([]byte(out))
	if len(got) != 2 || got[0].Name != "BenchmarkJournalAppend/resources=10" || got[0].Pkg != "github.com/voxform/voxform/state" ||
		len(got[0].Metrics) != 3 || got[0].Metrics[0].Value != 1234567 || got[1].Metrics[1].Unit != "MB/s" || got[1].Iterations != 3 {
		t.Fatalf("parsed %+v", got)
	}
	if m := missingBenches(got); len(m) != len(goBenches)-2 {
		t.Fatalf("missing %v", m)
	}
}

// BenchmarkBuild10k measures planner.Build (canonical requests and
// fingerprints) over 10,000 loaded syntheses.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	if err := writeSyntheses(dir, 10_000, 4); err != nil {
		b.Fatal(err)
	}
	m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if ds.HasErrors() {
		b.Fatal(ds)
	}
	none := func(string) (state.FileHash, error) { return state.FileHash{}, nil }
	for b.Loop() {
		d, err := planner.Build(m, none)
		if err != nil || len(d) != 10_000 {
			b.Fatalf("build: %d resources, %v", len(d), err)
		}
	}
}

// BenchmarkSSEStream measures the client's SSE path: 1 MiB of 16 kHz audio
// in 64 chunk events, in the documented form (raw PCM chunks) and in the
// live service's (each chunk a whole WAV file, joined RIFF-aware into one).
func BenchmarkSSEStream(b *testing.B) {
	const chunks, size = 64, 16 << 10
	pcm := bytes.Repeat([]byte{0x10, 0x02}, size/2)
	f := audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	var hdr bytes.Buffer
	if err := audio.WriteWAVHeader(&hdr, f, size); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, container string
		piece           []byte
	}{
		{"raw", "raw", pcm},
		{"wav-per-chunk", "wav", append(hdr.Bytes(), pcm...)},
	} {
		b.Run(c.name, func(b *testing.B) {
			client := sseServer(b, sseBody(chunks, c.piece))
			req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: c.container, SampleRate: 16000}}}
			out, err := os.Create(filepath.Join(b.TempDir(), "out"))
			if err != nil {
				b.Fatal(err)
			}
			defer out.Close()
			b.SetBytes(chunks * size)
			for b.Loop() {
				if err := speechapi.Rewind(out); err != nil {
					b.Fatal(err)
				}
				if _, err := client.SynthesizeStream(context.Background(), req, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sseBody is a reference-form event stream of n chunks of piece.
func sseBody(n int, piece []byte) string {
	var sb strings.Builder
	sb.WriteString("event: start\ndata: {\"status\": \"streaming_started\"}\n\n")
	enc := base64.StdEncoding.EncodeToString(piece)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "event: chunk\ndata: {\"chunk_index\": %d, \"audio\": \"%s\", \"is_final\": false}\n\n", i, enc)
	}
	fmt.Fprintf(&sb, "event: complete\ndata: {\"chunk_index\": %d, \"audio\": \"\", \"is_final\": true}\n\n", n+1)
	return sb.String()
}

// sseServer serves body as an event stream and returns a client for it.
func sseServer(b *testing.B, body string) *speechapi.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(body))
	}))
	b.Cleanup(srv.Close)
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "bench-key", Retries: -1})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// TestReadUsage reads GNU time's output, also after a "Command terminated"
// line.
func TestReadUsage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t")
	if err := os.WriteFile(p, []byte("Command terminated by signal 9\n20480 1.50 0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var m measured
	if err := readUsage(p, &m); err != nil {
		t.Fatal(err)
	}
	if m.MaxRSS != 20<<20 || m.CPU != 1750*time.Millisecond || m.Sys != 250*time.Millisecond {
		t.Fatalf("got %+v", m)
	}
}

// TestOpTimes summarises the operation times of apply's progress lines.
func TestOpTimes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	log := "synthesis.a: created (51.2 kB, 60ms)\nsynthesis.b: created (51.2 kB, 1.5s)\nsynthesis.c: created (51.2 kB, 90ms)\nApply complete!\n"
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got := opTimes(p)
	want := "one synthesis (request to recorded state) took 550ms on average (median 90ms, 90th percentile 1.5s, max 1.5s)"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestCachedProjectLoads checks the output cache's projects: the cache
// block loads as the remote and endpoint given, and a project of other
// prompts asks for other texts under the same keys.
func TestCachedProjectLoads(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := writeCached(a, 0, 20, "s3://bucket/team/speech", "http://127.0.0.1:9000"); err != nil {
		t.Fatal(err)
	}
	if err := writeCached(b, 20, 20, "s3://bucket/team/speech", "http://127.0.0.1:9000"); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, dir := range []string{a, b} {
		m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		if len(ds) != 0 {
			t.Fatalf("diagnostics: %v", ds)
		}
		if m.Cache.Remote != "s3://bucket/team/speech" || m.Cache.Endpoint != "http://127.0.0.1:9000" || len(m.Syntheses) != 20 {
			t.Fatalf("cache %+v, %d syntheses", m.Cache, len(m.Syntheses))
		}
		for _, s := range m.Syntheses {
			if other, ok := texts[s.Text]; ok {
				t.Fatalf("%s and %s both ask for %q", other, s.Address, s.Text)
			}
			texts[s.Text] = s.Address
		}
	}
	if err := writeSynthesesFrom(t.TempDir(), 1_048_000, 1_000, 4); err == nil {
		t.Error("prompts past the distinct texts were written")
	}
}

// TestPlanCounts reads the plan's summary line, with and without restores.
func TestPlanCounts(t *testing.T) {
	for _, c := range []struct {
		line                          string
		add, replace, repair, restore int
	}{
		{"Plan: 2000 to add, 0 to replace, 0 to repair, 0 to move, 0 to destroy.", 2000, 0, 0, 0},
		{"Plan: 0 to add, 1 to replace, 2 to repair, 10000 to restore (free), 0 to move, 0 to destroy.", 0, 1, 2, 10000},
	} {
		p := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(p, []byte("$ voxform plan\n  + synthesis.a\n\n"+c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		add, replace, repair, restore, err := planCounts(p)
		if err != nil || add != c.add || replace != c.replace || repair != c.repair || restore != c.restore {
			t.Errorf("%q: %d %d %d %d, %v", c.line, add, replace, repair, restore, err)
		}
	}
}

// The generated chapter is about as long as asked, has no digits (the
// validator would warn), names no sentence twice, and its edit changes
// exactly one sentence.
func TestChapterText(t *testing.T) {
	text, n := chapterText(20_000, -1)
	if c := utf8.RuneCountInString(text); c < 20_000 || c > 20_200 {
		t.Errorf("%d characters, want about 20,000", c)
	}
	if strings.ContainsAny(text, "0123456789") {
		t.Error("the chapter holds digits")
	}
	seen := map[string]bool{}
	for i := range n {
		s := chapterSentence(i, false)
		if seen[s] {
			t.Fatalf("sentence %d is there twice: %s", i, s)
		}
		seen[s] = true
	}
	edited, _ := chapterText(20_000, n/2)
	a, b := strings.Fields(text), strings.Fields(edited)
	if len(a) != len(b) {
		t.Fatalf("the edit changed the number of words: %d, %d", len(a), len(b))
	}
	first, last := -1, -1
	for i := range a {
		if a[i] != b[i] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last-first > 12 {
		t.Errorf("the edit changed words %d to %d, want one sentence", first, last)
	}
}

// TestMasteringStep masters a 5-second chapter as the M step does: both
// rows, each within its heap target; -h names the step.
func TestMasteringStep(t *testing.T) {
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	h := &harness{sz: fullSizes, work: t.TempDir(), log: t.Logf}
	if err := h.masterChapter(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	if len(h.results) != 2 {
		t.Fatalf("%d results, want M1 and M2: %+v", len(h.results), h.results)
	}
	for i, r := range h.results {
		if want := fmt.Sprintf("M%d", i+1); r.ID != want || r.Verdict != "met" || !strings.Contains(r.Figure, "CPU") {
			t.Errorf("result %d: %+v, want %s met with its CPU time", i, r, want)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "M1 and M2 or master") {
		t.Errorf("-h exited %d and does not name the M step:\n%s", code, errb.String())
	}
}
