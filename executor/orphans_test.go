package executor_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

const jobsPath = "/stt/v3/batch/jobs"

// dropFirstCreate makes the first batch job create reach the service and
// then lose its answer, as a connection reset would: the HTTP layer
// retries the create, and the first job is left, unrecorded, in CREATED.
func dropFirstCreate(h *harness) {
	var dropped atomic.Bool
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost && req.URL.Path == jobsPath && dropped.CompareAndSwap(false, true) {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return nil, errors.New("connection reset by peer (test)")
		}
		return resp, err
	}
}

// events collects an apply's events in order.
type events struct {
	mu   sync.Mutex
	list []executor.Event
}

func (e *events) add(ev executor.Event) { e.mu.Lock(); e.list = append(e.list, ev); e.mu.Unlock() }

func (e *events) kinds() []executor.EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []executor.EventKind
	for _, ev := range e.list {
		out = append(out, ev.Kind)
	}
	return out
}

// jobs lists the emulator's jobs in a status.
func (h *harness) jobs(status string) []speechapi.Job {
	h.t.Helper()
	page, err := h.cl.ListJobs(context.Background(), speechapi.JobsQuery{Status: status, Limit: 100})
	if err != nil {
		h.t.Fatal(err)
	}
	return page.Data
}

// recordedJobs lists the job ids recorded in the state.
func recordedJobs(f *state.File) map[string]bool {
	out := map[string]bool{}
	for _, r := range f.Resources {
		if r.Details().JobID != "" {
			out[r.Details().JobID] = true
		}
	}
	return out
}

// A create whose answer was lost and retried by the HTTP layer leaves an
// orphan in CREATED; the end of the apply finds and cancels it, and never
// starts it. Other users' CREATED jobs (another config, another file
// count, another time) are left alone.
// conformance: BJ-056, BJ-071
func TestDroppedCreateLeavesOrphanThatIsCancelled(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	ctx := context.Background()
	src, err := speechapi.FileSource(filepath.Join(h.dir, "rec/a.wav"))
	if err != nil {
		t.Fatal(err)
	}
	mine := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "hi-IN", Mode: "transcribe"}
	other := mine
	other.LanguageCode = "en-IN"
	foreign := map[string]string{}
	create := func(what string, cfg speechapi.JobConfig, files ...speechapi.Source) {
		res, err := h.cl.CreateJobUpload(ctx, cfg, files, "")
		if err != nil {
			t.Fatal(err)
		}
		foreign[res.JobID] = what
	}
	h.emu.SetClock(func() time.Time { return time.Now().Add(-time.Hour) })
	create("same config an hour earlier", mine, src)
	h.emu.SetClock(time.Now)
	create("another language", other, src)
	two := src
	two.Name = "b.wav"
	create("two files", mine, src, two)

	dropFirstCreate(h)
	var ev events
	s := h.applyWith(func(o *executor.Options) { o.Events = ev.add })
	if s.Done != 1 || s.Failed != 0 || s.OrphansCancelled != 1 {
		t.Fatalf("summary %+v", s)
	}
	if got := h.counter("batch_jobs_created"); got != 5 { // 3 foreign + 2 of the apply
		t.Errorf("batch jobs created %v, want 5", got)
	}
	if got := h.counter("batch_jobs_started"); got != 1 {
		t.Errorf("batch jobs started %v, want 1", got)
	}
	if got := h.counter("batch_jobs_cancelled"); got != 1 {
		t.Errorf("batch jobs cancelled %v, want 1", got)
	}
	st := h.state()
	cancelled := h.jobs(speechapi.JobCancelled)
	if len(cancelled) != 1 || foreign[cancelled[0].JobID] != "" || recordedJobs(st)[cancelled[0].JobID] {
		t.Fatalf("cancelled %+v: want the one unrecorded job of the apply", cancelled)
	}
	if r := cancelled[0].CancelReason; r == nil || *r != "orphan of an interrupted voxform apply" {
		t.Errorf("cancel reason %v", r)
	}
	left := h.jobs(speechapi.JobCreated)
	if len(left) != len(foreign) {
		t.Errorf("%d CREATED jobs left, want the %d foreign ones", len(left), len(foreign))
	}
	for _, j := range left {
		if foreign[j.JobID] == "" {
			t.Errorf("CREATED job %s is not a foreign one", j.JobID)
		}
	}
	if len(st.JobIntents) != 0 {
		t.Errorf("intents left after the sweep: %+v", st.JobIntents)
	}
	n := 0
	for _, e := range ev.list {
		if e.Kind == executor.EventOrphansCancelled {
			n += e.Count
		}
	}
	if n != 1 {
		t.Errorf("orphans_cancelled events count %d", n)
	}
}

// A journal holding an intent whose create reached the service (the
// process was killed before the record): the next apply cancels that
// orphan before doing anything else, and creates exactly one new job.
// conformance: BJ-056
func TestOrphanOfKilledApplyCancelledFirst(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	orphan := killedAfterCreate(t, h, "hi-IN", "")

	var ev events
	s := h.applyWith(func(o *executor.Options) { o.Events = ev.add })
	if s.Done != 1 || s.OrphansCancelled != 1 {
		t.Fatalf("summary %+v", s)
	}
	kinds := ev.kinds()
	if len(kinds) < 3 || kinds[0] != executor.EventApplyStart || kinds[1] != executor.EventOrphansCancelled {
		t.Errorf("events %v: the orphan must be cancelled before any work", kinds)
	}
	for name, want := range map[string]float64{"batch_jobs_created": 2, "batch_jobs_started": 1, "batch_jobs_cancelled": 1} {
		if got := h.counter(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	j, err := h.cl.GetJob(context.Background(), orphan.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != speechapi.JobCancelled {
		t.Errorf("orphan %s is %s", orphan.JobID, j.Status)
	}
	if st := h.state(); len(st.JobIntents) != 0 || recordedJobs(st)[orphan.JobID] {
		t.Errorf("state after the sweep: intents %+v, jobs %v", st.JobIntents, recordedJobs(st))
	}
}

// A service without the jobs listing: the apply goes on with one warning
// and keeps its intents; a later apply against a service that lists jobs
// sweeps them.
func TestListingUnavailableKeepsIntents(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	dropFirstCreate(h)
	drop := h.hook
	var lists atomic.Int64
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if req.Method == http.MethodGet && req.URL.Path == jobsPath {
			lists.Add(1)
			return notFound(req), nil
		}
		return drop(req, next)
	}
	s := h.apply()
	if s.Done != 1 || s.Failed != 0 || len(s.Warnings) != 1 || s.OrphansCancelled != 0 {
		t.Fatalf("summary %+v", s)
	}
	if lists.Load() != 1 {
		t.Errorf("the listing was asked %d times, want once", lists.Load())
	}
	if st := h.state(); len(st.JobIntents) != 1 {
		t.Fatalf("intents %+v, want the one kept", st.JobIntents)
	}
	h.hook = nil
	if got := len(h.jobs(speechapi.JobCreated)); got != 1 {
		t.Fatalf("%d CREATED jobs, want the orphan", got)
	}
	s = h.apply()
	if s.OrphansCancelled != 1 || len(s.Warnings) != 0 {
		t.Fatalf("second apply: %+v", s)
	}
	if st := h.state(); len(st.JobIntents) != 0 {
		t.Errorf("intents left: %+v", st.JobIntents)
	}
	if got := h.counter("batch_jobs_started"); got != 1 {
		t.Errorf("batch jobs started %v, want 1", got)
	}
}

func notFound(req *http.Request) *http.Response {
	return &http.Response{StatusCode: http.StatusNotFound, Request: req,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(strings.NewReader(`{"error":{"code":"NOT_FOUND","message":"no such route"}}`))}
}

// An intent belongs to the service its create went to: a sweep against
// another service neither cancels by it nor forgets it, except that the
// intent of an emulator on a loopback address that is gone (another port:
// the process that served it died) is dropped.
func TestIntentsOfOtherServices(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": batchManifest, "rec/a.wav": recording(t, "1")})
	// The job and intents are in Tamil: this run's own intent (Hindi) does
	// not account for the job either.
	stranger := killedAfterCreate(t, h, "ta-IN", "https://speech.example.com", "http://127.0.0.1:1")

	if s := h.apply(); s.Done != 1 || s.OrphansCancelled != 0 {
		t.Fatalf("summary %+v", s)
	}
	if j, err := h.cl.GetJob(context.Background(), stranger.JobID); err != nil || j.Status != speechapi.JobCreated {
		t.Errorf("a job no intent of this service accounts for: %v %v", j, err)
	}
	st := h.state()
	if len(st.JobIntents) != 1 || st.JobIntents[0].Service != "https://speech.example.com" {
		t.Errorf("intents %+v, want only the other service's", st.JobIntents)
	}
	for _, in := range st.JobIntents {
		if in.Service == "" {
			t.Errorf("an intent of this run without its service: %+v", in)
		}
	}
}

// killedAfterCreate leaves h's state as a process killed between a batch
// job create and its record leaves it: a journal holding an intent for the
// service at each of services ("" for this one) and, on the service, the
// job in CREATED, which it returns.
func killedAfterCreate(t *testing.T, h *harness, lang string, services ...string) *speechapi.CreateJobResult {
	t.Helper()
	b := state.NewLocal(h.dir)
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock() // killed: the journal is never folded
	rec, err := b.Open(context.Background(), lk, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range services {
		if _, err := rec.RecordJobIntent(state.JobIntent{API: "batch", Files: 1, Block: "calls", Service: svc,
			Config: state.JobIntentConfig{Model: "stt-v2.5", LanguageCode: lang}}); err != nil {
			t.Fatal(err)
		}
	}
	src, err := speechapi.FileSource(filepath.Join(h.dir, "rec/a.wav"))
	if err != nil {
		t.Fatal(err)
	}
	src.Name = "rec__a.wav"
	job, err := h.cl.CreateJobUpload(context.Background(), speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: lang, Mode: "transcribe"}, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	return job
}
