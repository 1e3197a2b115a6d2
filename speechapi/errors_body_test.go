package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// TestNonJSONErrorBodies: an error answer whose body is not one of the
// documented JSON shapes (a proxy's HTML page, a storage service's XML, plain
// text, nothing, or a huge page) still becomes a *speechapi.Error with the
// status and a short, single-line excerpt of the words, never the raw body,
// on every kind of call: REST, batch jobs, synthesis, SSE, the WebSocket
// handshakes and presigned downloads.
func TestNonJSONErrorBodies(t *testing.T) {
	huge := "<html><body><p>" + strings.Repeat("overloaded ", 20000) + "</p></body></html>"
	bodies := []struct {
		name, ctype, body string
		status            int
		want              string // words the excerpt must start with ("" for none)
	}{
		{"html", "text/html", "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>\n" +
			"<body><!-- edge 7 --><center><h1>502 Bad &amp; Gateway</h1></center><script>var x = '<b>';</script><hr><center>nginx</center></body></html>",
			http.StatusBadGateway, "502 Bad Gateway 502 Bad & Gateway nginx"},
		{"xml", "application/xml", `<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
			http.StatusForbidden, "AccessDenied Request has expired"},
		{"plain", "text/plain", "upstream connect error or disconnect/reset before headers.\r\nreset reason: overflow\x00\x07",
			http.StatusServiceUnavailable, "upstream connect error or disconnect/reset before headers. reset reason: overflow"},
		{"empty", "", "", http.StatusInternalServerError, ""},
		{"huge", "text/html", huge, http.StatusGatewayTimeout, "overloaded overloaded"},
	}
	for _, b := range bodies {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if b.ctype != "" {
				w.Header().Set("Content-Type", b.ctype)
			}
			w.WriteHeader(b.status)
			_, _ = w.Write([]byte(b.body))
		}))
		c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "k", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		clip := wavBytes(t, 9, 0.2, 16000, kindSpeech)
		src := speechapi.ReaderSource("a.wav", bytes.NewReader(clip), int64(len(clip)))
		synth := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello.", Model: "tts-v2.5", Voice: "Poorvi", Language: "en-IN"}}
		u := srv.URL + "/t.json"
		rec := speechapi.FileRecord{FileID: "f", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
		calls := map[string]func() error{
			"transcribe": func() error {
				_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
				return err
			},
			"job status": func() error { _, err := c.GetJob(ctx, "job_1"); return err },
			"synthesize": func() error { _, err := c.Synthesize(ctx, synth, &bytes.Buffer{}); return err },
			"sse":        func() error { _, err := c.SynthesizeStream(ctx, synth, &bytes.Buffer{}); return err },
			"tts websocket": func() error {
				_, err := c.SynthesizeRealtime(ctx, synth, &memFile{})
				return err
			},
			"stt websocket": func() error {
				_, err := c.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
				return err
			},
			"presigned": func() error { _, err := c.DownloadTranscript(ctx, "job_1", rec, &bytes.Buffer{}); return err },
		}
		for name, call := range calls {
			err := call()
			var se *speechapi.Error
			if !errors.As(err, &se) {
				t.Errorf("%s %s: %v (%T) is not a *speechapi.Error", b.name, name, err, err)
				continue
			}
			if se.StatusCode != b.status || se.Type != "" {
				t.Errorf("%s %s: status %d type %q, want %d and none", b.name, name, se.StatusCode, se.Type, b.status)
			}
			if !strings.HasPrefix(se.Message, b.want) || (b.want == "") != (se.Message == "") {
				t.Errorf("%s %s: message %q, want it to begin %q", b.name, name, se.Message, b.want)
			}
			msg := err.Error()
			if n := utf8.RuneCountInString(se.Message); n > 203 || len(msg) > 400 {
				t.Errorf("%s %s: %d-character message, %d-byte error: not bounded", b.name, name, n, len(msg))
			}
			if strings.ContainsAny(msg, "<>\n\r\x00\x07") || strings.Contains(msg, "color:red") || strings.Contains(msg, "var x") {
				t.Errorf("%s %s: raw body in %q", b.name, name, msg)
			}
			if b.body == "" && !strings.Contains(msg, http.StatusText(b.status)) {
				t.Errorf("%s %s: %q does not say the status", b.name, name, msg)
			}
		}
		srv.Close()
	}
}
