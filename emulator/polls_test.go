package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/emulator"
)

// pollStats is what GET /_emulator/stats says of batch status polls.
type pollStats struct {
	MaxInFlight int64 `json:"batch_jobs_max_in_flight"`
	Polls       struct {
		Jobs          int64    `json:"jobs"`
		Requests      int64    `json:"requests"`
		MaxPerJob     int64    `json:"max_per_job"`
		MinGapSeconds *float64 `json:"min_gap_seconds"`
		Early         int64    `json:"early"`
	} `json:"batch_polls"`
}

func (s *service) pollStats() pollStats {
	s.t.Helper()
	_, b := s.send(http.MethodGet, "/_emulator/stats", "", "", nil)
	var st pollStats
	if err := json.Unmarshal(b, &st); err != nil {
		s.t.Fatalf("stats %s: %v", b, err)
	}
	return st
}

// poll asks for a batch job's status (older is an older batch job) and
// returns it.
func (s *service) poll(id string, older bool) string {
	s.t.Helper()
	path := "/stt/v3/batch/jobs/" + id
	if older {
		path = "/stt/v3/batch/status/" + id
	}
	status, b := s.send(http.MethodGet, path, "k", "", nil)
	st, _ := object(s.t, b)["status"].(string)
	if status != http.StatusOK || st == "" {
		s.t.Fatalf("status of %s: %d %s", id, status, b)
	}
	return st
}

// TestStatsCountStatusPolls: the stats count each batch job's status
// answers, the shortest time between two of one job, and those sooner
// than the documents ask (10 s; 30 s for a job of 100 files or more; 60 s
// for the older batch). A job is in flight from its create or submit
// until an answer shows it ended, or its cancel.
//
// conformance: BJ-100, OB-035
func TestStatsCountStatusPolls(t *testing.T) {
	s := newService(t, emulator.Options{})
	wav := speech(t, 1, 1, 8000, 1)
	a := createJob(t, s, "", formFile{"files", "a.wav", wav}, formFile{"files", "b.wav", wav})
	b := createJob(t, s, "", formFile{"files", "c.wav", wav})
	if status, _ := startJob(t, s, a); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	s.poll(a, false)
	for _, d := range []time.Duration{5 * time.Second, 12 * time.Second} { // the first is early
		s.advance(d)
		s.poll(a, false)
	}
	s.advance(time.Hour)
	if st := s.poll(a, false); st != "COMPLETED" {
		t.Fatalf("job a is %s an hour on", st)
	}
	createJob(t, s, "", formFile{"files", "d.wav", wav}) // c, in flight with b
	if status, body := s.send(http.MethodPost, "/stt/v3/batch/jobs/"+b+"/cancel", "k", "application/json", jsonBody(`{}`)); status != http.StatusOK {
		t.Fatalf("cancel: %d %s", status, body)
	}
	body, ctype := form(t, map[string]string{"language_code": "hi-IN"}, formFile{"audio_files", "e.wav", wav})
	status, res := s.send(http.MethodPost, "/stt/v3/batch/submit", "k", ctype, body)
	older, _ := object(t, res)["job_id"].(string)
	if status != http.StatusOK || older == "" {
		t.Fatalf("submit: %d %s", status, res)
	}
	s.poll(older, true)
	s.advance(30 * time.Second) // early for the older batch
	s.poll(older, true)
	s.advance(time.Hour)
	if st := s.poll(older, true); st != "completed" && st != "failed" {
		t.Fatalf("older job is %s an hour on", st)
	}
	var many []formFile
	for i := range 100 {
		many = append(many, formFile{"files", fmt.Sprintf("f%03d.wav", i), speech(t, uint64(i), 0.1, 8000, 1)})
	}
	e := createJob(t, s, "", many...) // in flight with c
	s.poll(e, false)
	s.advance(20 * time.Second) // early for 100 files
	s.poll(e, false)

	got := s.pollStats()
	var want pollStats
	want.MaxInFlight = 2
	want.Polls.Jobs, want.Polls.Requests, want.Polls.MaxPerJob, want.Polls.Early = 3, 9, 4, 3
	minGap := 5.0
	want.Polls.MinGapSeconds = &minGap
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}
