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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// runJob creates, starts and waits for an upload job and lists its files.
func runJob(t *testing.T, e *recogEmu, cfg speechapi.JobConfig, files []speechapi.Source) (*speechapi.Job, []speechapi.FileRecord) {
	t.Helper()
	ctx := context.Background()
	created, err := e.client.CreateJobUpload(ctx, cfg, files, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := e.client.AllJobFiles(ctx, created.JobID, "")
	if err != nil {
		t.Fatal(err)
	}
	return job, recs
}

// TestFileRecordOriginalPath: a file record's original_path is the name
// the file was uploaded under or the URL it was fetched from, exactly.
// The client uploads each source under its Name (not the name of the file
// it reads), reads original_path into OriginalPath, and names the file
// by it when it failed; the emulator keeps what it was given.
//
// conformance: BJ-029
func TestFileRecordOriginalPath(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	renamed := writeAudioFile(t, dir, "take-7.wav", wavBytes(t, 51, 0.5, 8000, kindSpeech))
	renamed.Name = "morning call.wav"
	clip := wavBytes(t, 52, 0.5, 8000, kindSpeech)
	files := []speechapi.Source{
		renamed,
		speechapi.ReaderSource("evening, call 2.wav", bytes.NewReader(clip), int64(len(clip))),
		writeAudioFile(t, dir, "notes.txt", []byte("not audio")),
	}
	job, recs := runJob(t, e, hiConfig, files)
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(wavBytes(t, 53, 0.5, 8000, kindSpeech))
	}))
	defer store.Close()
	url := store.URL + "/bucket/night%20call.wav"
	created, err := e.client.CreateJobURLs(ctx, hiConfig, []string{url}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.WaitJob(ctx, created.JobID, fastPoll); err != nil {
		t.Fatal(err)
	}
	fetched, err := e.client.AllJobFiles(ctx, created.JobID, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range append(recs, fetched...) {
		got[r.OriginalPath] = r.Status
		var fe *speechapi.FileError
		if err := r.Err(job.JobID); err != nil && (!errors.As(err, &fe) || fe.Path != r.OriginalPath) {
			t.Errorf("%s: error %v does not name it", r.OriginalPath, err)
		}
	}
	want := map[string]string{"morning call.wav": speechapi.FileCompleted, "evening, call 2.wav": speechapi.FileCompleted,
		"notes.txt": speechapi.FileSkipped, url: speechapi.FileCompleted}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("original_path of each record (-want +got):\n%s", d)
	}
}

// TestFileRecordTimestamps: the emulator's file records carry created_at
// and completed_at as ISO 8601 strings or null, and the client reads both
// forms.
//
// conformance: BJ-034
func TestFileRecordTimestamps(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	files := []speechapi.Source{
		writeAudioFile(t, dir, "talk.wav", wavBytes(t, 41, 1, 16000, kindSpeech)),
		writeAudioFile(t, dir, "hush.wav", wavBytes(t, 42, 1, 16000, kindSilent)),
		writeAudioFile(t, dir, "notes.txt", []byte("not audio")),
	}
	job, _ := runJob(t, e, hiConfig, files)
	status, body := rawJSON(t, http.MethodGet, e.http.URL+"/stt/v3/batch/jobs/"+job.JobID+"/files", "")
	data, _ := body["data"].([]any)
	if status != 200 || len(data) != 3 {
		t.Fatalf("files listing %d %v", status, body)
	}
	statuses := map[string]bool{}
	for _, d := range data {
		rec := d.(map[string]any)
		statuses[rec["status"].(string)] = true
		for _, key := range []string{"created_at", "completed_at"} {
			v, present := rec[key]
			if !present {
				t.Errorf("%v: no %s", rec["original_path"], key)
				continue
			}
			if v == nil {
				continue
			}
			s, ok := v.(string)
			if _, err := time.Parse(time.RFC3339, s); !ok || err != nil {
				t.Errorf("%v: %s = %#v, want an ISO 8601 string or null", rec["original_path"], key, v)
			}
		}
		if rec["status"] == speechapi.FileCompleted && (rec["created_at"] == nil || rec["completed_at"] == nil) {
			t.Errorf("completed record without times: %v", rec)
		}
	}
	if len(statuses) < 2 {
		t.Errorf("records of statuses %v: want a completed one and a failed or skipped one", statuses)
	}

	// The client reads a string and a null alike.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"job_id": "job_1", "data": [
			{"file_id": "f1", "original_path": "a.wav", "status": "COMPLETED", "duration_seconds": "1.500",
			 "transcript_url": "https://s.example.com/t", "error_message": null,
			 "created_at": "2025-03-01T10:00:00.000Z", "completed_at": "2025-03-01T10:00:04.250Z"},
			{"file_id": "f2", "original_path": "b.wav", "status": "SKIPPED", "duration_seconds": null,
			 "transcript_url": null, "error_message": "UNSUPPORTED_FORMAT: b.wav",
			 "created_at": null, "completed_at": null}],
			"pagination": {"has_more": false, "next_cursor": null, "total_count": 2}}`)
	}))
	defer srv.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := c.AllJobFiles(context.Background(), "job_1", "")
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v %v", recs, err)
	}
	if recs[0].CreatedAt == nil || *recs[0].CreatedAt != "2025-03-01T10:00:00.000Z" ||
		recs[0].CompletedAt == nil || *recs[0].CompletedAt != "2025-03-01T10:00:04.250Z" {
		t.Errorf("string times: %+v", recs[0])
	}
	if recs[1].CreatedAt != nil || recs[1].CompletedAt != nil || recs[1].Err("job_1") == nil {
		t.Errorf("null times: %+v", recs[1])
	}
}

// TestDenoiseEveryFileOriginalAudio: with with_denoise the emulator gives
// every file of the job, a clean recording and a noisy one alike, the
// enhancement's extra processing (a quarter of its duration, seen in each
// record's completed_at), and, as a platform with enhancement off would,
// transcribes the original audio: the job completes with the very
// transcripts of the same job without denoise. The transcript JSON and
// the webhook payload keep their shapes.
//
// conformance: BJ-014, BJ-015, BJ-016, BJ-019
func TestDenoiseEveryFileOriginalAudio(t *testing.T) {
	const scale = 20 // service seconds per wall second: millisecond stamps still tell a quarter-second apart
	e := newRecogEmu(t, emulator.Options{TimeScale: scale, NoEspeak: true})
	dir := t.TempDir()
	var clean bytes.Buffer
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "The meeting moves to the third floor.", Model: "tts-v2.5", Voice: "Nalini", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 16000}}}
	if _, err := e.client.Synthesize(context.Background(), req, &clean); err != nil {
		t.Fatal(err)
	}
	files := []speechapi.Source{
		writeAudioFile(t, dir, "clean.wav", clean.Bytes()),
		writeAudioFile(t, dir, "noisy.wav", wavBytes(t, 43, 4, 16000, kindSpeech)),
	}
	cfg := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "en-IN"}
	plainJob, plain := runJob(t, e, cfg, files)
	cfg.WithDenoise = recogPtr(true)
	denoisedJob, denoised := runJob(t, e, cfg, files)
	if plainJob.Status != speechapi.JobCompleted || denoisedJob.Status != speechapi.JobCompleted ||
		denoisedJob.Config.WithDenoise == nil || !*denoisedJob.Config.WithDenoise {
		t.Fatalf("jobs %s and %s (%+v)", plainJob.Status, denoisedJob.Status, denoisedJob.Config)
	}
	// Each file's processing ends this long after its job started.
	span := func(j *speechapi.Job, r speechapi.FileRecord) time.Duration {
		start, err1 := time.Parse(time.RFC3339, *j.StartedAt)
		end, err2 := time.Parse(time.RFC3339, *r.CompletedAt)
		if err1 != nil || err2 != nil {
			t.Fatalf("times %v %v", err1, err2)
		}
		return end.Sub(start)
	}
	for i := range plain {
		var seconds float64
		fmt.Sscan(*plain[i].DurationSeconds, &seconds)
		extra := span(denoisedJob, denoised[i]) - span(plainJob, plain[i])
		want := time.Duration(seconds * 0.25 / scale * float64(time.Second))
		if d := extra - want; d < -2*time.Millisecond || d > 2*time.Millisecond {
			t.Errorf("%s: denoise added %v of processing, want a quarter of %.3f s at 1/%d: %v",
				plain[i].OriginalPath, extra, seconds, scale, want)
		}
		if got, want := transcriptText(t, e, denoisedJob.JobID, denoised[i]), transcriptText(t, e, plainJob.JobID, plain[i]); got != want || got == "" {
			t.Errorf("%s: denoised transcript %s, original %s", plain[i].OriginalPath, got, want)
		}
		if got, want := jsonShape(transcriptDoc(t, e, denoisedJob.JobID, denoised[i])), jsonShape(transcriptDoc(t, e, plainJob.JobID, plain[i])); got != want {
			t.Errorf("%s: denoised transcript shape\n%s\noriginal\n%s", plain[i].OriginalPath, got, want)
		}
	}
	// The webhook payload of a denoised job has the shape of a plain one's,
	// transcripts included.
	sink := newWebhookSink(t)
	var hooks []map[string]any
	for _, den := range []*bool{nil, recogPtr(true)} {
		cfg.WithDenoise = den
		created, err := e.client.CreateJobUpload(context.Background(), cfg, files, sink.srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.client.StartJob(context.Background(), created.JobID); err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, sink.wait(t))
	}
	if got, want := jsonShape(hooks[1]), jsonShape(hooks[0]); got != want || !strings.Contains(want, "transcripts:[{") {
		t.Errorf("denoised webhook shape\n%s\nplain\n%s", got, want)
	}
	if tr, _ := hooks[1]["transcripts"].([]any); len(tr) != len(files) {
		t.Errorf("denoised webhook transcripts %v, want %d", hooks[1]["transcripts"], len(files))
	}
}

// transcriptDoc downloads a file's transcript JSON.
func transcriptDoc(t *testing.T, e *recogEmu, jobID string, rec speechapi.FileRecord) map[string]any {
	t.Helper()
	var out bytes.Buffer
	if _, err := e.client.DownloadTranscript(context.Background(), jobID, rec, &out); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// jsonShape describes decoded JSON by its keys and value types, an array
// by its first element: two documents of one shape describe alike.
func jsonShape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			keys[i] = k + ":" + jsonShape(v[k])
		}
		return "{" + strings.Join(keys, " ") + "}"
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + jsonShape(v[0]) + "]"
	}
	return fmt.Sprintf("%T", v)
}

// transcriptText returns a file's transcript segments and text as JSON,
// without the ids and times that differ between jobs.
func transcriptText(t *testing.T, e *recogEmu, jobID string, rec speechapi.FileRecord) string {
	t.Helper()
	var out bytes.Buffer
	if _, err := e.client.DownloadTranscript(context.Background(), jobID, rec, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Segments       json.RawMessage `json:"segments"`
		FullTranscript string          `json:"full_transcript"`
		LanguageCode   string          `json:"language_code"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// TestURLSourceDownloadLimits: a cloud storage file larger than any upload
// limit is fetched (there is no size cap), and one that does not finish
// downloading within 30 minutes of service time is SKIPPED with ETIMEDOUT.
//
// conformance: BJ-099, BJ-036
func TestURLSourceDownloadLimits(t *testing.T) {
	// 30 minutes of service time is 5 s: time enough for the big file's
	// 11.5 MB on a loaded machine (at half a second it too timed out now
	// and then), while the slow one never finishes.
	const scale = 360
	e := newRecogEmu(t, emulator.Options{TimeScale: scale})
	big := wavBytes(t, 44, 360, 16000, kindSpeech) // 11.5 MB: over the 10 MB upload limit
	if len(big) <= speechapi.MaxJobFileBytes {
		t.Fatalf("%d bytes is not over the upload limit", len(big))
	}
	release := make(chan struct{})
	defer close(release)
	mux := http.NewServeMux()
	mux.HandleFunc("/big.wav", func(w http.ResponseWriter, r *http.Request) { w.Write(big) })
	mux.HandleFunc("/slow.wav", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		w.Write(big[:4096])
		w.(http.Flusher).Flush()
		select { // the rest never comes while the emulator waits
		case <-release:
		case <-r.Context().Done():
		}
	})
	store := httptest.NewServer(mux)
	defer store.Close()
	ctx := context.Background()
	created, err := e.client.CreateJobURLs(ctx, hiConfig, []string{store.URL + "/big.wav", store.URL + "/slow.wav"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.StartJob(ctx, created.JobID); err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitJob(ctx, created.JobID, fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := e.client.AllJobFiles(ctx, created.JobID, "")
	if err != nil || len(recs) != 2 {
		t.Fatalf("job %s: %v %v", job.Status, recs, err)
	}
	for _, r := range recs {
		switch {
		case strings.HasSuffix(r.OriginalPath, "/big.wav"):
			if r.Status != speechapi.FileCompleted || r.DurationSeconds == nil || *r.DurationSeconds != "360.000" {
				t.Errorf("big file: %+v", r)
			}
		case strings.HasSuffix(r.OriginalPath, "/slow.wav"):
			if r.Status != speechapi.FileSkipped || r.ErrorMessage == nil || !strings.HasPrefix(*r.ErrorMessage, "ETIMEDOUT") {
				t.Errorf("slow file: %+v %v", r, r.Err(created.JobID))
			}
		}
	}
	if job.Status != speechapi.JobPartialFailure {
		t.Errorf("job %s, want PARTIAL_FAILURE", job.Status)
	}
}
