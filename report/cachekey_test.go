package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

// The previous audio of a replaced take put back by 'voxform use' is
// looked up where the record keeps its bytes (state.Resource.CacheKey:
// the take's own fingerprint), not under the request's fingerprint,
// whose entry is the service's answer to that request: other audio.
func TestPreviousTakeFromItsCacheKey(t *testing.T) {
	dir := t.TempDir()
	takeAudio := wav(t, []float64{0.1, -0.1, 0.2, -0.2, 0.1, 0})
	serviceAudio := wav(t, []float64{0.5, -0.5, 0.5, -0.5, 0.5, 0})
	nowAudio := wav(t, []float64{0.3, -0.3, 0.3, -0.3, 0.3, 0})
	local, err := cache.OpenLocal(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	fp0, take, fp1 := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	b := local.Batch()
	for fp, audio := range map[string][]byte{fp0: serviceAudio, take: takeAudio} {
		p := filepath.Join(t.TempDir(), "audio.wav")
		if err := os.WriteFile(p, audio, 0o644); err != nil {
			t.Fatal(err)
		}
		e := &cache.Entry{Version: cache.FormatVersion, Fingerprint: fp, Kind: "synthesis", Files: []cache.File{{Role: "audio", SHA256: sum(audio), Size: int64(len(audio))}}}
		if err := b.Store(e, map[string]string{"audio": p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build/a.wav"), nowAudio, 0o644); err != nil {
		t.Fatal(err)
	}
	synth := func(text, fp string, audio []byte) *state.Resource {
		return &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fp,
			Request: map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"},
			Outputs: []state.Output{{Path: "build/a.wav", SHA256: sum(audio), Size: int64(len(audio))}}}
	}
	prev, now := state.New(), state.New()
	prev.Resources["synthesis.a"] = synth("press one", fp0, takeAudio)
	prev.Resources["synthesis.a"].Origin, prev.Resources["synthesis.a"].Take = state.OriginTake, take
	now.Resources["synthesis.a"] = synth("press two", fp1, nowAudio)
	out := filepath.Join(dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: now, Previous: prev, Cache: local}); err != nil {
		t.Fatal(err)
	}
	var a map[string]any
	for _, it := range pageData(t, out) {
		if it["address"] == "synthesis.a" {
			a = it
		}
	}
	p, _ := a["previous"].(map[string]any)
	if p == nil || p["src"] == nil {
		t.Fatalf("synthesis.a previous %v, want the take's audio", a["previous"])
	}
	got, err := os.ReadFile(filepath.Join(out, p["src"].(string)))
	if err != nil || sum(got) != sum(takeAudio) {
		t.Fatalf("the previous audio is not the take put back (%v): sha256 %.12s, want %.12s (the service's under the request: %.12s)", err, sum(got), sum(takeAudio), sum(serviceAudio))
	}
}

// A cache entry under the record's key that holds other audio than the
// state recorded (a teammate's forged or stale entry) is not shown as the
// previous audio: the row says why instead.
func TestPreviousAudioMustBeTheRecordedBytes(t *testing.T) {
	dir := t.TempDir()
	recorded := wav(t, []float64{0.1, -0.1, 0.2, -0.2, 0.1, 0})
	forged := wav(t, []float64{0.5, -0.5, 0.5, -0.5, 0.5, 0})
	nowAudio := wav(t, []float64{0.3, -0.3, 0.3, -0.3, 0.3, 0})
	local, err := cache.OpenLocal(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	fp0, fp1 := strings.Repeat("a", 64), strings.Repeat("c", 64)
	p := filepath.Join(t.TempDir(), "audio.wav")
	if err := os.WriteFile(p, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	b := local.Batch()
	e := &cache.Entry{Version: cache.FormatVersion, Fingerprint: fp0, Kind: "synthesis", Files: []cache.File{{Role: "audio", SHA256: sum(forged), Size: int64(len(forged))}}}
	if err := b.Store(e, map[string]string{"audio": p}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build/a.wav"), nowAudio, 0o644); err != nil {
		t.Fatal(err)
	}
	synth := func(text, fp string, audio []byte) *state.Resource {
		return &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fp,
			Request: map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"},
			Outputs: []state.Output{{Path: "build/a.wav", SHA256: sum(audio), Size: int64(len(audio))}}}
	}
	prev, now := state.New(), state.New()
	prev.Resources["synthesis.a"] = synth("press one", fp0, recorded)
	now.Resources["synthesis.a"] = synth("press two", fp1, nowAudio)
	out := filepath.Join(dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: now, Previous: prev, Cache: local}); err != nil {
		t.Fatal(err)
	}
	for _, it := range pageData(t, out) {
		if it["address"] != "synthesis.a" {
			continue
		}
		p, _ := it["previous"].(map[string]any)
		if p == nil || p["src"] != nil {
			t.Fatalf("synthesis.a previous %v, want no audio (the cache holds other bytes than were recorded)", it["previous"])
		}
		if why, _ := p["note"].(string); !strings.Contains(why, "other audio than was recorded") {
			t.Fatalf("synthesis.a previous says %q, want why it is not shown", why)
		}
		return
	}
	t.Fatal("no row for synthesis.a")
}
