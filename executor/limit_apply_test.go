package executor_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
)

const sessionsManifest = `
version: 1
service: { base_url: https://speech.example.com }
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  hello:
    voice: v
    text: "नमस्ते"
    transport: websocket
    output: out/hello.wav
transcriptions:
  live:
    inputs: ["rec/a.wav"]
    api: realtime
    language_code: hi-IN
    output_dir: out
    formats: [json]
`

// WebSocket sessions (synthesis and realtime recognition) do not go through
// the HTTP transport; they take a slot of the same Limiter, so the
// concurrency cap and requests_per_second bound them too.
func TestWebSocketSessionsTakeLimiterSlots(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": sessionsManifest, "rec/a.wav": recording(t, "1")})
	lim := executor.NewLimiter(0, 1)
	release, err := lim.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *executor.Summary)
	go func() {
		done <- h.applyWith(func(o *executor.Options) { o.Limiter = lim })
	}()
	deadline := time.Now().Add(10 * time.Second)
	for executor.LimiterWaiters(lim) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d session(s) wait for the limiter, want both", executor.LimiterWaiters(lim))
		}
		runtime.Gosched()
	}
	if n := h.counter("syntheses"); n != 0 {
		t.Fatalf("%v synthesis session(s) ran while the only slot was held", n)
	}
	release(nil)
	s := <-done
	if s.Done != 2 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	if s.LowestConcurrency != 0 {
		t.Errorf("LowestConcurrency %d without any 429", s.LowestConcurrency)
	}
}

// A 429 lowers the concurrency, and the summary says how low it went.
// conformance: ERR-006
func TestSummaryReportsLoweredConcurrency(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": `
version: 1
service: { base_url: https://speech.example.com }
` + helloSynthesis})
	lim := executor.NewLimiter(0, 4)
	var first atomic.Bool
	inner := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if first.CompareAndSwap(false, true) {
			return &http.Response{StatusCode: http.StatusTooManyRequests, Request: req,
				Header: http.Header{"Retry-After": {"0"}, "Content-Type": {"application/json"}},
				Body:   io.NopCloser(strings.NewReader(`{"error":{"type":"RATE_LIMIT_ERROR","message":"slow down"}}`))}, nil
		}
		return http.DefaultTransport.RoundTrip(req)
	})
	tr := lim.Transport(inner)
	h.hook = func(req *http.Request, _ http.RoundTripper) (*http.Response, error) { return tr.RoundTrip(req) }
	s := h.applyWith(func(o *executor.Options) { o.Limiter = lim })
	if s.Done != 1 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	if s.LowestConcurrency != 2 {
		t.Errorf("LowestConcurrency %d after one 429 from 4, want 2", s.LowestConcurrency)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
