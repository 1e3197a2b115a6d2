package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// excerptForm is an excerpt of server text: at most 200 characters on one
// line, then the size of the text when it was cut.
var excerptForm = regexp.MustCompile(`^.{0,200}(… \([0-9]{1,3}(,[0-9]{3})* bytes\))?$`)

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
			if !excerptForm.MatchString(se.Message) || len(msg) > 400 {
				t.Errorf("%s %s: %d-character message, %d-byte error: not bounded (at most 200 characters and the size)", b.name, name, utf8.RuneCountInString(se.Message), len(msg))
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

// TestJSONErrorMessageIsAnExcerpt: the message of a documented JSON error
// body is the server's text, and so it reaches the error as an excerpt: a
// 64 KiB message full of escape sequences, carriage returns and bidi
// overrides gives a short line with each of them escaped and the size of
// the text, and the key it echoes across the cut is redacted first.
func TestJSONErrorMessageIsAnExcerpt(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	// The largest body the client reads, 64 KiB: the message of the most
	// repetitions whose JSON fits, found by bisection (the body grows with
	// n) rather than by marshalling every n up to it.
	marshal := func(n int) []byte {
		m := strings.Repeat("x", 150) + key + strings.Repeat("bad\x1b[2K\x1b[1A\r\b\u202e\u009b", n)
		b, err := json.Marshal(map[string]any{"success": false, "error": map[string]any{"type": "INVALID_REQUEST_ERROR", "message": m}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lo, hi := 1, 64<<10 // marshal(lo) fits in 64 KiB, marshal(hi) does not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; len(marshal(mid)) <= 64<<10 {
			lo = mid
		} else {
			hi = mid
		}
	}
	body := marshal(lo)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: key, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	synth := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello.", Model: "tts-v2.5", Voice: "Poorvi", Language: "en-IN"}}
	_, err = c.Synthesize(context.Background(), synth, &bytes.Buffer{})
	var se *speechapi.Error
	if !errors.As(err, &se) || se.Type != speechapi.TypeInvalidRequest {
		t.Fatalf("want a 400 INVALID_REQUEST_ERROR, got %v", err)
	}
	msg := err.Error()
	if !excerptForm.MatchString(se.Message) || len(msg) > 400 || !strings.Contains(se.Message, " bytes)") {
		t.Errorf("%d-byte error, not an excerpt with the message's size: %q", len(msg), msg)
	}
	if strings.ContainsAny(msg, "\x1b\r\b\u202e\u009b") || strings.Contains(msg, key[:8]) {
		t.Errorf("raw controls or the key in %q", msg)
	}
	if !strings.Contains(msg, `x[redacted]bad\x1b[2K\x1b[1A \x08\u202e\u009bbad`) {
		t.Errorf("the escapes are not shown: %q", msg)
	}
}
