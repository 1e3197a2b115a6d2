package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/state"
)

// writeSynthesisState writes n recorded syntheses into dir, as an apply
// would have left them: a short 16 kHz WAV each (the same tone, so the
// report copies it once) and voxform.state.json; text(i) is the text of
// the i-th.
func writeSynthesisState(t testing.TB, dir string, n int, text func(int) string) {
	t.Helper()
	var wav bytes.Buffer
	f := audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	frames := 4000
	if err := audio.WriteWAVHeader(&wav, f, int64(frames*2)); err != nil {
		t.Fatal(err)
	}
	samples := make([]float64, frames)
	for i := range samples {
		samples[i] = 0.5 * math.Sin(2*math.Pi*440*float64(i)/16000)
	}
	wav.Write(audio.AppendSamples(nil, f, samples))
	sum := sha256.Sum256(wav.Bytes())
	st := state.New()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		rel := fmt.Sprintf("build/p%05d.wav", i)
		if err := os.WriteFile(filepath.Join(dir, rel), wav.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fp := sha256.Sum256([]byte(rel))
		st.Resources[fmt.Sprintf("synthesis.prompt[%q]", fmt.Sprintf("p%05d", i))] = &state.Resource{
			Kind: "synthesis", Status: state.StatusComplete, Fingerprint: hex.EncodeToString(fp[:]),
			Request: map[string]any{"text": text(i), "model": "tts-v2.5", "voice": []string{"Kaveri", "Deepak"}[i%2],
				"language": []string{"hi-IN", "en-IN"}[i%2], "audio_config": map[string]any{"container": "wav", "sample_rate": 16000}},
			Outputs:          []state.Output{{Path: rel, SHA256: hex.EncodeToString(sum[:]), Size: int64(wav.Len())}},
			BilledCharacters: int64(len([]rune(text(i)))), CreatedAt: now, UpdatedAt: now,
		}
	}
	var b bytes.Buffer
	if err := st.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, state.StateFileName), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportEscapesTexts: texts are user data. A text holding a closing
// script tag, markup and quotes is shown as written, runs nothing and
// breaks nothing.
func TestReportEscapesTexts(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	b := startBrowser(t)
	p := newProject(t, "", nil)
	hostile := []string{
		`</script><script>document.body.dataset.pwned = "1"</script>`,
		`<b>bold</b> & "quoted" 'single' <!-- comment --> <img src=x onerror="document.body.dataset.pwned='2'">`,
		"\u2028line\u2029separators </SCRIPT >",
	}
	writeSynthesisState(t, p.dir, len(hostile), func(i int) string { return hostile[i] })
	p.mustRun("report")
	b.open(p.path("report/index.html"))
	b.screenshot("escaping")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	var got struct {
		Pwned    string
		Texts    []string
		Elements int
		Rows     int
	}
	b.eval(`({Pwned: document.body.dataset.pwned || "",
		Texts: [...document.querySelectorAll("#rows .text")].map(p => p.textContent),
		Elements: document.querySelectorAll("#rows .text *").length,
		Rows: document.querySelectorAll("#rows .res").length})`, &got)
	if got.Pwned != "" {
		t.Errorf("a text ran as script (pwned=%s)", got.Pwned)
	}
	if got.Rows != len(hostile) || got.Elements != 0 {
		t.Errorf("%d rows with %d elements inside texts, want %d rows and none", got.Rows, got.Elements, len(hostile))
	}
	for _, h := range hostile {
		found := false
		for _, s := range got.Texts {
			found = found || s == h
		}
		if !found {
			t.Errorf("text %q is not shown as written; texts shown: %q", h, got.Texts)
		}
	}
}

// TestReportPagesLargeProjects: the report of 10,000 syntheses renders its
// first 100 rows, and paging and the filters work through them (the load
// time itself is benchmark target V1, see bench/).
func TestReportPagesLargeProjects(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	b := startBrowser(t)
	p := newProject(t, "", nil)
	const n = 10_000
	writeSynthesisState(t, p.dir, n, func(i int) string { return fmt.Sprintf("Prompt number %d.", i) })
	p.mustRun("report")
	took := b.open(p.path("report/index.html"))
	t.Logf("10,000 resources: load event after %v", took)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	rows, first, info := reportRows(b)
	if rows != 100 || first != `synthesis.prompt["p00000"]` || !strings.Contains(info, "1–100 of 10000") {
		t.Fatalf("first page: %d rows from %s (%q), want 100 from p00000", rows, first, info)
	}
	b.eval(`document.getElementById("next").click()`, nil)
	if rows, first, info = reportRows(b); rows != 100 || first != `synthesis.prompt["p00100"]` {
		t.Fatalf("second page: %d rows from %s (%q), want 100 from p00100", rows, first, info)
	}
	b.eval(`(() => { const s = document.getElementById("f-voice"); s.value = "Deepak"; s.dispatchEvent(new Event("change")); })()`, nil)
	if rows, first, info = reportRows(b); rows != 100 || first != `synthesis.prompt["p00001"]` || !strings.Contains(info, "of 5000") {
		t.Fatalf("voice Deepak: %d rows from %s (%q), want 100 of 5000 from p00001", rows, first, info)
	}
	for range 49 {
		b.eval(`document.getElementById("next").click()`, nil)
	}
	if rows, first, info = reportRows(b); rows != 100 || first != `synthesis.prompt["p09801"]` {
		t.Fatalf("last page of voice Deepak: %d rows from %s (%q), want 100 from p09801", rows, first, info)
	}
	var nextDisabled bool
	b.eval(`document.getElementById("next").disabled`, &nextDisabled)
	if !nextDisabled {
		t.Error("next is enabled on the last page")
	}
	b.screenshot("large")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
