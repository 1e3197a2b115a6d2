package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// limiter is a front server before an emulator: it answers the first
// `refuse` requests of each method and path with 429 and the Retry-After
// that retryAfter gives, then passes requests through. It records when each
// 429 was sent and when each request arrived.
type limiter struct {
	t          *testing.T
	next       http.Handler
	refuse     int
	retryAfter func() string

	mu       sync.Mutex
	arrivals map[string][]time.Time
	refused  map[string][]time.Time // when each 429 was written
}

func newLimiter(t *testing.T, next http.Handler, refuse int, retryAfter func() string) (*limiter, string) {
	l := &limiter{t: t, next: next, refuse: refuse, retryAfter: retryAfter,
		arrivals: map[string][]time.Time{}, refused: map[string][]time.Time{}}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, srv.URL
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.Path
	l.mu.Lock()
	l.arrivals[key] = append(l.arrivals[key], time.Now())
	n := len(l.arrivals[key])
	l.mu.Unlock()
	if n > l.refuse {
		l.next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Retry-After", l.retryAfter())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	fmt.Fprint(w, `{"success": false, "error": {"type": "RATE_LIMIT_ERROR", "message": "slow down"}}`)
	l.mu.Lock()
	l.refused[key] = append(l.refused[key], time.Now())
	l.mu.Unlock()
}

// gaps returns, for each refused request of key, the time from the 429 to
// the next request's arrival.
func (l *limiter) gaps(key string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	for i, at := range l.refused[key] {
		if i+1 < len(l.arrivals[key]) {
			out = append(out, l.arrivals[key][i+1].Sub(at))
		}
	}
	return out
}

func (l *limiter) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.arrivals[key])
}

// TestRetryAfterIsWaitedExactly: a Retry-After in seconds or as an HTTP
// date is waited in full on REST calls and on the realtime handshake, even
// though RetryWaitMax is a few milliseconds (the backoff bound does not cut
// it short), and the call then succeeds.
//
// conformance: ERR-017, ERR-034
func TestRetryAfterIsWaitedExactly(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	clip := wavBytes(t, 3, 1, 16000, kindSpeech)
	src := writeAudioFile(t, t.TempDir(), "a.wav", clip)
	var date time.Time // the HTTP date sent, to the second
	cases := []struct {
		name, key  string
		retryAfter func() string
		call       func(c *speechapi.Client) error
	}{
		{"rest seconds", "POST /stt/v3", func() string { return "1" }, func(c *speechapi.Client) error {
			_, err := c.Transcribe(context.Background(), src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		}},
		{"rest http date", "GET /stt/v3/batch/jobs", func() string {
			date = time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
			return date.Format(http.TimeFormat)
		}, func(c *speechapi.Client) error {
			_, err := c.ListJobs(context.Background(), speechapi.JobsQuery{})
			return err
		}},
		{"realtime handshake", "GET /stt/v3", func() string { return "1" }, func(c *speechapi.Client) error {
			_, err := c.TranscribeRealtime(context.Background(), bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, url := newLimiter(t, e.srv, 1, tc.retryAfter)
			c, err := speechapi.New(speechapi.Config{BaseURL: url, APIKey: "test-key", Retries: 3,
				RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.call(c); err != nil {
				t.Fatalf("after one 429: %v", err)
			}
			gaps := l.gaps(tc.key)
			if n := l.count(tc.key); n != 2 || len(gaps) != 1 {
				t.Fatalf("%d requests, want the refused one and one retry", n)
			}
			want := time.Second
			if tc.name == "rest http date" {
				l.mu.Lock()
				retried := l.arrivals[tc.key][1]
				l.mu.Unlock()
				if retried.Before(date) {
					t.Errorf("retried at %v, before the Retry-After date %v", retried, date)
				}
				want = 0 // the date, checked above, is what counts
			}
			if gaps[0] < want {
				t.Errorf("retried %v after the 429, before Retry-After's %v", gaps[0], want)
			}
		})
	}
}

// TestRetryAfterBeyondMaxFailsAtOnce: a Retry-After longer than
// RetryAfterMax (10 minutes unless configured) is neither waited for nor
// cut short: the call fails after one request with a *RetryLaterError that
// says when to retry, and the service's *Error stays reachable. Whole
// operation retries (Retry) stop on it too.
//
// conformance: ERR-006, ERR-017
func TestRetryAfterBeyondMaxFailsAtOnce(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	clip := wavBytes(t, 4, 1, 16000, kindSpeech)
	src := writeAudioFile(t, t.TempDir(), "a.wav", clip)
	in2h := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	cases := []struct {
		name, key, retryAfter string
		max, wantWait         time.Duration
		call                  func(ctx context.Context, c *speechapi.Client) error
	}{
		{"rest seconds", "POST /stt/v3", "3600", 2 * time.Second, time.Hour, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		}},
		{"default maximum", "POST /stt/v3", "601", 0, 601 * time.Second, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		}},
		{"http date", "GET /stt/v3/batch/jobs/job-x", in2h.Format(http.TimeFormat), time.Minute, 2 * time.Hour, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.GetJob(ctx, "job-x")
			return err
		}},
		{"realtime handshake", "GET /stt/v3", "3600", time.Minute, time.Hour, func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN"})
			return err
		}},
		{"synthesis websocket", "GET /api/v1/tts", "3600", time.Minute, time.Hour, func(ctx context.Context, c *speechapi.Client) error {
			req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Hello.", Model: "tts-v2.5", Voice: "Poorvi", Language: "en-IN"}}
			_, err := c.SynthesizeRealtime(ctx, req, &memFile{})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, url := newLimiter(t, e.srv, 1000, func() string { return tc.retryAfter })
			c, err := speechapi.New(speechapi.Config{BaseURL: url, APIKey: "test-key", Retries: 3,
				RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond, RetryAfterMax: tc.max})
			if err != nil {
				t.Fatal(err)
			}
			// A client that waited as asked would hit this deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			begin := time.Now()
			err = tc.call(ctx, c)
			elapsed := time.Since(begin)
			var rl *speechapi.RetryLaterError
			if !errors.As(err, &rl) {
				t.Fatalf("got %v (%T), want a *RetryLaterError", err, err)
			}
			if n := l.count(tc.key); n != 1 || elapsed > time.Second {
				t.Fatalf("%d requests in %v: want one, at once", n, elapsed)
			}
			wantMax := tc.max
			if wantMax == 0 {
				wantMax = speechapi.DefaultRetryAfterMax
			}
			if rl.Max != wantMax || rl.Wait < tc.wantWait-2*time.Second || rl.Wait > tc.wantWait {
				t.Errorf("wait %v max %v, want %v and %v", rl.Wait, rl.Max, tc.wantWait, wantMax)
			}
			if d := rl.At.Sub(begin.Add(tc.wantWait)); d < -2*time.Second || d > 2*time.Second {
				t.Errorf("retry at %v, want about %v", rl.At, begin.Add(tc.wantWait))
			}
			if speechapi.IsTemporary(err) {
				t.Error("a *RetryLaterError must not count as temporary")
			}
			se := serviceError(t, err)
			if se.StatusCode != http.StatusTooManyRequests || se.Type != speechapi.TypeRateLimit {
				t.Errorf("service error %v", se)
			}
			if !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), rl.At.UTC().Format(time.RFC3339)) {
				t.Errorf("message %q does not say the answer and when to retry", err)
			}
		})
	}
}
