package speechapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// TestStartJobAnswer: a start is answered 202 with job_id, status STARTING
// and a message. The emulator answers so; the client takes nothing else
// for a start: another success status, another status value or job, or
// no message is an error saying what departs, never a service *Error
// and never a job taken as started.
//
// conformance: BJ-072
func TestStartJobAnswer(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 1, 0.5, 8000, kindSpeech))
	created, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	start, err := e.client.StartJob(ctx, created.JobID)
	if err != nil {
		t.Fatalf("the emulator's start: %v", err)
	}
	if start.JobID != created.JobID || start.Status != speechapi.JobStarting || start.Message == "" || start.AlreadyStarted {
		t.Errorf("the emulator's start: %+v", start)
	}
	if got := e.stats(t).BatchJobsStarted; got != 1 {
		t.Errorf("batch_jobs_started = %d", got)
	}

	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string // in the error; "" for none
	}{
		{"documented", http.StatusAccepted, `{"job_id": "job_1", "status": "STARTING", "message": "starting"}`, ""},
		{"empty message", http.StatusAccepted, `{"job_id": "job_1", "status": "STARTING", "message": ""}`, ""},
		{"200", http.StatusOK, `{"job_id": "job_1", "status": "STARTING", "message": "starting"}`, "not the documented 202"},
		{"201", http.StatusCreated, `{"job_id": "job_1", "status": "STARTING", "message": "starting"}`, "not the documented 202"},
		{"no message", http.StatusAccepted, `{"job_id": "job_1", "status": "STARTING"}`, `no "message"`},
		{"null message", http.StatusAccepted, `{"job_id": "job_1", "status": "STARTING", "message": null}`, `no "message"`},
		{"another status", http.StatusAccepted, `{"job_id": "job_1", "status": "QUEUED", "message": "queued"}`, `"QUEUED", not the documented STARTING`},
		{"no status", http.StatusAccepted, `{"job_id": "job_1", "message": "starting"}`, `no "status"`},
		{"another job", http.StatusAccepted, `{"job_id": "job_2", "status": "STARTING", "message": "starting"}`, `names job "job_2"`},
		{"no job", http.StatusAccepted, `{"status": "STARTING", "message": "starting"}`, `no "job_id"`},
		{"no body", http.StatusAccepted, ``, "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/stt/v3/batch/jobs/job_1/start" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c := newRecogClient(t, srv.URL, "k")
			res, err := c.StartJob(ctx, "job_1")
			if tc.want == "" {
				if err != nil || res.JobID != "job_1" || res.Status != speechapi.JobStarting {
					t.Fatalf("%+v %v", res, err)
				}
				return
			}
			var se *speechapi.Error
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "start batch job job_1") || errors.As(err, &se) {
				t.Fatalf("got %+v, %v; want an error saying %q", res, err, tc.want)
			}
		})
	}
}
