package executor_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
)

// TestOutputsStartDirectoryByDirectory: syntheses ready together start
// grouped by the directory of their output (then by address), so that
// the outputs renamed into one directory at about the same time share
// its syncs; addresses alone would interleave the directories.
func TestOutputsStartDirectoryByDirectory(t *testing.T) {
	m := "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }\nsyntheses:\n" +
		"  s1: { voice: v, text: \"एक\", output: b/1.wav }\n" +
		"  s2: { voice: v, text: \"दो\", output: a/2.wav }\n" +
		"  s3: { voice: v, text: \"तीन\", output: b/3.wav }\n" +
		"  s4: { voice: v, text: \"चार\", output: a/4.wav }\n"
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": m})
	var mu sync.Mutex
	var started []string
	s := h.applyWith(func(o *executor.Options) {
		o.Parallelism = 1
		o.Events = func(e executor.Event) {
			if e.Kind == executor.EventStart {
				mu.Lock()
				started = append(started, e.Address)
				mu.Unlock()
			}
		}
	})
	if s.Done != 4 || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	want := []string{"synthesis.s2", "synthesis.s4", "synthesis.s1", "synthesis.s3"}
	if !slices.Equal(started, want) {
		t.Errorf("started in the order %v, want %v", started, want)
	}
}
