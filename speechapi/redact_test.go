package speechapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// echoedKey holds characters that URL and JSON encoding change, so that
// each form a server may echo it in differs from the key itself.
const echoedKey = "sk-live_7f3a9c1e/5b+q<&>"

// keyForms are the ways a server may echo the key.
var keyForms = map[string]string{
	"as sent":     echoedKey,
	"url-encoded": url.QueryEscape(echoedKey),
	"json-escaped": func() string {
		var b strings.Builder
		for _, r := range echoedKey {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	}(),
}

// assertNoKey fails if err, formatted in any way, or any error in its
// chain shows the key as sent or URL-encoded (query or path).
func assertNoKey(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	var texts []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e))
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	for _, s := range texts {
		for _, form := range []string{echoedKey, url.QueryEscape(echoedKey), url.PathEscape(echoedKey)} {
			if strings.Contains(s, form) {
				t.Errorf("%s: the key shows in %q", what, s)
				return
			}
		}
	}
}

// echoClient is a client with the echoed key, no retries.
func echoClient(t *testing.T, base string) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: base, APIKey: echoedKey, Timeout: 5 * time.Second, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A service or proxy that answers every request (WebSocket handshakes
// included) with 403 "Invalid key <key>", in a JSON or a plain body and
// in each form of the key, never gets the key into an error; the rest of
// its message stays.
func TestEchoedKeyNeverInErrors(t *testing.T) {
	bodies := map[string]func(form string) (string, string){
		"rest json": func(f string) (string, string) {
			return "application/json", `{"success":false,"error":{"type":"FORBIDDEN","message":"Invalid key ` + f + `"}}`
		},
		"batch json": func(f string) (string, string) {
			return "application/json", `{"error":"FORBIDDEN","message":"Invalid key ` + f + `"}`
		},
		"plain text": func(f string) (string, string) { return "text/plain", "Invalid key " + f },
	}
	for shape, body := range bodies {
		for formName, form := range keyForms {
			if shape == "plain text" && formName == "json-escaped" {
				continue // JSON escapes mean nothing outside JSON
			}
			t.Run(shape+" "+formName, func(t *testing.T) {
				ctype, text := body(form)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", ctype)
					w.WriteHeader(http.StatusForbidden)
					_, _ = w.Write([]byte(text))
				}))
				defer srv.Close()
				c := echoClient(t, srv.URL)
				all := calls(t, c)
				all["jobs listing"] = func(ctx context.Context) error { _, err := c.ListJobs(ctx, speechapi.JobsQuery{}); return err }
				all["files listing"] = func(ctx context.Context) error { _, err := c.AllJobFiles(ctx, "job_1", ""); return err }
				all["cancel"] = func(ctx context.Context) error { _, err := c.CancelJob(ctx, "job_1", ""); return err }
				all["start"] = func(ctx context.Context) error { _, err := c.StartJob(ctx, "job_1"); return err }
				all["older status"] = func(ctx context.Context) error { _, err := c.LegacyStatus(ctx, "job_1", ""); return err }
				u := srv.URL + "/storage/t.json?sig=1"
				rec := speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
				all["presigned download"] = func(ctx context.Context) error {
					_, err := c.DownloadTranscript(ctx, "job_1", rec, &memFile{})
					return err
				}
				for name, call := range all {
					err := call(context.Background())
					assertNoKey(t, name, err)
					if err != nil && !strings.Contains(err.Error(), "Invalid key [redacted]") {
						t.Errorf("%s: the service's message is lost: %v", name, err)
					}
				}
			})
		}
	}
}

// Server text that arrives after a successful start carries no key
// either: an SSE error event, a JSON error under 200, a WebSocket error
// message and close reason, file and job messages, a redirect target.
func TestEchoedKeyInStreamsAndRecords(t *testing.T) {
	msg := "Invalid key " + echoedKey
	handlers := map[string]http.HandlerFunc{
		"/api/v1/tts/sse": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: error\ndata: {\"type\": \"FORBIDDEN\", \"message\": %q}\n\n", msg)
		},
		"/api/v1/tts/inference": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"success": false, "error": {"type": "FORBIDDEN", "message": %q}}`, msg)
		},
		"/api/v1/tts": func(w http.ResponseWriter, r *http.Request) {
			conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer conn.Close()
			_, _, _ = conn.ReadMessage()
			_ = conn.WriteJSON(map[string]any{"type": "error", "data": map[string]any{"type": "FORBIDDEN", "message": msg}})
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, msg), time.Now().Add(time.Second))
		},
		"/stt/v3": func(w http.ResponseWriter, r *http.Request) {
			conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer conn.Close()
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, msg), time.Now().Add(time.Second))
			_, _, _ = conn.ReadMessage()
		},
		"/stt/v3/batch/jobs/job_1/files": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"job_id": "job_1", "data": [{"file_id": "f1", "original_path": "a.wav", "status": "FAILED", "error_message": %q}], "pagination": {"has_more": false}}`, msg)
		},
		"/stt/v3/batch/jobs/job_1": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"job_id": "job_1", "status": "CANCELLED", "cancel_reason": %q}`, msg)
		},
		"/stt/v3/batch/jobs/job_1/cancel": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"job_id": "job_1", "status": %q}`, msg)
		},
		"/stt/v3/batch/status/job_1": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"job_id": "job_1", "status": "failed", "error": %q, "results": [{"filename": "a.wav", "status": "failed", "error": %q}]}`, msg, msg)
		},
		"/stt/v3/batch/jobs": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere/"+url.PathEscape(echoedKey), http.StatusFound)
		},
	}
	mux := http.NewServeMux()
	for path, h := range handlers {
		mux.HandleFunc(path, h)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := echoClient(t, srv.URL)
	ctx := context.Background()
	clip := wavBytes(t, 2, 0.5, 16000, kindSpeech)
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 8000}}}
	checks := map[string]func() error{
		"sse error event": func() error { _, err := c.SynthesizeStream(ctx, req, &memFile{}); return err },
		"json under 200":  func() error { _, err := c.Synthesize(ctx, req, &memFile{}); return err },
		"ws error":        func() error { _, err := c.SynthesizeRealtime(ctx, req, &memFile{}); return err },
		"ws close reason": func() error {
			_, err := c.TranscribeRealtime(ctx, strings.NewReader(string(clip)), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"file message": func() error {
			recs, err := c.AllJobFiles(ctx, "job_1", "")
			if err != nil || len(recs) != 1 {
				return fmt.Errorf("listing: %v, %d records", err, len(recs))
			}
			return recs[0].Err("job_1")
		},
		"cancel reason": func() error {
			j, err := c.GetJob(ctx, "job_1")
			if err != nil {
				return err
			}
			return j.Err()
		},
		"cancel status": func() error { _, err := c.CancelJob(ctx, "job_1", ""); return err },
		"older batch": func() error {
			j, err := c.LegacyStatus(ctx, "job_1", "")
			if err != nil || len(j.Results) != 1 {
				return fmt.Errorf("status: %v", err)
			}
			return errors.Join(j.Err(), j.Results[0].Err("job_1"))
		},
		"redirect target": func() error { _, err := c.ListJobs(ctx, speechapi.JobsQuery{}); return err },
	}
	for name, check := range checks {
		err := check()
		assertNoKey(t, name, err)
		if name != "redirect target" && err != nil && !strings.Contains(err.Error(), "Invalid key [redacted]") {
			t.Errorf("%s: the service's message is lost: %v", name, err)
		}
	}
}

// RedactText removes every form of the key from text voxform keeps (a
// listening check's transcript), and leaves other text as it is.
func TestRedactTranscript(t *testing.T) {
	c := echoClient(t, "http://127.0.0.1:1")
	for name, form := range keyForms {
		if name == "json-escaped" {
			continue // JSON escapes mean nothing in decoded text
		}
		got := c.RedactText("नमस्ते " + form + " दुनिया")
		if strings.Contains(got, form) || got != "नमस्ते [redacted] दुनिया" {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := c.RedactText("नमस्ते दुनिया"); got != "नमस्ते दुनिया" {
		t.Errorf("clean text changed: %q", got)
	}
}
