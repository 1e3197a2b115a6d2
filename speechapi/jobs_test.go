package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

var hiConfig = speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "hi-IN"}

// jobStatuses are the documented batch job statuses.
var jobStatuses = []string{speechapi.JobCreated, speechapi.JobStarting, speechapi.JobQueued, speechapi.JobInProgress,
	speechapi.JobCompleted, speechapi.JobPartialFailure, speechapi.JobFailed, speechapi.JobStartFailed,
	speechapi.JobCancelling, speechapi.JobCancelled}

// conformance: BJ-021, BJ-024, BJ-028, BJ-030, BJ-031, BJ-039, BJ-041, BJ-042, BJ-043,
// BJ-044, BJ-045, BJ-046, BJ-047, BJ-048, BJ-049, BJ-054, BJ-067, BJ-074, BJ-075, BJ-078, BJ-080,
// BJ-081, BJ-082, BJ-083, BJ-085, BJ-094, ERR-009
func TestBatchJob151FilesSplit(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	var files []speechapi.Source
	for i := range 151 {
		files = append(files, writeAudioFile(t, dir, fmt.Sprintf("call-%03d.wav", i), wavBytes(t, uint64(100+i), 0.3, 8000, kindSpeech)))
	}
	plan, err := speechapi.PlanJobs(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || len(plan[0]) != 100 || len(plan[1]) != 51 {
		t.Fatalf("plan sizes %d", len(plan))
	}
	var created []string
	poll := fastPoll
	poll.OnStatus = func(s string) {
		if !slices.Contains(jobStatuses, s) {
			t.Fatalf("job status %q is not one of %v", s, jobStatuses)
		}
	}
	res, err := e.client.RunJob(context.Background(), hiConfig, files, speechapi.RunOptions{Poll: poll,
		OnCreated: func(id string, _ []speechapi.Source) { created = append(created, id) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || len(res.Jobs) != 2 || len(res.Files) != 151 {
		t.Fatalf("created %d jobs, %d results, %d files", len(created), len(res.Jobs), len(res.Files))
	}
	for i, j := range res.Jobs {
		n := len(plan[i])
		if j.JobID != created[i] || j.Status != speechapi.JobCompleted ||
			j.Progress != (speechapi.JobProgress{TotalFiles: n, CompletedFiles: n}) {
			t.Errorf("job %d: %s %s %+v, want %s COMPLETED with %d of %d files completed", i, j.JobID, j.Status, j.Progress, created[i], n, n)
		}
	}
	ctx := context.Background()
	// Pagination: 100 files in pages of 30.
	seen := map[string]bool{}
	q := speechapi.FilesQuery{Limit: 30}
	pages := 0
	for {
		p, err := e.client.ListJobFiles(ctx, created[0], q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if p.JobID != created[0] || p.Pagination.TotalCount != 100 || len(p.Data) > 30 {
			t.Fatalf("page %d of job %q: total %d, %d records", pages, p.JobID, p.Pagination.TotalCount, len(p.Data))
		}
		for _, r := range p.Data {
			if seen[r.FileID] {
				t.Fatalf("file %s listed twice", r.FileID)
			}
			seen[r.FileID] = true
		}
		if !p.Pagination.HasMore {
			if p.Pagination.NextCursor != nil {
				t.Errorf("last page has a next_cursor")
			}
			break
		}
		q.Cursor = *p.Pagination.NextCursor
	}
	if pages != 4 || len(seen) != 100 {
		t.Errorf("%d pages, %d files", pages, len(seen))
	}
	// Default page size 50.
	p, err := e.client.ListJobFiles(ctx, created[0], speechapi.FilesQuery{})
	if err != nil || len(p.Data) != 50 {
		t.Fatalf("default page: %v, %d records", err, len(p.Data))
	}
	// The listing holds no transcript text.
	status, raw := rawJSON(t, http.MethodGet, e.http.URL+"/stt/v3/batch/jobs/"+created[0]+"/files", "")
	if data, _ := raw["data"].([]any); status != http.StatusOK || len(data) != 50 {
		t.Fatalf("raw listing: %d %v", status, raw)
	}
	for _, r := range raw["data"].([]any) {
		if v, ok := r.(map[string]any)["full_transcript"]; ok {
			t.Fatalf("files listing record has full_transcript %v", v)
		}
	}
	// Download every transcript, without the key.
	for _, f := range res.Files {
		if f.Record.Status != speechapi.FileCompleted || f.Record.DurationSeconds == nil || *f.Record.DurationSeconds != "0.300" {
			t.Fatalf("record %+v", f.Record)
		}
		var buf bytes.Buffer
		if _, err := e.client.DownloadTranscript(ctx, f.JobID, f.Record, &buf); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			FileID         string           `json:"file_id"`
			JobID          string           `json:"job_id"`
			OriginalPath   string           `json:"original_path"`
			LanguageCode   string           `json:"language_code"`
			Model          string           `json:"model"`
			Mode           string           `json:"mode"`
			FullTranscript string           `json:"full_transcript"`
			CreatedAt      string           `json:"created_at"`
			Duration       any              `json:"duration_seconds"`
			Segments       []map[string]any `json:"segments"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.FileID != f.Record.FileID || doc.JobID != f.JobID || doc.OriginalPath != f.Record.OriginalPath ||
			doc.LanguageCode != "hi-IN" || doc.Model != "stt-v2.5" || doc.Mode != "transcribe" || doc.FullTranscript == "" || len(doc.Segments) == 0 {
			t.Fatalf("transcript %s", buf.String())
		}
		if _, err := time.Parse(time.RFC3339, doc.CreatedAt); err != nil || doc.Duration != 0.3 {
			t.Fatalf("transcript created_at %q (%v), duration_seconds %#v, want a time and the number 0.3", doc.CreatedAt, err, doc.Duration)
		}
		checkSegmentTypes(t, doc.Segments)
		for _, k := range []string{"confidence", "language_detected", "sentiment", "emotion"} {
			if v, ok := doc.Segments[0][k]; !ok || v != nil {
				t.Fatalf("segment %s = %v, want null", k, v)
			}
		}
	}
	st := e.stats(t)
	if st.BatchJobsCreated != 2 || st.BatchJobsStarted != 2 || st.FilesTranscribed != 151 ||
		st.PresignedDownloads != 151 || st.PresignedDownloadsWithAPIKey != 0 {
		t.Errorf("stats %+v", st)
	}
	if d := st.BilledAudioSeconds - 151*0.3; d < -0.01 || d > 0.01 {
		t.Errorf("billed %.3f s, want %.1f", st.BilledAudioSeconds, 151*0.3)
	}
	if st.Requests["POST /stt/v3/batch/jobs"] != 2 || st.Requests["POST /stt/v3/batch/jobs/{job_id}/start"] != 2 {
		t.Errorf("requests %v", st.Requests)
	}
}

// checkSegmentTypes asserts each transcript segment's documented types:
// segment_id the integer of its place, start_time and end_time numbers,
// text a non-empty string, speaker_id an integer.
func checkSegmentTypes(t *testing.T, segs []map[string]any) {
	t.Helper()
	for i, s := range segs {
		id, idOK := s["segment_id"].(float64)
		start, startOK := s["start_time"].(float64)
		end, endOK := s["end_time"].(float64)
		text, textOK := s["text"].(string)
		spk, spkOK := s["speaker_id"].(float64)
		if !idOK || id != float64(i) || !startOK || !endOK || end <= start || !textOK || text == "" || !spkOK || spk != float64(int(spk)) {
			t.Fatalf("segment %d: %v, want segment_id %d, numbers start_time < end_time, a text and an integer speaker_id", i, s, i)
		}
	}
}

// conformance: BJ-084, BJ-086, BJ-085
func TestTranscriptURLExpiredIsRefreshed(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{TranscriptURLTTL: time.Minute})
	dir := t.TempDir()
	ctx := context.Background()
	res, err := e.client.RunJob(ctx, hiConfig, []speechapi.Source{writeAudioFile(t, dir, "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech))}, speechapi.RunOptions{Poll: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Files[0].Record
	e.advance(2 * time.Minute) // the listed link is now expired
	resp, err := http.Get(*rec.TranscriptURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("expired link answered %d", resp.StatusCode)
	}
	var buf bytes.Buffer
	if _, err := e.client.DownloadTranscript(ctx, res.Jobs[0].JobID, rec, &buf); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("downloaded %q", buf.String())
	}
	st := e.stats(t)
	if st.PresignedDownloads != 1 || st.PresignedDownloadsWithAPIKey != 0 || st.Requests["GET /stt/v3/batch/jobs/{job_id}/files"] != 2 {
		t.Errorf("stats %+v", st)
	}
}

// webhookSink collects webhook payloads.
type webhookSink struct {
	mu   sync.Mutex
	got  []map[string]any
	srv  *httptest.Server
	seen chan struct{}
}

func newWebhookSink(t *testing.T) *webhookSink {
	s := &webhookSink{seen: make(chan struct{}, 10)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		s.mu.Lock()
		s.got = append(s.got, m)
		s.mu.Unlock()
		s.seen <- struct{}{}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// wait returns the next payload.
func (s *webhookSink) wait(t *testing.T) map[string]any {
	t.Helper()
	select {
	case <-s.seen:
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[len(s.got)-1]
}

// checkWebhookParties asserts a payload's org_id and user_id are non-empty
// strings, and its four counters integers of the given values (total,
// completed, failed, cancelled), cancelled_files included whatever its value.
func checkWebhookParties(t *testing.T, hook map[string]any, counts ...int) {
	t.Helper()
	for _, k := range []string{"org_id", "user_id"} {
		if s, ok := hook[k].(string); !ok || s == "" {
			t.Errorf("webhook %s = %#v, want a non-empty string", k, hook[k])
		}
	}
	for i, k := range []string{"total_files", "completed_files", "failed_files", "cancelled_files"} {
		if n, ok := hook[k].(float64); !ok || n != float64(counts[i]) {
			t.Errorf("webhook %s = %#v, want the integer %d", k, hook[k], counts[i])
		}
	}
}

// conformance: BJ-035, BJ-030, BJ-033, WH-001, WH-002, WH-003, WH-004, WH-005, WH-006, WH-007, WH-008, WH-012, WH-013
func TestPartialFailureAndWebhook(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	sink := newWebhookSink(t)
	dir := t.TempDir()
	files := []speechapi.Source{
		writeAudioFile(t, dir, "good.wav", wavBytes(t, 1, 1, 16000, kindSpeech)),
		writeAudioFile(t, dir, "quiet.wav", wavBytes(t, 2, 1, 16000, kindSilent)),
		writeAudioFile(t, dir, "beep.wav", wavBytes(t, 3, 1, 16000, kindTone)),
	}
	res, err := e.client.RunJob(context.Background(), hiConfig, files, speechapi.RunOptions{Poll: fastPoll, CallbackURL: sink.srv.URL + "/hook"})
	if res == nil || res.Jobs[0].Status != speechapi.JobPartialFailure {
		t.Fatalf("result %+v, %v", res, err)
	}
	var named []string
	for _, target := range []string{"quiet.wav", "beep.wav"} {
		var fe *speechapi.FileError
		found := false
		for _, f := range res.Files {
			if errors.As(f.Err, &fe) && fe.Path == target && fe.Status == speechapi.FileFailed &&
				strings.Contains(fe.Message, "transcript empty after 3 retries") && fe.FileID != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("no FileError for %s in %v", target, err)
		}
		named = append(named, target)
	}
	if err == nil || !strings.Contains(err.Error(), named[0]) {
		t.Errorf("joined error %v does not name %s", err, named[0])
	}
	hook := sink.wait(t)
	if hook["event"] != "job.partial_failure" || hook["status"] != "PARTIAL_FAILURE" || hook["job_id"] != res.Jobs[0].JobID ||
		hook["callback_url"] != sink.srv.URL+"/hook" || hook["completed_files"] != 1.0 || hook["failed_files"] != 2.0 ||
		hook["total_files"] != 3.0 || hook["completed_at"] == nil {
		t.Errorf("webhook %v", hook)
	}
	checkWebhookParties(t, hook, 3, 1, 2, 0)
	if tr, _ := hook["transcripts"].([]any); len(tr) != 1 || tr[0].(map[string]any)["full_transcript"] == "" {
		t.Errorf("webhook transcripts %v", hook["transcripts"])
	}
	if got := e.stats(t).WebhooksSent; got != 1 {
		t.Errorf("webhooks_sent = %d", got)
	}
}

// conformance: BJ-055, BJ-036, BJ-037, BJ-073, BJ-076, BJ-077, BJ-060, BJ-061, BJ-062, BJ-063, BJ-064, BJ-065, BJ-066, BJ-025, WH-014
func TestURLJobStartFailedAndPrefix(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	sink := newWebhookSink(t)
	ctx := context.Background()
	// Every path bad: a host the emulator never reaches, a bad format.
	created, err := e.client.CreateJobURLs(ctx, hiConfig, []string{"https://audio.example.com/a.wav", "https://127.0.0.1:1/notes.txt"}, sink.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if created.Status != speechapi.JobCreated || created.TotalFilesAccepted != nil || created.CreatedAt == "" || created.Message == "" {
		t.Errorf("create %+v", created)
	}
	// The documented answer, as sent: 201 with job_id, status, created_at,
	// message and a null total_files_accepted.
	status, raw := rawJSON(t, http.MethodPost, e.http.URL+"/stt/v3/batch/jobs", `{"config": {"model": "stt-v2.5", "language_code": "hi-IN"},
		"source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": ["https://audio.example.com/a.wav"]}, "callback_url": "`+sink.srv.URL+`"}`)
	if id, _ := raw["job_id"].(string); status != http.StatusCreated || id == "" || raw["status"] != speechapi.JobCreated {
		t.Errorf("raw create: %d %v, want 201 with a job_id and CREATED", status, raw)
	}
	for _, k := range []string{"created_at", "message"} {
		if s, _ := raw[k].(string); s == "" {
			t.Errorf("raw create %s = %#v, want a string", k, raw[k])
		}
	}
	if v, ok := raw["total_files_accepted"]; !ok || v != nil {
		t.Errorf("raw create total_files_accepted = %#v, want null", v)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	var je *speechapi.JobError
	if !errors.As(job.Err(), &je) || je.Status != speechapi.JobStartFailed || je.Reason == "" || je.JobID != created.JobID {
		t.Fatalf("job error %v", job.Err())
	}
	recs, err := e.client.AllJobFiles(ctx, created.JobID, "")
	if err != nil || len(recs) != 2 {
		t.Fatalf("files %v %v", recs, err)
	}
	for _, r := range recs {
		var fe *speechapi.FileError
		if !errors.As(r.Err(created.JobID), &fe) || fe.Status != speechapi.FileSkipped || fe.Path != r.OriginalPath {
			t.Errorf("record %+v", r)
		}
	}
	if !strings.HasPrefix(*recs[0].ErrorMessage, "ENOTFOUND") {
		t.Errorf("unreachable host message %q", *recs[0].ErrorMessage)
	}
	if !strings.HasPrefix(*recs[1].ErrorMessage, "UNSUPPORTED_FORMAT") {
		t.Errorf("bad format message %q", *recs[1].ErrorMessage)
	}
	if hook := sink.wait(t); hook["event"] != "job.failed" || hook["status"] != "START_FAILED" {
		t.Errorf("webhook %v", hook)
	}

	// A prefix on a loopback server expands to the audio files under it.
	mux := http.NewServeMux()
	mux.HandleFunc("/bucket/calls/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bucket/calls/":
			io.WriteString(w, `<a href="one.wav">one</a> <a href="two.wav">two</a> <a href="quiet.wav">q</a> <a href="readme.txt">r</a>`)
		case "/bucket/calls/one.wav":
			w.Write(wavBytes(t, 21, 1, 16000, kindSpeech))
		case "/bucket/calls/two.wav":
			w.Write(wavBytes(t, 22, 1, 16000, kindSpeech))
		case "/bucket/calls/quiet.wav":
			w.Write(wavBytes(t, 23, 1, 16000, kindSilent))
		default:
			http.NotFound(w, r)
		}
	})
	// A pre-signed URL: the store answers only with its signature.
	mux.HandleFunc("/bucket/signed.wav", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != "abc" {
			http.Error(w, "AccessDenied", http.StatusForbidden)
			return
		}
		w.Write(wavBytes(t, 24, 1, 16000, kindSpeech))
	})
	store := httptest.NewServer(mux)
	defer store.Close()
	created, err = e.client.CreateJobURLs(ctx, hiConfig, []string{store.URL + "/bucket/calls/", store.URL + "/bucket/missing.wav",
		store.URL + "/bucket/signed.wav?X-Amz-Expires=3600&X-Amz-Signature=abc"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err = e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil || job.Status != speechapi.JobPartialFailure || job.Progress.CompletedFiles != 3 || job.Progress.FailedFiles != 2 {
		t.Fatalf("prefix job %+v %v", job, err)
	}
	// Unfiltered, the listing holds every record, FAILED and SKIPPED too.
	all, err := e.client.AllJobFiles(ctx, created.JobID, "")
	counts := map[string]int{}
	for _, r := range all {
		counts[r.Status]++
	}
	if err != nil || len(all) != 5 || counts[speechapi.FileCompleted] != 3 || counts[speechapi.FileFailed] != 1 || counts[speechapi.FileSkipped] != 1 {
		t.Fatalf("unfiltered listing: %v %v, want 3 COMPLETED, 1 FAILED, 1 SKIPPED", counts, err)
	}
	done, err := e.client.AllJobFiles(ctx, created.JobID, speechapi.FileCompleted)
	if err != nil || len(done) != 3 || done[0].OriginalPath != store.URL+"/bucket/calls/one.wav" {
		t.Fatalf("completed files %+v %v", done, err)
	}
	skipped, err := e.client.AllJobFiles(ctx, created.JobID, speechapi.FileSkipped)
	if err != nil || len(skipped) != 1 || !strings.HasPrefix(*skipped[0].ErrorMessage, "HTTP_404") {
		t.Fatalf("skipped files %+v %v", skipped, err)
	}
}

// conformance: BJ-056, BJ-057, BJ-058, BJ-038, BJ-089, BJ-088, BJ-032, WH-003, WH-005, WH-009, WH-011, ERR-032, ERR-036
func TestCancelJob(t *testing.T) {
	// Real-time scale: the job cannot finish unless the test moves the clock.
	e := newRecogEmu(t, emulator.Options{TimeScale: 1})
	sink := newWebhookSink(t)
	dir := t.TempDir()
	ctx := context.Background()
	var files []speechapi.Source
	for i := range 12 {
		files = append(files, writeAudioFile(t, dir, fmt.Sprintf("f%d.wav", i), wavBytes(t, uint64(i), 0.5, 8000, kindSpeech)))
	}
	created, err := e.client.CreateJobUpload(ctx, hiConfig, files, sink.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	// The cancel goes through a recorder: POST, application/json, the
	// reason in the body.
	var sent []string
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/cancel") {
			b, _ := io.ReadAll(r.Body)
			sent = append(sent, r.Method+" "+r.Header.Get("Content-Type")+" "+string(b))
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		e.srv.ServeHTTP(w, r)
	}))
	defer rec.Close()
	c, err := newRecogClient(t, rec.URL, "test-key").CancelJob(ctx, created.JobID, "wrong language")
	if err != nil || c.Status != speechapi.JobCancelling || c.CancelledAt == nil || c.JobID != created.JobID || c.Message == "" {
		t.Fatalf("cancel %+v %v", c, err)
	}
	if want := `POST application/json {"reason":"wrong language"}`; len(sent) != 1 || sent[0] != want {
		t.Errorf("cancel sent %q, want %q", sent, want)
	}
	again, err := e.client.CancelJob(ctx, created.JobID, "")
	if err != nil || !again.AlreadyCancelled {
		t.Fatalf("second cancel %+v %v", again, err)
	}
	e.advance(2 * time.Second) // CANCELLING lasts 2 s
	job, err := e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil || job.Status != speechapi.JobCancelled || job.Progress.CancelledFiles != 12 || *job.CancelReason != "wrong language" {
		t.Fatalf("job %+v %v", job, err)
	}
	// A CANCELLED job cancelled again: 409 JOB_CANCELLED, left unchanged.
	again, err = e.client.CancelJob(ctx, created.JobID, "another reason")
	if err != nil || !again.AlreadyCancelled {
		t.Fatalf("cancel of a CANCELLED job %+v %v", again, err)
	}
	if j, err := e.client.GetJob(ctx, created.JobID); err != nil || j.Status != speechapi.JobCancelled || *j.CancelReason != "wrong language" ||
		*j.CancelledAt != *job.CancelledAt || *j.UpdatedAt != *job.UpdatedAt {
		t.Fatalf("job after a second cancel %+v %v, was %+v", j, err, job)
	}
	hook := sink.wait(t)
	if hook["event"] != "job.cancelled" || hook["completed_at"] != nil || len(hook["transcripts"].([]any)) != 0 {
		t.Errorf("webhook %v", hook)
	}
	checkWebhookParties(t, hook, 12, 0, 0, 12)
	recs, err := e.client.AllJobFiles(ctx, created.JobID, speechapi.FileCancelled)
	if err != nil || len(recs) != 12 || recs[0].TranscriptURL != nil {
		t.Fatalf("cancelled files %d %v", len(recs), err)
	}
	// From CREATED: cancelled at once, with a webhook.
	created, err = e.client.CreateJobUpload(ctx, hiConfig, files[:1], sink.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err = e.client.CancelJob(ctx, created.JobID, "")
	if err != nil || c.Status != speechapi.JobCancelled {
		t.Fatalf("cancel from CREATED %+v %v", c, err)
	}
	if hook := sink.wait(t); hook["event"] != "job.cancelled" || hook["job_id"] != created.JobID {
		t.Errorf("webhook %v", hook)
	}
	// The body is optional: a cancel without one is accepted.
	created, err = e.client.CreateJobUpload(ctx, hiConfig, files[:1], "")
	if err != nil {
		t.Fatal(err)
	}
	status, raw := rawJSON(t, http.MethodPost, e.http.URL+"/stt/v3/batch/jobs/"+created.JobID+"/cancel", "")
	if status != http.StatusOK || raw["status"] != speechapi.JobCancelled || raw["job_id"] != created.JobID {
		t.Errorf("cancel without a body: %d %v", status, raw)
	}
	// A completed job is not cancellable.
	fast := newRecogEmu(t, emulator.Options{})
	res, err := fast.client.RunJob(ctx, hiConfig, files[:1], speechapi.RunOptions{Poll: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fast.client.CancelJob(ctx, res.Jobs[0].JobID, "")
	if se := serviceError(t, err); se.StatusCode != 409 || se.Type != speechapi.CodeJobNotCancellable {
		t.Errorf("cancel completed: %v", se)
	}
	if st := e.stats(t); st.BatchJobsCancelled != 3 || st.FilesTranscribed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestJobStateOrder steps the emulator's clock through a job's life at
// real-time scale and sees every documented state in order.
// conformance: BJ-050, BJ-051, BJ-052, BJ-053, BJ-054, BJ-057, BJ-071, BJ-026
func TestJobStateOrder(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{TimeScale: 1})
	ctx := context.Background()
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 1, 10, 8000, kindSpeech))
	created, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	status := func() *speechapi.Job {
		t.Helper()
		j, err := e.client.GetJob(ctx, created.JobID)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	e.advance(time.Hour) // creating does not start transcription
	if j := status(); j.Status != speechapi.JobCreated || speechapi.IsTerminal(j.Status) {
		t.Fatalf("after an hour: %s", j.Status)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		after time.Duration
		want  string
		queue int
	}{
		{0, speechapi.JobStarting, 1},
		{2 * time.Second, speechapi.JobQueued, 1},
		{2 * time.Second, speechapi.JobInProgress, 0},
		{2500 * time.Millisecond, speechapi.JobInProgress, 0}, // 2 s + 10 s / 10 per file
		{500 * time.Millisecond, speechapi.JobCompleted, 0},
	}
	for i, s := range steps {
		e.advance(s.after)
		j := status()
		if j.Status != s.want || j.Progress.QueuedFiles != s.queue || speechapi.IsTerminal(j.Status) != (s.want == speechapi.JobCompleted) {
			t.Fatalf("step %d: %s %+v, want %s", i, j.Status, j.Progress, s.want)
		}
		if s.want == speechapi.JobInProgress && j.Progress.InProgressFiles != 1 {
			t.Errorf("step %d: in progress %+v", i, j.Progress)
		}
		if s.want == speechapi.JobCompleted && (j.CompletedAt == nil || j.StartedAt == nil || j.Progress.CompletedFiles != 1) {
			t.Errorf("completed job %+v", j)
		}
	}
	// Cancelling a running job: CANCELLING, then CANCELLED.
	created, err = e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	e.advance(5 * time.Second)
	if c, err := e.client.CancelJob(ctx, created.JobID, ""); err != nil || c.Status != speechapi.JobCancelling {
		t.Fatalf("cancel %+v %v", c, err)
	}
	if j := status(); j.Status != speechapi.JobCancelling || j.CancelReason == nil {
		t.Fatalf("after cancel: %+v", j)
	}
	e.advance(2 * time.Second)
	if j := status(); j.Status != speechapi.JobCancelled || j.CancelledAt == nil || j.CompletedAt != nil {
		t.Fatalf("after cancelling: %+v", j)
	}
}
