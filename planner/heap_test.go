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
