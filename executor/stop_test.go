package executor_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// stopDuringCreate closes stop once the batch job create has reached the
// service and before its answer is back: the first Ctrl-C of a user while
// the create is in flight.
func stopDuringCreate(h *harness, stop chan struct{}) {
	var once sync.Once
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if req.Method == http.MethodPost && req.URL.Path == jobsPath {
			once.Do(func() { close(stop) })
		}
		return resp, err
	}
}

// pendingJob returns the one job id the state records as pending.
func pendingJob(t *testing.T, f *state.File) string {
	t.Helper()
	var ids []string
	for _, r := range f.Resources {
		if r.Status == state.StatusPending {
			ids = append(ids, r.Details().JobID)
		}
	}
	if len(ids) != 1 || ids[0] == "" {
		t.Fatalf("pending jobs %v, want one", ids)
	}
	return ids[0]
}

// After the first Ctrl-C a job whose create was in flight is recorded but
// never started (that would begin new paid work), and the orphan sweep
// leaves it alone: it is recorded. The next apply resumes it and starts it.
// conformance: BJ-052, BJ-071
func TestStopDuringCreateRecordsButDoesNotStart(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	stop := make(chan struct{})
	stopDuringCreate(h, stop)
	s := h.applyWith(func(o *executor.Options) { o.Stop = stop })
	if !s.Interrupted || s.Done != 0 || s.Skipped != 1 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	for name, want := range map[string]float64{"batch_jobs_created": 1, "batch_jobs_started": 0, "batch_jobs_cancelled": 0} {
		if got := h.counter(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	id := pendingJob(t, h.state())
	j, err := h.cl.GetJob(context.Background(), id)
	if err != nil || j.Status != speechapi.JobCreated {
		t.Fatalf("job %s: %+v %v", id, j, err)
	}

	h.hook = nil
	p, _, done := h.plan()
	done()
	if len(p.Actions) != 1 || p.Actions[0].Type != planner.Resume {
		t.Fatalf("next plan: %+v", p.Actions)
	}
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("resuming apply: %+v", s)
	}
	for name, want := range map[string]float64{"batch_jobs_created": 1, "batch_jobs_started": 1} {
		if got := h.counter(name); got != want {
			t.Errorf("after resuming: %s = %v, want %v", name, got, want)
		}
	}
	if st := h.state(); st.Resources[`transcription.calls["rec/a.wav"]`].Details().JobID != id {
		t.Errorf("resumed resource does not record job %s", id)
	}
}

// A resumed CREATED job that turns out to be started already (409
// JOB_ALREADY_STARTED) is followed as started.
// conformance: BJ-059, ERR-031
func TestResumeTreatsAlreadyStartedAsStarted(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	stop := make(chan struct{})
	stopDuringCreate(h, stop)
	h.applyWith(func(o *executor.Options) { o.Stop = stop })
	id := pendingJob(t, h.state())

	// Someone starts the job between the status read and the start call.
	var conflicts atomic.Int64
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/start") && conflicts.Add(1) == 1 {
			first, err := next.RoundTrip(req.Clone(req.Context()))
			if err != nil {
				return nil, err
			}
			first.Body.Close()
		}
		return next.RoundTrip(req)
	}
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("resuming apply: %+v", s)
	}
	if conflicts.Load() != 1 || h.counter("batch_jobs_started") != 1 {
		t.Errorf("start calls %d, jobs started %v: want one call answered 409 and one start", conflicts.Load(), h.counter("batch_jobs_started"))
	}
	if st := h.state(); st.Resources[`transcription.calls["rec/a.wav"]`].Status != state.StatusComplete {
		t.Errorf("job %s not collected", id)
	}
}
