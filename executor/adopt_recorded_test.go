package executor_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// TestRecordedNotAdoptable: import and use refuse a recorded synthesis:
// its output is made from its recording, and a file adopted for it would
// be recorded (and attested) as the recording's.
func TestRecordedNotAdoptable(t *testing.T) {
	d := (&planner.Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Outputs: []planner.Output{{Path: "out/a.mp3"}}}).
		WithDetails(planner.DesiredDetails{Recorded: &planner.Recording{Path: "studio/a.wav"}})
	if err := executor.Adoptable(d); err == nil || !strings.Contains(err.Error(), "synthesis.a is recorded (studio/a.wav)") {
		t.Fatalf("a recorded synthesis: %v, want refused", err)
	}
	d.Edit().Recorded = nil
	if err := executor.Adoptable(d); err != nil {
		t.Fatalf("a synthesis: %v", err)
	}
}
