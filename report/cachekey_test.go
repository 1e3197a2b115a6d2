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

// previousFixture is a project whose synthesis.a now holds nowAudio
// (state now), a previous state recording it as prev's outputs, and a
// local cache holding the entries given (fingerprint -> audio).
type previousFixture struct {
	dir   string
	local *cache.Local
	now   *state.File
}

func newPreviousFixture(t *testing.T, entries map[string][]byte) *previousFixture {
	t.Helper()
	f := &previousFixture{dir: t.TempDir(), now: state.New()}
	var err error
	if f.local, err = cache.OpenLocal(filepath.Join(t.TempDir(), "cache")); err != nil {
		t.Fatal(err)
	}
	b := f.local.Batch()
	for fp, audio := range entries {
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
	nowAudio := wav(t, []float64{0.3, -0.3, 0.3, -0.3, 0.3, 0})
	if err := os.MkdirAll(filepath.Join(f.dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "build/a.wav"), nowAudio, 0o644); err != nil {
		t.Fatal(err)
	}
	f.now.Resources["synthesis.a"] = synthA("press two", strings.Repeat("c", 64), nowAudio)
	return f
}

// synthA is synthesis.a recorded with text, fingerprint fp and audio.
func synthA(text, fp string, audio []byte) *state.Resource {
	return &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fp,
		Request: map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"},
		Outputs: []state.Output{{Path: "build/a.wav", SHA256: sum(audio), Size: int64(len(audio))}}}
}

// previous builds the report against prev and returns synthesis.a's
// "previous" player data (nil: none).
func (f *previousFixture) previous(t *testing.T, prev *state.File) map[string]any {
	t.Helper()
	out := filepath.Join(f.dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: f.dir, Out: out, State: f.now, Previous: prev, Cache: f.local}); err != nil {
		t.Fatal(err)
	}
	for _, it := range pageData(t, out) {
		if it["address"] == "synthesis.a" {
			p, _ := it["previous"].(map[string]any)
			return p
		}
	}
	t.Fatal("no row for synthesis.a")
	return nil
}

// The previous audio of a replaced take put back by 'voxform use' is
// looked up where the record keeps its bytes (state.Resource.CacheKey:
// the take's own fingerprint), not under the request's fingerprint,
// whose entry is the service's answer to that request: other audio.
func TestPreviousTakeFromItsCacheKey(t *testing.T) {
	takeAudio := wav(t, []float64{0.1, -0.1, 0.2, -0.2, 0.1, 0})
	serviceAudio := wav(t, []float64{0.5, -0.5, 0.5, -0.5, 0.5, 0})
	fp0, take := strings.Repeat("a", 64), strings.Repeat("b", 64)
	f := newPreviousFixture(t, map[string][]byte{fp0: serviceAudio, take: takeAudio})
	prev := state.New()
	prev.Resources["synthesis.a"] = synthA("press one", fp0, takeAudio)
	prev.Resources["synthesis.a"].Origin, prev.Resources["synthesis.a"].Edit().Take = state.OriginTake, take
	p := f.previous(t, prev)
	if p == nil || p["src"] == nil {
		t.Fatalf("synthesis.a previous %v, want the take's audio", p)
	}
	got, err := os.ReadFile(filepath.Join(f.dir, "report", p["src"].(string)))
	if err != nil || sum(got) != sum(takeAudio) {
		t.Fatalf("the previous audio is not the take put back (%v): sha256 %.12s, want %.12s (the service's under the request: %.12s)", err, sum(got), sum(takeAudio), sum(serviceAudio))
	}
}

// A cache entry under the record's key that holds other audio than the
// state recorded (a teammate's forged or stale entry) is not shown as the
// previous audio: the row says why instead.
func TestPreviousAudioMustBeTheRecordedBytes(t *testing.T) {
	recorded := wav(t, []float64{0.1, -0.1, 0.2, -0.2, 0.1, 0})
	forged := wav(t, []float64{0.5, -0.5, 0.5, -0.5, 0.5, 0})
	fp0 := strings.Repeat("a", 64)
	f := newPreviousFixture(t, map[string][]byte{fp0: forged})
	prev := state.New()
	prev.Resources["synthesis.a"] = synthA("press one", fp0, recorded)
	p := f.previous(t, prev)
	if p == nil || p["src"] != nil {
		t.Fatalf("synthesis.a previous %v, want no audio (the cache holds other bytes than were recorded)", p)
	}
	if why, _ := p["note"].(string); !strings.Contains(why, "other audio than was recorded") {
		t.Fatalf("synthesis.a previous says %q, want why it is not shown", why)
	}
}
