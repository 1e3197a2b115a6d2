package planner_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestDesiredHoldsOneShape: once the manifest is let go of, the desired
// resources of 20,000 prompts hold each its request once, as canonical
// bytes, and nothing of the expanded manifest: under 1,100 bytes a prompt
// (about 1 kB; the request map and the manifest's synthesis held about
// 2 kB).
func TestDesiredHoldsOneShape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 20,000 resources")
	}
	const n = 20000
	before := heapInUse()
	v := &manifest.Voice{Name: "narrator", Address: "voice.narrator", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}
	m := &manifest.Manifest{Dir: "/project", Voices: []*manifest.Voice{v}}
	for i := range n {
		key := fmt.Sprintf("p%05d", i)
		s := synth("menu", key, "narrator", v, fmt.Sprintf("प्रॉम्प्ट संख्या %d के लिए यह वाक्य बोला जाएगा", i), "build/menu/"+key+".raw")
		s.AudioConfig = &manifest.AudioConfig{Container: "raw", Encoding: "linear_pcm", SampleRate: 8000, SampleWidth: 2}
		m.Syntheses = append(m.Syntheses, s)
	}
	desired, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	m = nil
	per := (heapInUse() - before) / n
	runtime.KeepAlive(desired)
	t.Logf("%d B a desired synthesis", per)
	if per > 1100 {
		t.Errorf("the desired resources hold %d B a synthesis, want at most 1,100", per)
	}
}

// planHeap is the live heap a plan of n new syntheses (prompts of
// 20,000 for_each keys) holds per synthesis, with listen: declared or
// not.
func planHeap(t *testing.T, n int, spec *manifest.Listen) int64 {
	t.Helper()
	v := &manifest.Voice{Name: "narrator", Address: "voice.narrator", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN"}
	m := &manifest.Manifest{Dir: "/project", Voices: []*manifest.Voice{v}}
	for i := range n {
		key := fmt.Sprintf("p%05d", i)
		s := synth("menu", key, "narrator", v, fmt.Sprintf("प्रॉम्प्ट संख्या %d के लिए यह वाक्य बोला जाएगा", i), "build/menu/"+key+".wav")
		s.Edit().Listen = spec
		m.Syntheses = append(m.Syntheses, s)
	}
	desired, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	m = nil
	before := heapInUse()
	p, err := planner.Compute(planner.Input{Desired: desired, State: state.New(), Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	per := (heapInUse() - before) / int64(n)
	runtime.KeepAlive(desired)
	runtime.KeepAlive(p)
	return per
}

// TestPlanListenHeap: a plan of 20,000 syntheses without listen: holds
// what it held before listening checks (an Action, its reasons and its
// place in the plan: under 400 B a synthesis), and listen: adds its
// ListenWork only, under 200 B a synthesis.
func TestPlanListenHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("plans 20,000 resources")
	}
	const n = 20000
	without := planHeap(t, n, nil)
	with := planHeap(t, n, listenSpec(2, "limits-1"))
	t.Logf("%d B a planned synthesis; %d B with listen:", without, with)
	if without > 400 {
		t.Errorf("a plan holds %d B a synthesis without listen:, want at most 400", without)
	}
	if with-without >= 200 {
		t.Errorf("listen: adds %d B a synthesis to a plan, want under 200", with-without)
	}
}
