package executor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// loudnessCases are syntheses over each transport in the containers whose
// writing differs: a WAV passed through, a WAV whose header is patched at
// the end (streams), headerless G.711, MP3 and Ogg Opus.
var loudnessCases = []struct {
	name, transport, container, ext string
	raw                             *audio.Format
}{
	{"rest wav", "rest", "wav", "wav", nil},
	{"sse wav", "sse", "wav", "wav", nil},
	{"websocket wav", "websocket", "wav", "wav", nil},
	{"rest mulaw", "rest", "mulaw", "ulaw", &audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw}},
	{"websocket alaw", "websocket", "alaw", "alaw", &audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.ALaw}},
	{"rest mp3", "rest", "mp3", "mp3", nil},
	{"sse ogg", "sse", "ogg", "ogg", nil},
}

func loudnessManifest(cacheDir string) string {
	m := "version: 1\nservice: { base_url: https://speech.example.com, profile: documented }\n" +
		fmt.Sprintf("cache: { dir: %q }\n", cacheDir) +
		"voices:\n  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }\nsyntheses:\n"
	for i, c := range loudnessCases {
		m += fmt.Sprintf("  s%d: { voice: v, text: \"नमस्ते, आपका स्वागत है %d\", transport: %s, audio_config: { container: %s }, output: out/s%d.%s }\n",
			i, i, c.transport, c.container, i, c.ext)
	}
	return m
}

// measuringLoudness is an apply that measures loudness, as cli's is when
// the manifest declares loudness:.
func measuringLoudness(o *executor.Options) { o.MeasureLoudness = true }

// TestSynthesisRecordsLoudness: where the apply measures loudness, every
// audio output a synthesis writes has
// its integrated loudness and true peak in the state, the figures the
// finished file measures (to the 0.01 the state keeps), whichever
// transport wrote it; the cache entry carries them, and an output
// restored from the cache has them too. An entry kept without them (an
// older voxform's, or an apply's that measured none) restores with none,
// and no error, or measured where the restoring apply measures loudness.
func TestSynthesisRecordsLoudness(t *testing.T) {
	cacheDir := t.TempDir()
	h := newHarness(t, emulator.Options{Profile: string(contract.ProfileDocumented)}, map[string]string{"main.yaml": loudnessManifest(cacheDir)})
	local, err := cache.OpenLocal(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	withCache := func(o *executor.Options) { o.Cache, o.MeasureLoudness = &cache.Cache{Local: local}, true }
	if s := h.applyWith(withCache); s.Done != len(loudnessCases) || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	made := map[string]*state.Loudness{}
	for i, c := range loudnessCases {
		addr := fmt.Sprintf("synthesis.s%d", i)
		r := h.state().Resources[addr]
		o := r.Outputs[0]
		want, err := loudness.MeasureLoudnessFile(context.Background(), filepath.Join(h.dir, o.Path), c.raw)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(state.LoudnessOf(want), o.Loudness); diff != "" {
			t.Errorf("%s: recorded loudness differs from the file's (-file +state):\n%s", c.name, diff)
		}
		if o.Loudness == nil || o.Loudness.Integrated == nil || *o.Loudness.Integrated > -5 || *o.Loudness.Integrated < -60 {
			t.Errorf("%s: implausible loudness %+v", c.name, o.Loudness)
		}
		made[addr] = o.Loudness
	}

	// Restore: the outputs and the state are gone, the cache holds them.
	// Entry s0 is made to look like an older voxform's.
	s0 := h.state().Resources["synthesis.s0"].Fingerprint
	entry := filepath.Join(local.Dir(), "v1", "entries", s0[:2], s0+".json")
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`,?\s*"(integrated_lufs|true_peak_dbtp|silent)": [^,\n]+`).ReplaceAll(b, nil)
	if string(old) == string(b) {
		t.Fatalf("the cache entry has no loudness:\n%s", b)
	}
	if err := os.WriteFile(entry, old, 0o644); err != nil {
		t.Fatal(err)
	}
	restore := func(measure bool) {
		t.Helper()
		for _, p := range []string{"voxform.state.json", "out"} {
			if err := os.RemoveAll(filepath.Join(h.dir, p)); err != nil {
				t.Fatal(err)
			}
		}
		p, rec, done := h.planWith(planner.Options{Cache: planner.CacheLocal})
		for _, a := range p.Actions {
			if a.Type != planner.Restore {
				t.Fatalf("%s planned as %s, want a restore", a.Address, a.Type)
			}
		}
		s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec, Cache: &cache.Cache{Local: local}, MeasureLoudness: measure})
		done()
		if err != nil || s.Done != len(loudnessCases) || s.Failed != 0 {
			t.Fatalf("restoring apply: %+v, %v", s, err)
		}
	}
	restore(false)
	for addr, want := range made {
		got := h.state().Resources[addr].Outputs[0].Loudness
		if addr == "synthesis.s0" {
			want = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s restored with other loudness (-made +restored):\n%s", addr, diff)
		}
	}
	// An apply that measures loudness measures what it restores from an
	// entry kept without figures (by an apply that measured none).
	restore(true)
	for addr, want := range made {
		if diff := cmp.Diff(want, h.state().Resources[addr].Outputs[0].Loudness); diff != "" {
			t.Errorf("%s restored by a measuring apply with other loudness (-made +restored):\n%s", addr, diff)
		}
	}
	// Outputs put back for a record that is kept (a committed state, its
	// files gone) are not measured: the record keeps its figures, or none.
	restore(false)
	if err := os.RemoveAll(filepath.Join(h.dir, "out")); err != nil {
		t.Fatal(err)
	}
	before := h.state()
	measures := executor.CountMeasures(t)
	p, rec, done := h.planWith(planner.Options{Cache: planner.CacheLocal})
	for _, a := range p.Actions {
		if a.Type != planner.Restore || !a.KeepsRecord() {
			t.Fatalf("%s planned as %s (keeps its record: %v), want a restore that keeps it", a.Address, a.Type, a.KeepsRecord())
		}
	}
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec, Cache: &cache.Cache{Local: local}, MeasureLoudness: true})
	done()
	if err != nil || s.Done != len(loudnessCases) || s.Failed != 0 {
		t.Fatalf("restoring apply: %+v, %v", s, err)
	}
	if n := measures.Load(); n != 0 {
		t.Errorf("%d outputs put back for kept records were measured, want none", n)
	}
	if got := h.state().Resources["synthesis.s0"].Outputs[0].Loudness; got != nil || before.Resources["synthesis.s0"].Outputs[0].Loudness != nil {
		t.Errorf("synthesis.s0's kept record has loudness %+v", got)
	}
}

// TestChunkedSynthesisRecordsLoudness: an output joined from chunks has
// its loudness in the state too, the figures the joined file measures.
func TestChunkedSynthesisRecordsLoudness(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": chapterManifest, "chapter.txt": hindiChapter(12)})
	if s := h.applyWith(measuringLoudness); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("apply: %+v %v", s, s.Failures)
	}
	r := h.state().Resources["synthesis.chapter"]
	if len(r.Details().Chunks) < 2 {
		t.Fatalf("the chapter was sent in %d request(s), want it split", len(r.Details().Chunks))
	}
	o := r.Outputs[0]
	want, err := loudness.MeasureLoudnessFile(context.Background(), filepath.Join(h.dir, o.Path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Loudness == nil {
		t.Fatal("no loudness recorded for the joined output")
	}
	if diff := cmp.Diff(state.LoudnessOf(want), o.Loudness); diff != "" {
		t.Errorf("recorded loudness differs from the joined file's (-file +state):\n%s", diff)
	}
}

// TestLoudnessNotMeasuredUnlessAsked: an apply that does not measure
// loudness (the manifest declares no loudness:) records no figures for
// any container or transport, and the outputs are otherwise the same.
func TestLoudnessNotMeasuredUnlessAsked(t *testing.T) {
	h := newHarness(t, emulator.Options{Profile: string(contract.ProfileDocumented)}, map[string]string{"main.yaml": loudnessManifest(t.TempDir())})
	if s := h.apply(); s.Done != len(loudnessCases) || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	for i, c := range loudnessCases {
		o := h.state().Resources[fmt.Sprintf("synthesis.s%d", i)].Outputs[0]
		if o.Loudness != nil {
			t.Errorf("%s: loudness %+v recorded by an apply that does not measure it", c.name, o.Loudness)
		}
		if o.SHA256 == "" || o.Size == 0 {
			t.Errorf("%s: output %+v", c.name, o)
		}
	}
}
