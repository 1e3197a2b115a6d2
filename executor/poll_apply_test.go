package executor_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
)

// TestBatchPollsKeepTheirInterval: no two status requests of one batch
// job come closer than the polling interval, the one that checks a new
// job before its start and the first poll after it included, as the
// emulator saw them. Each job is asked twice: before its start, and once
// done.
// conformance: BJ-100
func TestBatchPollsKeepTheirInterval(t *testing.T) {
	const interval = 200 * time.Millisecond
	wav := recording(t, "1")
	files := map[string]string{"main.yaml": batchManifest}
	for i := range 3 {
		files[fmt.Sprintf("rec/%d.wav", i)] = wav
	}
	h := newHarness(t, emulator.Options{}, files) // a job ends in milliseconds
	s := h.applyWith(func(o *executor.Options) { o.PollInterval = interval })
	if s.Done != 3 || s.Failed != 0 {
		t.Fatalf("summary %+v, want 3 done", s)
	}
	polls, _ := h.stats()["batch_polls"].(map[string]any)
	gap, _ := polls["min_gap_seconds"].(float64)
	if polls["jobs"] != 1.0 || polls["max_per_job"] != 2.0 || gap < interval.Seconds() {
		t.Errorf("batch_polls %v: want 1 job asked twice, %v apart or more", polls, interval)
	}
}
