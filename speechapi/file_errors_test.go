package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// fileError asserts that err is a *FileError naming path (and, for a
// request of several files, all of files) and returns it.
func fileError(t *testing.T, what string, err error, path string, files ...string) *speechapi.FileError {
	t.Helper()
	var fe *speechapi.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: %v (%T) is not a *speechapi.FileError", what, err, err)
	}
	if fe.Path != path || !strings.Contains(err.Error(), path) {
		t.Errorf("%s: path %q in %q, want %q", what, fe.Path, err, path)
	}
	if len(files) > 0 && fmt.Sprint(fe.Files) != fmt.Sprint(files) {
		t.Errorf("%s: files %v, want %v", what, fe.Files, files)
	}
	return fe
}

// TestCallFailuresNameTheFile: REST transcription, a job create by upload
// or by URL, an older batch submit and a transcript download that fail are
// each a *FileError naming the file(s), with the service's *Error still
// reachable, and temporary when the cause is.
//
// conformance: ERR-014, ERR-015, ERR-021, ERR-028
func TestCallFailuresNameTheFile(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	wav := wavBytes(t, 5, 1, 16000, kindSpeech)
	a := writeAudioFile(t, dir, "a.wav", wav)
	b := writeAudioFile(t, dir, "b.wav", wav)
	text := writeAudioFile(t, dir, "notes.txt", []byte("these are not audio samples at all"))

	_, err := e.client.Transcribe(ctx, text, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
	fe := fileError(t, "transcribe", err, "notes.txt")
	if se := serviceError(t, err); se.StatusCode != 400 || fe.Op != "transcribe" {
		t.Errorf("transcribe: %v, op %q", se, fe.Op)
	}
	missing := a
	missing.Name = "gone.wav"
	missing.Open = func() (io.ReadCloser, error) { return nil, errors.New("file vanished") }
	_, err = e.client.Transcribe(ctx, missing, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
	if fileError(t, "unreadable source", err, "gone.wav"); !strings.Contains(err.Error(), "file vanished") {
		t.Errorf("unreadable source: %v", err)
	}

	bad := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "xx-XX"}
	_, err = e.client.CreateJobUpload(ctx, bad, []speechapi.Source{a, b}, "")
	fileError(t, "create by upload", err, "a.wav", "a.wav", "b.wav")
	if !speechapi.IsCode(err, speechapi.CodeUnsupportedLanguage) || !strings.Contains(err.Error(), "a.wav and b.wav") {
		t.Errorf("create by upload: %v", err)
	}
	_, err = e.client.CreateJobURLs(ctx, bad, []string{"https://127.0.0.1/x.wav"}, "")
	if fileError(t, "create by url", err, "https://127.0.0.1/x.wav"); !speechapi.IsCode(err, speechapi.CodeUnsupportedLanguage) {
		t.Errorf("create by url: %v", err)
	}

	empty := writeAudioFile(t, dir, "empty.wav", nil)
	_, err = e.client.SubmitLegacy(ctx, []speechapi.Source{a, empty}, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
	fileError(t, "older batch submit", err, "a.wav", "a.wav", "empty.wav")
	if se := serviceError(t, err); se.StatusCode != 400 {
		t.Errorf("older batch submit: %v", se)
	}
	many := make([]speechapi.Source, 5)
	for i := range many {
		many[i] = writeAudioFile(t, dir, fmt.Sprintf("m%d.wav", i), nil)
	}
	_, err = e.client.SubmitLegacy(ctx, many, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
	if fileError(t, "five files", err, "m0.wav"); !strings.Contains(err.Error(), "m0.wav, m1.wav, m2.wav and 2 more") {
		t.Errorf("five files: %q", err)
	}

	// A transcript download refused with a temporary error, and one whose
	// expired link cannot be refreshed (the job is unknown).
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "expired") {
			http.Error(w, "<Error><Code>AccessDenied</Code></Error>", http.StatusForbidden)
			return
		}
		http.Error(w, "<html><body>bad gateway</body></html>", http.StatusServiceUnavailable)
	}))
	defer storage.Close()
	for _, tc := range []struct {
		path      string
		status    int
		temporary bool
	}{{"/busy.json", 503, true}, {"/expired.json", 403, false}} {
		u := storage.URL + tc.path + "?X-Sig=secret"
		rec := speechapi.FileRecord{FileID: "file_1", OriginalPath: "calls/c1.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
		var out bytes.Buffer
		_, err := e.client.DownloadTranscript(ctx, "job_missing", rec, &out)
		fe := fileError(t, tc.path, err, "calls/c1.wav")
		if fe.JobID != "job_missing" || fe.FileID != "file_1" || out.Len() != 0 {
			t.Errorf("%s: %+v, %d bytes written", tc.path, fe, out.Len())
		}
		if se := serviceError(t, err); se.StatusCode != tc.status || speechapi.IsTemporary(err) != tc.temporary {
			t.Errorf("%s: %v temporary=%v", tc.path, se, speechapi.IsTemporary(err))
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error carries the signature: %q", tc.path, err)
		}
	}
}

// TestLegacyJobFailedAsAWhole: an older batch job in which no file could
// be transcribed is "failed" with an error; LegacyJob.Err gives a typed
// *JobError carrying it, and each result's Err a *FileError naming its
// file. A completed job has no job error.
//
// conformance: OB-003, OB-008, OB-010, OB-013
func TestLegacyJobFailedAsAWhole(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	silent := []speechapi.Source{
		writeAudioFile(t, dir, "quiet-1.wav", wavBytes(t, 1, 1, 8000, kindSilent)),
		writeAudioFile(t, dir, "quiet-2.wav", wavBytes(t, 2, 1, 8000, kindSilent)),
	}
	sub, err := e.client.SubmitLegacy(ctx, silent, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
	if err != nil {
		t.Fatal(err)
	}
	job, err := e.client.WaitLegacy(ctx, sub.JobID, fastPoll)
	if err != nil {
		t.Fatal(err)
	}
	var je *speechapi.JobError
	if jerr := job.Err(); !errors.As(jerr, &je) || !je.Legacy || je.JobID != sub.JobID || je.Status != "failed" ||
		job.Error == nil || je.Reason != *job.Error || !strings.Contains(jerr.Error(), "older batch job "+sub.JobID+" failed: ") {
		t.Fatalf("failed job %+v: Err() = %v", job, jerr)
	}
	for i, r := range job.Results {
		fileError(t, "result", r.Err(sub.JobID), silent[i].Name)
	}

	ok, err := e.client.SubmitLegacy(ctx, []speechapi.Source{writeAudioFile(t, dir, "speech.wav", wavBytes(t, 3, 1, 8000, kindSpeech))},
		speechapi.LegacyOptions{LanguageCode: "hi-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if job, err = e.client.WaitLegacy(ctx, ok.JobID, fastPoll); err != nil || job.Status != "completed" || job.Err() != nil {
		t.Fatalf("completed job: %+v %v, Err() = %v", job, err, job.Err())
	}
}
