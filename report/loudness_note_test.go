package report_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

// TestUnmeasuredLoudnessNoted: a synthesis output whose loudness the
// state does not record (apply measures it only where the manifest
// declares loudness:) says so on its row, and how to measure it; one
// with figures, or a report made with -loudness, shows figures and no
// such note.
func TestUnmeasuredLoudnessNoted(t *testing.T) {
	dir := t.TempDir()
	tone := make([]float64, 8000)
	for i := range tone {
		tone[i] = 0.3 * math.Sin(2*math.Pi*440*float64(i)/8000)
	}
	b := wav(t, tone)
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	st := state.New()
	lufs, peak := -20.0, -10.0
	for i, name := range []string{"plain", "measured"} {
		p := "build/" + name + ".wav"
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: strings.Repeat(string(rune('a'+i)), 64),
			Request: map[string]any{"text": name, "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"},
			Outputs: []state.Output{{Path: p, SHA256: sum(b), Size: int64(len(b))}}}
		if name == "measured" {
			r.Outputs[0].Loudness = &state.Loudness{Integrated: &lufs, TruePeak: &peak}
		}
		st.Resources["synthesis."+name] = r
	}
	for _, measure := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "report")
		if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: st, Loudness: measure}); err != nil {
			t.Fatal(err)
		}
		for _, it := range pageData(t, out) {
			c, _ := it["audio"].(map[string]any)
			if c == nil {
				t.Fatalf("%v: no audio", it["address"])
			}
			note, _ := c["note"].(string)
			want := it["address"] == "synthesis.plain" && !measure
			if got := strings.Contains(note, "loudness not measured") && strings.Contains(note, "report -loudness"); got != want {
				t.Errorf("-loudness %v: %v note %q, want the note: %v", measure, it["address"], note, want)
			}
			if _, ok := c["lufs"]; ok == want {
				t.Errorf("-loudness %v: %v lufs %v", measure, it["address"], c["lufs"])
			}
		}
	}
}
