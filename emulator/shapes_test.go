package emulator_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/emulator"
)

// TestRESTErrorBodies: every error of the synthesis endpoints and of REST
// recognition is {"success": false, "error": {"type", "message"}}, with the
// documented type for its status: a bad request, a missing key, and each
// injected fault.
//
// conformance: ERR-004, ERR-013
func TestRESTErrorBodies(t *testing.T) {
	synthesis := func() (io.Reader, string) {
		return jsonBody(`{"text": "hi", "model": "tts-v2.5", "voice": "Nobody", "language": "en-IN"}`), "application/json"
	}
	requests := []struct {
		name, path string
		body       func() (io.Reader, string)
	}{
		{"inference", "/api/v1/tts/inference", synthesis},
		{"sse", "/api/v1/tts/sse", synthesis},
		{"rest recognition", "/stt/v3", func() (io.Reader, string) {
			return form(t, map[string]string{"language_code": "hi-IN"}, formFile{"audio_file", "a.wav", []byte("not audio")})
		}},
	}
	types := map[int]string{400: "INVALID_REQUEST_ERROR", 403: "FORBIDDEN", 429: "RATE_LIMIT_ERROR", 500: "API_ERROR", 503: "SERVICE_UNAVAILABLE"}
	for _, tc := range []struct {
		name   string
		opts   emulator.Options
		key    string
		status []int // any of
	}{
		{"bad request", emulator.Options{}, "k", []int{400}},
		{"no key", emulator.Options{}, "", []int{403}},
		{"failure", emulator.Options{FailRate: 1}, "k", []int{500, 503}},
		{"rate limit", emulator.Options{RateLimit: 1}, "k", []int{429}},
	} {
		tc.opts.NoEspeak = true
		s := newService(t, tc.opts)
		for _, r := range requests {
			body, ctype := r.body()
			status, b := s.send(http.MethodPost, r.path, tc.key, ctype, body)
			m := object(t, b)
			e, _ := m["error"].(map[string]any)
			typ, _ := e["type"].(string)
			msg, _ := e["message"].(string)
			if !slices.Contains(tc.status, status) || m["success"] != false || typ != types[status] || msg == "" {
				t.Errorf("%s, %s: %d %s; want %v, success false, error.type %s and error.message", tc.name, r.name, status, b, tc.status, types[status])
			}
		}
	}
}

// createJob creates an upload job of files, with a callback address
// unless it is empty, and returns its id.
func createJob(t *testing.T, s *service, callback string, files ...formFile) string {
	t.Helper()
	fields := map[string]string{"config": `{"model": "stt-v2.5", "language_code": "hi-IN"}`}
	if callback != "" {
		fields["callback_url"] = callback
	}
	body, ctype := form(t, fields, files...)
	status, b := s.send(http.MethodPost, "/stt/v3/batch/jobs", "k", ctype, body)
	id, _ := object(t, b)["job_id"].(string)
	if status != http.StatusCreated || id == "" {
		t.Fatalf("create: %d %s", status, b)
	}
	return id
}

// startJob starts a job and returns the answer's status and object.
func startJob(t *testing.T, s *service, id string) (int, map[string]any) {
	t.Helper()
	status, b := s.send(http.MethodPost, "/stt/v3/batch/jobs/"+id+"/start", "k", "", nil)
	return status, object(t, b)
}

// TestStartAnswers202: a start, with no body, is answered 202 with the
// job's id, status STARTING and a message, and the job is STARTING.
//
// conformance: BJ-072
func TestStartAnswers202(t *testing.T) {
	s := newService(t, emulator.Options{})
	id := createJob(t, s, "", formFile{"files", "a.wav", speech(t, 1, 1, 8000, 1)})
	status, m := startJob(t, s, id)
	msg, _ := m["message"].(string)
	if status != http.StatusAccepted || m["job_id"] != id || m["status"] != "STARTING" || msg == "" {
		t.Errorf("start: %d %v, want 202 with job_id %s, status STARTING and a message", status, m, id)
	}
	if _, b := s.send(http.MethodGet, "/stt/v3/batch/jobs/"+id, "k", "", nil); object(t, b)["status"] != "STARTING" {
		t.Errorf("after the start: %s", b)
	}
}

// TestWebhookPartiesAndCounters: a webhook payload names the owning
// organization and user as non-empty strings and carries its four file
// counters as integers, cancelled_files too: zero for a completed job,
// every file for one cancelled before its files ran.
//
// conformance: WH-003, WH-005
func TestWebhookPartiesAndCounters(t *testing.T) {
	s := newService(t, emulator.Options{})
	hooks := newWebhooks(t)
	files := []formFile{
		{"files", "a.wav", speech(t, 1, 1, 8000, 1)},
		{"files", "b.wav", speech(t, 2, 1, 8000, 1)},
		{"files", "c.wav", speech(t, 3, 1, 8000, 1)},
	}
	done := createJob(t, s, hooks.url, files[:2]...)
	if status, _ := startJob(t, s, done); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	s.advance(time.Hour)
	completed := hooks.next(t, 0)

	cancelled := createJob(t, s, hooks.url, files...)
	if status, _ := startJob(t, s, cancelled); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	if status, b := s.send(http.MethodPost, "/stt/v3/batch/jobs/"+cancelled+"/cancel", "k", "application/json", jsonBody(`{}`)); status != http.StatusOK {
		t.Fatalf("cancel: %d %s", status, b)
	}
	s.advance(time.Hour)
	stopped := hooks.next(t, 1)

	for _, tc := range []struct {
		hook   map[string]any
		id     string
		event  string
		counts [4]int64 // total, completed, failed, cancelled
	}{
		{completed, done, "job.completed", [4]int64{2, 2, 0, 0}},
		{stopped, cancelled, "job.cancelled", [4]int64{3, 0, 0, 3}},
	} {
		if tc.hook["event"] != tc.event || tc.hook["job_id"] != tc.id {
			t.Errorf("webhook %v, want %s of %s", tc.hook, tc.event, tc.id)
		}
		for _, k := range []string{"org_id", "user_id"} {
			if v, ok := tc.hook[k].(string); !ok || v == "" {
				t.Errorf("%s: %s = %#v, want a non-empty string", tc.event, k, tc.hook[k])
			}
		}
		for i, k := range []string{"total_files", "completed_files", "failed_files", "cancelled_files"} {
			n, ok := tc.hook[k].(json.Number)
			v, err := strconv.ParseInt(string(n), 10, 64)
			if !ok || err != nil || v != tc.counts[i] {
				t.Errorf("%s: %s = %#v, want the integer %d", tc.event, k, tc.hook[k], tc.counts[i])
			}
		}
	}
}

// listFiles returns each file record's original_path and status, once
// the job is terminal (the clock moved on until it is).
func listFiles(t *testing.T, s *service, id string) map[string]string {
	t.Helper()
	eventually(t, "job "+id+" terminal", func() bool {
		s.advance(time.Hour)
		_, b := s.send(http.MethodGet, "/stt/v3/batch/jobs/"+id, "k", "", nil)
		st, _ := object(t, b)["status"].(string)
		return slices.Contains([]string{"COMPLETED", "PARTIAL_FAILURE", "FAILED", "START_FAILED", "CANCELLED"}, st)
	})
	_, b := s.send(http.MethodGet, "/stt/v3/batch/jobs/"+id+"/files", "k", "", nil)
	var page struct {
		Data []struct {
			OriginalPath string `json:"original_path"`
			Status       string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatalf("files: %s: %v", b, err)
	}
	got := map[string]string{}
	for _, r := range page.Data {
		got[r.OriginalPath] = r.Status
	}
	return got
}

// TestOriginalPath: a file record's original_path is the name the file
// was uploaded under, or the URL it was fetched from, exactly.
//
// conformance: BJ-029
func TestOriginalPath(t *testing.T) {
	s := newService(t, emulator.Options{})
	up := createJob(t, s, "",
		formFile{"files", "morning call.wav", speech(t, 1, 1, 8000, 1)},
		formFile{"files", "notes.txt", []byte("not audio")})
	if status, _ := startJob(t, s, up); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	want := map[string]string{"morning call.wav": "COMPLETED", "notes.txt": "SKIPPED"}
	if d := cmp.Diff(want, listFiles(t, s, up)); d != "" {
		t.Errorf("uploads (-want +got):\n%s", d)
	}

	url := newStore(t, speech(t, 2, 1, 8000, 1)) + "/bucket/night%20call.wav"
	status, b := s.send(http.MethodPost, "/stt/v3/batch/jobs", "k", "application/json", jsonBody(`{"config": {"model": "stt-v2.5", "language_code": "hi-IN"},
		"source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": ["`+url+`"]}}`))
	id, _ := object(t, b)["job_id"].(string)
	if status != http.StatusCreated {
		t.Fatalf("create from a URL: %d %s", status, b)
	}
	if status, _ := startJob(t, s, id); status != http.StatusAccepted {
		t.Fatalf("start: %d", status)
	}
	if d := cmp.Diff(map[string]string{url: "COMPLETED"}, listFiles(t, s, id)); d != "" {
		t.Errorf("URL source (-want +got):\n%s", d)
	}
}

// TestTranscriptFollowsFormat: the REST transcript of the same speech is
// its spoken form with format=verbatim or none, and normalized (ITN) with
// format=transcribe.
//
// conformance: STT-006
func TestTranscriptFollowsFormat(t *testing.T) {
	s := newService(t, emulator.Options{NoEspeak: true})
	text := "I paid five hundred rupees on the twenty first."
	status, wav := s.send(http.MethodPost, "/api/v1/tts/inference", "k", "application/json",
		jsonBody(`{"text": "`+text+`", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "wav", "sample_rate": 22050}}`))
	if status != http.StatusOK {
		t.Fatalf("synthesize: %d %s", status, wav)
	}
	for _, tc := range []struct{ format, want string }{
		{"", text},
		{"verbatim", text},
		{"transcribe", "I paid ₹500 on the 21st."},
	} {
		fields := map[string]string{"language_code": "en-IN"}
		if tc.format != "" {
			fields["format"] = tc.format
		}
		body, ctype := form(t, fields, formFile{"audio_file", "a.wav", wav})
		status, b := s.send(http.MethodPost, "/stt/v3", "k", ctype, body)
		if got, _ := object(t, b)["transcript"].(string); status != http.StatusOK || got != tc.want {
			t.Errorf("format %q: %d %s, want transcript %q", tc.format, status, b, tc.want)
		}
	}
}

// TestOlderBatchSpeakers: the older batch names at most 2 speakers. It has
// no field that asks for diarization; the speaker_id it fills in for
// multi-channel audio takes two values, even for four channels.
//
// conformance: OB-036
func TestOlderBatchSpeakers(t *testing.T) {
	s := newService(t, emulator.Options{})
	for _, channels := range []int{2, 4} {
		body, ctype := form(t, map[string]string{"language_code": "hi-IN", "is_multi_channel": "true"},
			formFile{"audio_files", "call.wav", speech(t, 9, 20, 8000, channels)})
		status, b := s.send(http.MethodPost, "/stt/v3/batch/submit", "k", ctype, body)
		id, _ := object(t, b)["job_id"].(string)
		if status != http.StatusOK || id == "" {
			t.Fatalf("submit: %d %s", status, b)
		}
		s.advance(time.Hour)
		_, b = s.send(http.MethodGet, "/stt/v3/batch/status/"+id, "k", "", nil)
		var job struct {
			Status  string `json:"status"`
			Results []struct {
				Segments []struct {
					SpeakerID int `json:"speaker_id"`
				} `json:"segments"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &job); err != nil || job.Status != "completed" || len(job.Results) != 1 {
			t.Fatalf("%d channels: %s %v", channels, b, err)
		}
		speakers := map[int]int{}
		for _, sg := range job.Results[0].Segments {
			speakers[sg.SpeakerID]++
		}
		if segs := len(job.Results[0].Segments); segs < 4 || len(speakers) != 2 || speakers[0] == 0 || speakers[1] == 0 {
			t.Errorf("%d channels: speakers %v over %d segments, want 0 and 1 only", channels, speakers, segs)
		}
	}
}

// newStore serves body at every path of a loopback address, as public
// storage, and returns its base URL.
func newStore(t *testing.T, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wav") {
			_, _ = w.Write(body)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
