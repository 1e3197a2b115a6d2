package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// rawJSON posts a JSON body with a key and returns the status and body.
func rawJSON(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key-ID", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// conformance: BJ-001, BJ-002, BJ-003, BJ-004, BJ-005, BJ-009, BJ-010, BJ-090, ERR-027, ERR-028, ERR-029
func TestJobConfigValidation(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	url := e.http.URL + "/stt/v3/batch/jobs"
	src := `"source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": ["https://127.0.0.1/a.wav"]}`
	tests := []struct {
		name, config string
		status       int
		code         string
	}{
		{"bn-BD accepted", `{"model": "stt-v2.5", "language_code": "bn-BD"}`, 201, ""},
		{"three codes", `{"model": "stt-v2.5", "language_code": "hi-IN,en-IN,ta-IN"}`, 201, ""},
		{"gu-IN", `{"model": "stt-v2.5", "language_code": "gu-IN"}`, 400, "UNSUPPORTED_LANGUAGE"},
		{"pa-IN in a list", `{"model": "stt-v2.5", "language_code": "hi-IN,pa-IN"}`, 400, "UNSUPPORTED_LANGUAGE"},
		{"four codes", `{"model": "stt-v2.5", "language_code": "hi-IN,en-IN,ta-IN,te-IN"}`, 400, "UNSUPPORTED_LANGUAGE"},
		{"no model", `{"language_code": "hi-IN"}`, 400, "INVALID_REQUEST"},
		{"other model", `{"model": "stt-v3", "language_code": "hi-IN"}`, 400, "INVALID_REQUEST"},
		{"no language", `{"model": "stt-v2.5"}`, 400, "INVALID_REQUEST"},
		{"mode translate", `{"model": "stt-v2.5", "language_code": "hi-IN", "mode": "translate"}`, 400, "INVALID_REQUEST"},
		{"diarization without speakers", `{"model": "stt-v2.5", "language_code": "hi-IN", "with_diarization": true}`, 400, "INVALID_REQUEST"},
		{"three speakers", `{"model": "stt-v2.5", "language_code": "hi-IN", "with_diarization": true, "num_speakers": 3}`, 400, "INVALID_REQUEST"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := rawJSON(t, http.MethodPost, url, `{"config": `+tc.config+`, `+src+`}`)
			if status != tc.status || (tc.code != "" && body["error"] != tc.code) {
				t.Fatalf("got %d %v, want %d %s", status, body, tc.status, tc.code)
			}
			if tc.code == "UNSUPPORTED_LANGUAGE" {
				msg, _ := body["message"].(string)
				for _, c := range []string{"bn-IN", "en-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "ta-IN", "te-IN"} {
					if !strings.Contains(msg, c) {
						t.Errorf("message %q does not list %s", msg, c)
					}
				}
				if strings.Contains(msg, "bn-BD") {
					t.Errorf("message %q lists bn-BD", msg)
				}
			}
		})
	}
	// The client checks what it can before calling.
	for _, cfg := range []speechapi.JobConfig{
		{Model: "stt-v2.5", LanguageCode: "hi-IN,en-IN,ta-IN,te-IN"},
		{Model: "stt-v2.5", LanguageCode: "hi-IN", WithDiarization: true},
		{Model: "stt-v2.5", LanguageCode: "hi-IN", WithDiarization: true, NumSpeakers: recogPtr(3)},
		{LanguageCode: "hi-IN"},
	} {
		if _, err := e.client.CreateJobURLs(context.Background(), cfg, []string{"https://127.0.0.1/a.wav"}, ""); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	_, err := e.client.CreateJobURLs(context.Background(), speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "gu-IN"}, []string{"https://127.0.0.1/a.wav"}, "")
	if se := serviceError(t, err); se.StatusCode != 400 || se.Type != speechapi.CodeUnsupportedLanguage {
		t.Errorf("gu-IN through the client: %v", se)
	}
}

// conformance: BJ-061, BJ-062, BJ-063, BJ-068
func TestJobSourceValidation(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	url := e.http.URL + "/stt/v3/batch/jobs"
	cfg := `"config": {"model": "stt-v2.5", "language_code": "hi-IN"}`
	for _, body := range []string{
		`{` + cfg + `}`,
		`{` + cfg + `, "source": {"type": "s3", "auth": {"mode": "public"}, "paths": ["https://x/a.wav"]}}`,
		`{` + cfg + `, "source": {"type": "cloud_storage", "auth": {"mode": "signed"}, "paths": ["https://x/a.wav"]}}`,
		`{` + cfg + `, "source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": []}}`,
		`{` + cfg + `, "source": {"type": "cloud_storage", "auth": {"mode": "public"}, "paths": ["https://x/a.wav"]}, "callback_url": "http://hooks.example.com/x"}`,
		`not json`,
	} {
		if status, m := rawJSON(t, http.MethodPost, url, body); status != 400 || m["error"] != "INVALID_REQUEST" {
			t.Errorf("%s: %d %v", body, status, m)
		}
	}
}

// conformance: BJ-027, BJ-049, BJ-052, BJ-059, BJ-070, BJ-071, BJ-072, BJ-087, ERR-011, ERR-030, ERR-031, ERR-033, BJ-079
func TestJobLifecycleErrors(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	src := writeAudioFile(t, dir, "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech))
	created, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	if created.TotalFilesAccepted == nil || *created.TotalFilesAccepted != 1 || !strings.Contains(created.Message, "/v1/jobs/") {
		t.Errorf("create %+v", created)
	}
	job, err := e.client.GetJob(ctx, created.JobID)
	if err != nil || job.Status != speechapi.JobCreated || job.StartedAt != nil {
		t.Fatalf("job after create %+v %v", job, err)
	}
	start, err := e.client.StartJob(ctx, created.JobID)
	if err != nil || start.Status != speechapi.JobStarting || start.AlreadyStarted {
		t.Fatalf("start %+v %v", start, err)
	}
	again, err := e.client.StartJob(ctx, created.JobID)
	if err != nil || !again.AlreadyStarted || !strings.Contains(again.Message, "STARTING") && !strings.Contains(again.Message, "QUEUED") &&
		!strings.Contains(again.Message, "IN_PROGRESS") && !strings.Contains(again.Message, "COMPLETED") {
		t.Errorf("second start %+v %v", again, err)
	}
	if _, err := e.client.WaitJob(ctx, created.JobID, fastPoll); err != nil {
		t.Fatal(err)
	}
	// Neither the status nor the files listing holds transcript text.
	for _, path := range []string{"", "/files"} {
		_, m := rawJSON(t, http.MethodGet, e.http.URL+"/stt/v3/batch/jobs/"+created.JobID+path, "")
		if b, _ := json.Marshal(m); strings.Contains(string(b), "full_transcript") || strings.Contains(string(b), `"segments"`) || len(m) == 0 {
			t.Errorf("GET job%s holds transcript text: %s", path, b)
		}
	}
	for name, call := range map[string]func() error{
		"status": func() error { _, err := e.client.GetJob(ctx, "job_nope"); return err },
		"start":  func() error { _, err := e.client.StartJob(ctx, "job_nope"); return err },
		"files":  func() error { _, err := e.client.ListJobFiles(ctx, "job_nope", speechapi.FilesQuery{}); return err },
		"cancel": func() error { _, err := e.client.CancelJob(ctx, "job_nope", ""); return err },
	} {
		if se := serviceError(t, call()); se.StatusCode != 404 || se.Type != speechapi.CodeJobNotFound {
			t.Errorf("%s of an unknown job: %v", name, se)
		}
	}
	_, err = e.client.GetJob(ctx, "{job_id}")
	if se := serviceError(t, err); se.StatusCode != 422 {
		t.Errorf("placeholder id: %v", se)
	}
	nokey := newRecogClient(t, e.http.URL, "")
	_, err = nokey.GetJob(ctx, created.JobID)
	if se := serviceError(t, err); se.StatusCode != 401 || se.Type != speechapi.CodeMissingAPIKey {
		t.Errorf("no key: %v", se)
	}
	// Listing parameters.
	for _, q := range []string{"limit=0", "limit=101", "status=DONE", "cursor=zzz"} {
		status, m := rawJSON(t, http.MethodGet, e.http.URL+"/stt/v3/batch/jobs/"+created.JobID+"/files?"+q, "")
		if status != 422 {
			t.Errorf("files?%s: %d %v", q, status, m)
		}
	}
	if _, err := e.client.ListJobFiles(ctx, created.JobID, speechapi.FilesQuery{Limit: 101}); err == nil {
		t.Error("the client sent limit=101")
	}
}

// conformance: BJ-087
func TestListJobsNewestFirst(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	var ids []string
	for range 5 {
		c, err := e.client.CreateJobURLs(ctx, hiConfig, []string{"https://127.0.0.1/a.wav"}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.JobID)
	}
	if _, err := e.client.CancelJob(ctx, ids[1], ""); err != nil {
		t.Fatal(err)
	}
	var got []string
	q := speechapi.JobsQuery{Limit: 2}
	for {
		p, err := e.client.ListJobs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range p.Data {
			got = append(got, j.JobID)
		}
		if !p.Pagination.HasMore {
			break
		}
		q.Cursor = *p.Pagination.NextCursor
	}
	want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("jobs %v, want newest first %v", got, want)
	}
	p, err := e.client.ListJobs(ctx, speechapi.JobsQuery{Status: speechapi.JobCreated})
	if err != nil || len(p.Data) != 4 || p.Pagination.TotalCount != 4 {
		t.Fatalf("CREATED jobs %d %v", len(p.Data), err)
	}
}

// conformance: BJ-094, BJ-095, BJ-098, ERR-035
func TestJobUploadLimits(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	big := writeAudioFile(t, dir, "big.wav", make([]byte, speechapi.MaxJobFileBytes+1))
	_, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{big}, "")
	var fe *speechapi.FileError
	if !errors.As(err, &fe) || fe.Path != "big.wav" {
		t.Errorf("11 MB file: %v", err)
	}
	cfg := `{"model": "stt-v2.5", "language_code": "hi-IN"}`
	status, body := rawMultipart(t, e.http.URL+"/stt/v3/batch/jobs", map[string]string{"config": cfg}, "files", 1, make([]byte, speechapi.MaxJobFileBytes+1))
	if status != 400 || !strings.Contains(body, "FILE_TOO_LARGE") {
		t.Errorf("raw 11 MB file: %d %s", status, body)
	}
	status, body = rawMultipart(t, e.http.URL+"/stt/v3/batch/jobs", map[string]string{"config": cfg}, "files", 101, wavBytes(t, 1, 0.1, 8000, kindSpeech))
	if status != 400 || !strings.Contains(body, "TOO_MANY_FILES") {
		t.Errorf("raw 101 files: %d %s", status, body)
	}
	long := writeAudioFile(t, dir, "long.wav", longWAV(t, 4*3600+1))
	_, err = e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{long}, "")
	if se := serviceError(t, err); se.StatusCode != 400 || se.Type != speechapi.CodeAudioTooLong || !strings.Contains(se.Message, "long.wav") {
		t.Errorf("4 h upload: %v", se)
	}
	exact := writeAudioFile(t, dir, "exact.wav", longWAV(t, 4*3600))
	if _, err := e.client.CreateJobUpload(ctx, hiConfig, []speechapi.Source{exact}, ""); err != nil {
		t.Errorf("exactly 4 h: %v", err)
	}
	// The config part must be sent as application/json (BJ-067); the
	// client's creates above and elsewhere pass only because it does.
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("config", cfg)
	fw, _ := mw.CreateFormFile("files", "a.wav")
	fw.Write(wavBytes(t, 1, 0.2, 8000, kindSpeech))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/stt/v3/batch/jobs", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key-ID", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(msg), "application/json") {
		t.Errorf("config as a plain field: %d %s", resp.StatusCode, msg)
	}
}
