package speechapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// A call that carries the API key follows no redirect: Go would copy the
// key header to the redirect's target. The redirect is an error at once,
// never retried, and the target never sees a request.
func TestAPIRedirectIsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get(speechapi.HeaderAPIKey) != "" {
			t.Error("the API key reached the redirect's target")
		}
	}))
	defer other.Close()
	var asked atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, other.URL+"/collect?sig=secret", http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: api.URL, APIKey: testKey, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}}
	for name, call := range map[string]func() error{
		"rest": func() error { _, err := c.Synthesize(context.Background(), req, &bytes.Buffer{}); return err },
		"sse":  func() error { _, err := c.SynthesizeStream(context.Background(), req, &memFile{}); return err },
		"embedding": func() error {
			_, err := c.CreateEmbedding(context.Background(), "ref.wav", bytes.NewReader(referenceWAV(1, 6)))
			return err
		},
	} {
		asked.Store(0)
		err := call()
		var re *speechapi.RedirectError
		if !errors.As(err, &re) || speechapi.IsTemporary(err) || asked.Load() != 1 {
			t.Errorf("%s: %v (temporary %v) after %d request(s); want one request and a RedirectError", name, err, speechapi.IsTemporary(err), asked.Load())
		}
		if err != nil && bytes.Contains([]byte(err.Error()), []byte("secret")) {
			t.Errorf("%s: the redirect's query is in the error: %v", name, err)
		}
	}
	if elsewhere.Load() != 0 {
		t.Errorf("the redirect's target got %d request(s)", elsewhere.Load())
	}
}

// A presigned transcript download follows storage's redirects, without the
// key, but never to an insecure address off the loopback interface.
func TestPresignedRedirects(t *testing.T) {
	final := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(speechapi.HeaderAPIKey) != "" {
			t.Error("the API key reached storage")
		}
		w.Write([]byte(`{"full_transcript":"ok"}`))
	}))
	defer final.Close()
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, final.URL+"/t.json", http.StatusTemporaryRedirect)
		case "/insecure":
			http.Redirect(w, r, "http://storage.example.com/t.json?sig=secret", http.StatusFound)
		}
	}))
	defer storage.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: storage.URL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	record := func(u string) speechapi.FileRecord {
		return speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
	}
	var got bytes.Buffer
	if _, err := c.DownloadTranscript(context.Background(), "job_1", record(storage.URL+"/moved?sig=1"), &got); err != nil || got.String() != `{"full_transcript":"ok"}` {
		t.Fatalf("redirected download: %q, %v", got.String(), err)
	}
	_, err = c.DownloadTranscript(context.Background(), "job_1", record(storage.URL+"/insecure?sig=1"), &bytes.Buffer{})
	var re *speechapi.RedirectError
	if !errors.As(err, &re) || speechapi.IsTemporary(err) || bytes.Contains([]byte(err.Error()), []byte("secret")) {
		t.Fatalf("a redirect to plain http off loopback: %v", err)
	}
}

// A Retry-After too large for a time.Duration is as long as can be: the
// call fails at once with a RetryLaterError instead of the overflow
// turning it into no wait at all.
func TestHugeRetryAfterFailsAtOnce(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Retry-After", "10000000000")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"success":false,"error":{"type":"RATE_LIMIT_ERROR","message":"slow down"}}`))
	}))
	defer srv.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}}
	_, err = c.Synthesize(context.Background(), req, &bytes.Buffer{})
	var rl *speechapi.RetryLaterError
	if !errors.As(err, &rl) || asked.Load() != 1 {
		t.Fatalf("%v after %d request(s); want one request and a RetryLaterError", err, asked.Load())
	}
	if d, ok := speechapi.RetryAfter("1e300", time.Now()); !ok || d <= 0 {
		t.Errorf("Retry-After 1e300 gives %v", d)
	}
}

// A WebSocket message larger than MaxFrameBytes ends the session with an
// error instead of being read into memory whole. The message comes as the
// service's long messages do, in fragments: a first frame of 1 MiB, sent
// whole, then a continuation frame whose header takes the message to
// MaxFrameBytes+1. The client must refuse at that header (the message's
// running length passing the limit), before any of the continuation's
// payload, which the server never sends: it hangs up after the header, so
// a client without the limit fails with an incomplete read instead.
func TestRealtimeFrameLimit(t *testing.T) {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
		const first = 1 << 20
		raw := conn.UnderlyingConn()
		_, _ = raw.Write(append(frameHeader(websocket.BinaryMessage, false, first), make([]byte, first)...))
		_, _ = raw.Write(frameHeader(0, true, speechapi.MaxFrameBytes-first+1)) // opcode 0: continuation
	}))
	defer srv.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}}
	_, err = c.SynthesizeRealtime(context.Background(), req, &memFile{})
	var le *speechapi.LimitError
	if !errors.As(err, &le) || speechapi.IsTemporary(err) || !strings.Contains(err.Error(), "128 MiB") {
		t.Fatalf("an oversized frame: %v, want a *LimitError naming the limit", err)
	}
}

// frameHeader is the header of an unmasked (server to client) WebSocket
// frame of opcode op carrying n bytes, with the 64-bit length form.
func frameHeader(op int, fin bool, n int) []byte {
	h := []byte{byte(op), 127, 0, 0, 0, 0, 0, 0, 0, 0}
	if fin {
		h[0] |= 0x80
	}
	binary.BigEndian.PutUint64(h[2:], uint64(n))
	return h
}
