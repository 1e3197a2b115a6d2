package report_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	outputs := []string{"build/a.wav", "prompts/x/b.wav"}
	// A link committed in the project leading out of it is refused; one
	// leading to a directory inside it is that directory.
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "linked-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pages", filepath.Join(dir, "linked-in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		out  string
		want string // "" when allowed
	}{
		{"report", ""},
		{"build-report", ""},
		{filepath.Join(t.TempDir(), "elsewhere"), ""},
		{".", "manifest directory itself"},
		{".voxform", "inside .voxform/"},
		{".voxform/report", "inside .voxform/"},
		{".git/report", "version control"},
		{"voxform.state.json", "state files"},
		{"build", "holds the output build/a.wav"},
		{"prompts", "holds the output prompts/x/b.wav"},
		{"build/a.wav", "is an output"},
		{"build/a.wav/r", "below the output"},
		{"..", "holds the output"},
		{"linked-out", "leads outside the manifest directory through a symbolic link"},
		{"linked-out/sub", "leads outside the manifest directory through a symbolic link"},
		{"linked-in", ""},
	}
	for _, tc := range tests {
		out := tc.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(dir, out)
		}
		err := report.CheckOut(dir, out, outputs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("-out %s: %v, want it allowed", tc.out, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("-out %s: %v, want an error saying %q", tc.out, err, tc.want)
		}
	}
}

// pageData reads the rows of a written page.
func pageData(t *testing.T, out string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, report.PageName))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script id="data" type="application/json">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no data block in the page")
	}
	var d struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return d.Items
}

func wav(t *testing.T, samples []float64) []byte {
	t.Helper()
	f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, f, int64(2*len(samples))); err != nil {
		t.Fatal(err)
	}
	b.Write(audio.AppendSamples(nil, f, samples))
	return b.Bytes()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestBuildAgainstPrevious: the last apply compared with the state before
// it. The replaced synthesis shows its word diff and says the previous
// audio is not in the cache (there is none); a clipping output is counted;
// a resource recorded with a hostile hash or a missing file is a note on
// the page, not a failure; the deleted resource has its row.
func TestBuildAgainstPrevious(t *testing.T) {
	dir := t.TempDir()
	clipped := make([]float64, 8000)
	for i := range clipped {
		clipped[i] = []float64{1, -1, 0.3, -0.3}[i%4]
	}
	audioBytes := wav(t, clipped)
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build/a.wav"), audioBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	synth := func(text, fp, path, sha string) *state.Resource {
		return &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fp,
			Request: map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"},
			Outputs: []state.Output{{Path: path, SHA256: sha, Size: 100}}, BilledCharacters: int64(len(text))}
	}
	fpA, fpA0 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	prev, now := state.New(), state.New()
	prev.Resources["synthesis.a"] = synth("press one for billing", fpA0, "build/a.wav", strings.Repeat("c", 64))
	prev.Resources["synthesis.gone"] = synth("goodbye", strings.Repeat("d", 64), "build/gone.wav", strings.Repeat("e", 64))
	now.Resources["synthesis.a"] = synth("press two for billing", fpA, "build/a.wav", sum(audioBytes))
	lufs, peak := -23.04, 0.27 // recorded as apply wrote it
	now.Resources["synthesis.a"].Outputs[0].Loudness = &state.Loudness{Integrated: &lufs, TruePeak: &peak}
	now.Resources["synthesis.bad"] = synth("x", strings.Repeat("f", 64), "build/bad.wav", "../../etc/passwd")
	now.Resources["synthesis.missing"] = synth("y", strings.Repeat("0", 64), "build/missing.wav", strings.Repeat("1", 64))
	now.Resources["synthesis.missing"].Origin = state.OriginImported
	out := filepath.Join(dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: now, Previous: prev}); err != nil {
		t.Fatal(err)
	}
	items := map[string]map[string]any{}
	for _, it := range pageData(t, out) {
		items[it["address"].(string)] = it
	}
	a := items["synthesis.a"]
	if a["action"] != "replace" || a["changed"] != true {
		t.Errorf("synthesis.a: %v %v, want a change: replace", a["action"], a["changed"])
	}
	diff, _ := json.Marshal(a["diff"])
	if want := `[{"op":"=","text":"press "},{"op":"-","text":"one"},{"op":"+","text":"two"},{"op":"=","text":" for billing"}]`; string(diff) != want {
		t.Errorf("synthesis.a diff %s, want %s", diff, want)
	}
	cur, _ := a["audio"].(map[string]any)
	if cur == nil || cur["src"] == nil || cur["wave"] == nil || cur["clipped"].(float64) != 4000 {
		t.Errorf("synthesis.a audio %v, want a copy, a waveform and 4000 clipped samples", cur)
	} else if svg, err := os.ReadFile(filepath.Join(out, cur["wave"].(string))); err != nil || !strings.Contains(string(svg), `class="clip"`) {
		t.Errorf("the waveform marks no clipping (%v)", err)
	}
	if cur != nil && (cur["lufs"] != -23.0 || cur["true_peak"] != 0.3) {
		t.Errorf("synthesis.a loudness %v LUFS, %v dBTP; want the recorded -23.0 and 0.3", cur["lufs"], cur["true_peak"])
	}
	if p, _ := a["previous"].(map[string]any); p == nil || !strings.Contains(p["note"].(string), "not in the output cache") {
		t.Errorf("synthesis.a previous %v, want a note that it is not cached", a["previous"])
	}
	if items["synthesis.missing"]["origin"] != "imported" || items["synthesis.a"]["origin"] != nil {
		t.Errorf("origins %v and %v, want imported and none", items["synthesis.missing"]["origin"], items["synthesis.a"]["origin"])
	}
	if items["synthesis.gone"]["action"] != "delete" {
		t.Errorf("synthesis.gone: %v, want delete", items["synthesis.gone"]["action"])
	}
	for _, addr := range []string{"synthesis.bad", "synthesis.missing"} {
		if c, _ := items[addr]["audio"].(map[string]any); c == nil || c["src"] != nil || c["note"] == "" {
			t.Errorf("%s audio %v, want no copy and a note", addr, c)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(out, "audio"))
	if len(entries) != 1 {
		t.Errorf("audio/ holds %d files, want the one copy", len(entries))
	}
}
