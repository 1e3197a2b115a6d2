package executor_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/speechapi"
)

const inferenceRoute = "POST /api/v1/tts/inference"

// manySyntheses declares n REST syntheses, synthesis.many["kaa"] and on,
// each writing out/KEY.wav.
func manySyntheses(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "k" + string(rune('a'+i/26)) + string(rune('a'+i%26))
	}
	return `
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  many:
    for_each: [` + strings.Join(keys, ", ") + `]
    voice: v
    text: "नमस्ते ${each.value}"
    output: "out/${each.key}.wav"
`
}

// retrying points h's client at its emulator with retries retries (-1:
// none), a short backoff, and breaker b (nil: none).
func (h *harness) retrying(retries int, b *speechapi.Breaker) {
	h.t.Helper()
	cl, err := speechapi.New(speechapi.Config{BaseURL: h.emu.URL, APIKey: "test-key", Retries: retries,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond, Breaker: b,
		HTTPClient: &http.Client{Transport: hookTransport{h}}})
	if err != nil {
		h.t.Fatal(err)
	}
	h.cl = cl
}

// requests is how many requests the emulator answered on route.
func (h *harness) requests(route string) int {
	h.t.Helper()
	reqs, _ := h.stats()["requests"].(map[string]any)
	n, _ := reqs[route].(float64)
	return int(n)
}

// answer is a response the hook gives instead of the service's.
func answer(req *http.Request, status int, retryAfter string) *http.Response {
	body := `{"success":false,"error":{"type":"INVALID_REQUEST_ERROR","message":"refused by the test"}}`
	h := http.Header{"Content-Type": {"application/json"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
		body = `{"success":false,"error":{"type":"RATE_LIMIT_ERROR","message":"slow down"}}`
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

// With service.retries N, one synthesis against a service that fails
// every request makes exactly N+1 requests in all: the client's retries
// are the only ones (it made 6×5 = 30 with two layers at N = 5).
func TestOneFailingSynthesisMakesRetriesPlusOneRequests(t *testing.T) {
	for _, n := range []int{0, 2, 5} {
		h := newHarness(t, emulator.Options{FailRate: 1}, map[string]string{"main.yaml": helloSynthesis})
		retries := n
		if n == 0 {
			retries = -1
		}
		h.retrying(retries, nil)
		var retried atomic.Int32
		s := h.applyWith(func(o *executor.Options) {
			o.Events = func(e executor.Event) {
				if e.Kind == executor.EventRetry && e.Address == "synthesis.hello" {
					retried.Add(1)
				}
			}
		})
		if s.Failed != 1 || s.Done != 0 {
			t.Fatalf("retries %d: summary %+v", n, s)
		}
		if got := h.requests(inferenceRoute); got != n+1 {
			t.Errorf("retries %d: %d requests, want %d", n, got, n+1)
		}
		if got := retried.Load(); got != int32(n) {
			t.Errorf("retries %d: %d retry events for synthesis.hello, want %d", n, got, n)
		}
	}
}

// A synthesis whose stream is cut mid-body is sent again from an empty
// temporary file, and the cut counts among the retries: cut every time,
// retries 2 make exactly 3 requests and leave no file; cut once, the
// second request's audio is the output, whole.
func TestCutSynthesisCountsAmongRetries(t *testing.T) {
	h := newHarness(t, emulator.Options{DropRate: 1}, map[string]string{"main.yaml": helloSynthesis})
	h.retrying(2, nil)
	if s := h.apply(); s.Failed != 1 {
		t.Fatalf("summary %+v", s)
	}
	if got := h.requests(inferenceRoute); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.dir, "out")); len(entries) != 0 {
		t.Errorf("left in out/: %v", entries)
	}

	h = newHarness(t, emulator.Options{}, map[string]string{"main.yaml": helloSynthesis})
	h.retrying(1, nil)
	var cut atomic.Bool
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && cut.CompareAndSwap(false, true) {
			resp.Body = &cutBody{ReadCloser: resp.Body, left: resp.ContentLength / 2}
		}
		return resp, err
	}
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	if got := h.requests(inferenceRoute); got != 2 {
		t.Errorf("%d requests, want 2", got)
	}
	out := h.state().Resources["synthesis.hello"].Outputs[0]
	if fi, err := os.Stat(filepath.Join(h.dir, out.Path)); err != nil || fi.Size() != out.Size {
		t.Errorf("output %+v on disk: %v %v", out, fi, err)
	}
}

// cutBody ends a body with a reset after left bytes.
type cutBody struct {
	io.ReadCloser
	left int64
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errors.New("connection reset by peer (test)")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// Against a dead service, apply stops once the breaker opens: 50
// syntheses with retries 2 and parallelism 4 make at most
// (threshold + parallelism - 1) × 3 requests (750 with two retry layers
// and no breaker), start nothing after, and say the service appears down,
// naming its host.
func TestDeadServiceOpensTheBreaker(t *testing.T) {
	h := newHarness(t, emulator.Options{FailRate: 1}, map[string]string{"main.yaml": manySyntheses(50)})
	h.retrying(2, speechapi.NewBreaker(speechapi.DefaultBreakerThreshold))
	const parallelism = 4
	var mu sync.Mutex
	var skipped []string
	var started int
	s := h.applyWith(func(o *executor.Options) {
		o.Parallelism = parallelism
		o.Events = func(e executor.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Kind {
			case executor.EventSkipped:
				skipped = append(skipped, e.Reason)
			case executor.EventStart:
				started++
			}
		}
	})
	limit := (speechapi.DefaultBreakerThreshold + parallelism - 1) * 3
	t.Logf("%d requests; %d failed, %d skipped", h.requests(inferenceRoute), s.Failed, s.Skipped)
	if got := h.requests(inferenceRoute); got > limit {
		t.Errorf("%d requests, want at most %d", got, limit)
	}
	var down *speechapi.DownError
	host := strings.TrimPrefix(h.emu.URL, "http://")
	if !errors.As(s.ServiceDown, &down) || down.Host != host || !strings.Contains(s.ServiceDown.Error(), "appears down") {
		t.Fatalf("summary %+v: want the service down at %s", s, host)
	}
	if s.Done != 0 || s.Failed > speechapi.DefaultBreakerThreshold+parallelism-1 || s.Failed+s.Skipped != 50 || s.Interrupted {
		t.Errorf("summary %+v", s)
	}
	for _, why := range skipped {
		if !strings.Contains(why, "appears down") {
			t.Errorf("skipped because %q", why)
		}
	}
	// The graph starts nothing once the breaker is open, as after a
	// first Ctrl-C (a few units may start as it notices).
	if started > s.Failed+parallelism {
		t.Errorf("%d resources started, %d failed: the rest should never have started", started, s.Failed)
	}
}

// The breaker stops new work, not work in flight: a synthesis whose call
// was on its way when the breaker opened finishes and is recorded.
func TestBreakerLetsWorkInFlightFinish(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": manySyntheses(20)})
	b := speechapi.NewBreaker(speechapi.DefaultBreakerThreshold)
	h.retrying(-1, b)
	var first atomic.Bool
	var failed atomic.Int32
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		if first.CompareAndSwap(false, true) {
			select {
			case <-b.Open():
			case <-time.After(10 * time.Second):
				return nil, errors.New("the breaker never opened")
			}
			return next.RoundTrip(req)
		}
		failed.Add(1)
		return answer(req, http.StatusServiceUnavailable, ""), nil
	}
	s := h.applyWith(func(o *executor.Options) { o.Parallelism = 4 })
	if s.ServiceDown == nil || s.Done != 1 || s.Failed != int(failed.Load()) || s.Done+s.Failed+s.Skipped != 20 {
		t.Fatalf("summary %+v after %d failed requests", s, failed.Load())
	}
	recorded := 0
	for addr, r := range h.state().Resources {
		recorded++
		if len(r.Outputs) != 1 {
			t.Errorf("%s: %+v", addr, r)
		}
	}
	if recorded != 1 || h.requests(inferenceRoute) != 1 {
		t.Errorf("%d recorded, %d reached the service: want the one in flight", recorded, h.requests(inferenceRoute))
	}
}

// 429s slow voxform down but never open the breaker, and neither do 400s:
// more operations in a row than its threshold fail so, and the apply goes
// on with the rest.
func TestRateLimitsAndBadRequestsDoNotOpenTheBreaker(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		perOp      int // requests each refused operation makes
	}{
		{"429", http.StatusTooManyRequests, "0", 3},
		{"400", http.StatusBadRequest, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": manySyntheses(12)})
			b := speechapi.NewBreaker(speechapi.DefaultBreakerThreshold)
			h.retrying(2, b)
			refuse := int32(2 * speechapi.DefaultBreakerThreshold * tc.perOp)
			var seen atomic.Int32
			h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
				if seen.Add(1) <= refuse {
					return answer(req, tc.status, tc.retryAfter), nil
				}
				return next.RoundTrip(req)
			}
			s := h.applyWith(func(o *executor.Options) { o.Parallelism = 1 })
			refused := 2 * speechapi.DefaultBreakerThreshold
			if s.ServiceDown != nil || s.Failed != refused || s.Done != 12-refused || s.Skipped != 0 {
				t.Fatalf("summary %+v", s)
			}
			if b.Err() != nil || h.requests(inferenceRoute) != 12-refused {
				t.Errorf("breaker %v; %d requests reached the service", b.Err(), h.requests(inferenceRoute))
			}
		})
	}
}
