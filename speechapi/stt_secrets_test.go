package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// TestRecognitionErrorsNeverCarryTheKey calls every recognition method
// with a key the emulator refuses and checks that no error shows it.
// conformance: ERR-009, ERR-010, ERR-012
func TestRecognitionErrorsNeverCarryTheKey(t *testing.T) {
	const key = "sk-live-1234567890abcdef"
	e := newRecogEmu(t, emulator.Options{Keys: []string{"the-right-key"}})
	c := newRecogClient(t, e.http.URL, key)
	ctx := context.Background()
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech))
	calls := map[string]func() error{
		"rest": func() error {
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"realtime": func() error {
			_, err := c.TranscribeRealtime(ctx, bytes.NewReader(wavBytes(t, 1, 1, 16000, kindSpeech)), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"legacy": func() error {
			_, err := c.SubmitLegacy(ctx, []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
			return err
		},
		"create": func() error { _, err := c.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, ""); return err },
		"urls": func() error {
			_, err := c.CreateJobURLs(ctx, hiConfig, []string{"https://127.0.0.1/a.wav"}, "")
			return err
		},
		"status": func() error { _, err := c.GetJob(ctx, "job_x"); return err },
		"list":   func() error { _, err := c.ListJobs(ctx, speechapi.JobsQuery{}); return err },
		"cancel": func() error { _, err := c.CancelJob(ctx, "job_x", ""); return err },
	}
	for name, call := range calls {
		err := call()
		var se *speechapi.Error
		if !errors.As(err, &se) || se.StatusCode != 403 || se.Type != speechapi.TypeForbidden {
			t.Errorf("%s: %v, want 403 FORBIDDEN", name, err)
		}
		if err != nil && strings.Contains(err.Error(), key) {
			t.Errorf("%s: error shows the key: %v", name, err)
		}
	}
}

// TestCompletedWebhookAndPresignedWithoutKey checks the job.completed
// webhook and that downloads never carry the key, even when the
// transcript URL host is the API host itself.
// conformance: WH-008, WH-010, WH-012, BJ-085, ERR-009
func TestCompletedWebhookAndPresignedWithoutKey(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	sink := newWebhookSink(t)
	ctx := context.Background()
	dir := t.TempDir()
	files := []speechapi.Source{writeAudioFile(t, dir, "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech)), writeAudioFile(t, dir, "b.wav", wavBytes(t, 2, 1, 16000, kindSpeech))}
	res, err := e.client.RunJob(ctx, hiConfig, files, speechapi.RunOptions{Poll: fastPoll, CallbackURL: sink.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	hook := sink.wait(t)
	trs, _ := hook["transcripts"].([]any)
	if hook["event"] != "job.completed" || hook["status"] != "COMPLETED" || len(trs) != 2 {
		t.Fatalf("webhook %v", hook)
	}
	// The webhook's transcripts are the downloaded transcript JSON.
	for _, f := range res.Files {
		var buf bytes.Buffer
		if _, err := e.client.DownloadTranscript(ctx, f.JobID, f.Record, &buf); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tr := range trs {
			if tr.(map[string]any)["file_id"] == doc["file_id"] && tr.(map[string]any)["full_transcript"] == doc["full_transcript"] {
				found = true
			}
		}
		if !found {
			t.Errorf("transcript of %s not in the webhook", f.Record.OriginalPath)
		}
	}
	if st := e.stats(t); st.PresignedDownloads != 2 || st.PresignedDownloadsWithAPIKey != 0 {
		t.Errorf("stats %+v", st)
	}
	// A download that does carry the key is counted: the counter can fail.
	req, _ := recogNewGet(*res.Files[0].Record.TranscriptURL)
	req.Header.Set("X-API-Key-ID", "test-key")
	resp, err := recogDo(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if st := e.stats(t); st.PresignedDownloadsWithAPIKey != 1 {
		t.Errorf("a keyed download was not counted: %+v", st)
	}
}
