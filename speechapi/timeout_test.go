package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// shortTimeout is the service.timeout of these tests.
const shortTimeout = 300 * time.Millisecond

// backstop ends a call that would otherwise hang for good: a test that
// reaches it has failed (the client's own timeout did not work).
const backstop = 10 * time.Second

// silentHost accepts TCP connections and never writes a byte; it returns
// its host:port.
func silentHost(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// stallingServer answers with status and Content-Type, writes head, and
// then holds the body open without another byte until the test ends.
func stallingServer(t *testing.T, ctype, head string) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(head))
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// timeoutClient is a client of base with the short timeout and one retry.
func timeoutClient(t *testing.T, base string) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: base, APIKey: testKey, Timeout: shortTimeout, Retries: 1,
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// calls are one call of every kind a client makes, each returning its error.
func calls(t *testing.T, c *speechapi.Client) map[string]func(context.Context) error {
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 1, 1, 16000, kindSpeech))
	clip := wavBytes(t, 2, 0.5, 16000, kindSpeech)
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 8000}}}
	return map[string]func(context.Context) error{
		"rest synthesis": func(ctx context.Context) error { _, err := c.Synthesize(ctx, req, &bytes.Buffer{}); return err },
		"sse synthesis":  func(ctx context.Context) error { _, err := c.SynthesizeStream(ctx, req, &memFile{}); return err },
		"ws synthesis":   func(ctx context.Context) error { _, err := c.SynthesizeRealtime(ctx, req, &memFile{}); return err },
		"embedding": func(ctx context.Context) error {
			_, err := c.CreateEmbedding(ctx, "ref.wav", bytes.NewReader(referenceWAV(1, 6)))
			return err
		},
		"rest stt": func(ctx context.Context) error {
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"realtime stt": func(ctx context.Context) error {
			_, err := c.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		},
		"batch upload": func(ctx context.Context) error {
			_, err := c.CreateJobUpload(ctx, hiConfig, []speechapi.Source{src}, "")
			return err
		},
		"batch status": func(ctx context.Context) error { _, err := c.GetJob(ctx, "job_1"); return err },
		"older batch": func(ctx context.Context) error {
			_, err := c.SubmitLegacy(ctx, []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "hi-IN"})
			return err
		},
	}
}

// timed runs call with the backstop and returns its error and duration.
func timed(call func(context.Context) error) (error, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	start := time.Now()
	err := call(ctx)
	return err, time.Since(start)
}

// checkNamed fails unless err's message names host, the limit and the
// manifest field.
func checkNamed(t *testing.T, err error, host string) {
	t.Helper()
	for _, want := range []string{host, shortTimeout.String(), "service.timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}

// A host that accepts the connection and never answers fails every call
// with a *TimeoutError naming it and the limit, after the client's one
// retry, and not again at the operation level (IsTemporary is false: the
// client already sent the call twice).
func TestSilentHostFailsEveryCall(t *testing.T) {
	host := silentHost(t)
	c := timeoutClient(t, "http://"+host)
	for name, call := range calls(t, c) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err, took := timed(call)
			var te *speechapi.TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("after %v: %v, want a *TimeoutError", took, err)
			}
			checkNamed(t, err, host)
			if te.Attempts != 2 || speechapi.IsTemporary(err) {
				t.Errorf("attempts %d, temporary %v: want 2 attempts and no retry of the operation", te.Attempts, speechapi.IsTemporary(err))
			}
			if took > 4*shortTimeout {
				t.Errorf("took %v for two attempts of %v", took, shortTimeout)
			}
		})
	}
}

// A body that stops mid-way fails once nothing came for the timeout, as
// an incomplete stream (retried as a whole operation) naming the host.
func TestStalledBodyFails(t *testing.T) {
	cases := []struct {
		name, ctype, head string
		call              func(context.Context, *speechapi.Client) error
	}{
		{"rest synthesis", "application/octet-stream", "\x01\x02\x03\x04", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.Synthesize(ctx, rawReq, &bytes.Buffer{})
			return err
		}},
		{"sse synthesis", "text/event-stream", start, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.SynthesizeStream(ctx, rawReq, &memFile{})
			return err
		}},
		{"json answer", "application/json", `{"job_id": "job_1", "sta`, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.GetJob(ctx, "job_1")
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := stallingServer(t, tc.ctype, tc.head)
			c := timeoutClient(t, srv.URL)
			err, took := timed(func(ctx context.Context) error { return tc.call(ctx, c) })
			var te *speechapi.TimeoutError
			var ie *speechapi.IncompleteError
			if !errors.As(err, &te) || !errors.As(err, &ie) || !speechapi.IsTemporary(err) {
				t.Fatalf("after %v: %v, want an incomplete stream that timed out", took, err)
			}
			checkNamed(t, err, strings.TrimPrefix(srv.URL, "http://"))
			if took > 6*shortTimeout {
				t.Errorf("took %v", took)
			}
		})
	}
}

// A presigned transcript URL whose storage host accepts and never
// answers, or stalls mid-body, fails the download with a timeout naming
// the storage host (not the API's).
func TestStalledStorageFailsTheDownload(t *testing.T) {
	api := silentHost(t)
	c := timeoutClient(t, "http://"+api)
	silent := silentHost(t)
	stall := stallingServer(t, "application/json", `{"segments": [`)
	for name, host := range map[string]string{"silent": silent, "stalled": strings.TrimPrefix(stall.URL, "http://")} {
		t.Run(name, func(t *testing.T) {
			u := "http://" + host + "/transcripts/t1.json?X-Signature=abc"
			rec := speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
			err, took := timed(func(ctx context.Context) error {
				_, err := c.DownloadTranscript(ctx, "job_1", rec, &bytes.Buffer{})
				return err
			})
			var te *speechapi.TimeoutError
			if !errors.As(err, &te) || te.Host != host {
				t.Fatalf("after %v: %v, want a *TimeoutError from %s", took, err, host)
			}
			checkNamed(t, err, host)
			want := 2 // Retries: 1
			if name == "stalled" {
				want = 1 // it wrote to a writer that cannot be emptied
			}
			if te.Attempts != want {
				t.Errorf("sent %d times, want %d: %v", te.Attempts, want, err)
			}
			if took > 3*shortTimeout {
				t.Errorf("took %v", took)
			}
		})
	}
}

// The timeout is an idle timeout: a body that keeps delivering may take
// longer than the limit, and time a request spends queued before the
// transport looks for a connection (in a limiter) does not count.
func TestTimeoutIsIdleNotTotal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		body := `{"status":"COMPLETED"}`
		for i := range len(body) {
			_, _ = w.Write([]byte{body[i]})
			w.(http.Flusher).Flush()
			time.Sleep(shortTimeout / 8)
		}
	}))
	defer srv.Close()
	queued := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		time.Sleep(2 * shortTimeout) // a limiter's queue
		return http.DefaultTransport.RoundTrip(r)
	})
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Timeout: shortTimeout, Retries: -1,
		HTTPClient: &http.Client{Transport: queued}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	j, err := c.GetJob(context.Background(), "job_1")
	if err != nil || j.Status != "COMPLETED" {
		t.Fatalf("%v, %+v", err, j)
	}
	if took := time.Since(start); took < 4*shortTimeout {
		t.Fatalf("the answer took %v: the test proves nothing", took)
	}
}

// silentWS completes WebSocket handshakes and then neither reads nor
// writes until the test ends; it returns its base URL.
func silentWS(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		<-done
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A WebSocket that completes its handshake and then goes silent fails the
// session once nothing came for the timeout, naming the host: synthesis
// while waiting for audio, realtime recognition while waiting for the
// transcript after the audio was sent.
func TestSilentWebSocketFails(t *testing.T) {
	c, _ := fakeWS(t, shortTimeout, func(c *websocket.Conn) { _, _, _ = c.ReadMessage() })
	silentSTT := silentWS(t)
	stt := timeoutClient(t, silentSTT)
	clip := wavBytes(t, 2, 0.5, 16000, kindSpeech)
	for name, call := range map[string]func(context.Context) error{
		"synthesis": func(ctx context.Context) error {
			_, err := c.SynthesizeRealtime(ctx, wsReq, &bytes.Buffer{})
			return err
		},
		"recognition": func(ctx context.Context) error {
			_, err := stt.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			err, took := timed(call)
			var te *speechapi.TimeoutError
			if !errors.As(err, &te) || !speechapi.IsTemporary(err) {
				t.Fatalf("after %v: %v, want an incomplete session that timed out", took, err)
			}
			if !strings.Contains(err.Error(), "127.0.0.1:") || !strings.Contains(err.Error(), fmt.Sprint(shortTimeout)) {
				t.Errorf("the error names neither host nor limit: %v", err)
			}
			if took > 4*shortTimeout {
				t.Errorf("took %v", took)
			}
		})
	}
}
