package executor

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxform/voxform/speechapi"
)

// waitFor spins until cond holds (it does within a scheduling round or
// two; the deadline only turns a hang into a failure).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// Every 429 halves the limit, never below 1; each run of successes as long
// as the limit raises it by one, never above the maximum; other statuses
// and transport errors leave it alone.
// conformance: ERR-006, ERR-017, ERR-034
func TestAdaptiveLimitHalvesAndRecovers(t *testing.T) {
	a := newAdaptiveLimit(8)
	call := func(status int) {
		t.Helper()
		if err := a.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		a.release(status)
	}
	limit := func() int { l, _, _ := a.snapshot(); return l }
	for _, want := range []int{4, 2, 1, 1, 1} {
		call(http.StatusTooManyRequests)
		if got := limit(); got != want {
			t.Fatalf("after a 429: limit %d, want %d", got, want)
		}
	}
	call(http.StatusInternalServerError)
	call(0)
	if got := limit(); got != 1 {
		t.Fatalf("a 500 or a transport error moved the limit to %d", got)
	}
	// At limit n it takes n successes to reach n+1.
	for n := 1; n < 8; n++ {
		for i := 0; i < n-1; i++ {
			call(http.StatusOK)
			if got := limit(); got != n {
				t.Fatalf("limit %d after %d of %d successes, want %d", got, i+1, n, n)
			}
		}
		call(http.StatusAccepted)
		if got := limit(); got != n+1 {
			t.Fatalf("limit %d after a run of %d successes, want %d", got, n, n+1)
		}
	}
	for range 100 {
		call(http.StatusOK)
	}
	if got := limit(); got != 8 {
		t.Errorf("limit %d, never above the maximum 8", got)
	}
	if a.lowest != 1 {
		t.Errorf("lowest %d, want 1", a.lowest)
	}
	if newAdaptiveLimit(0).max != 1 {
		t.Error("a maximum below 1 is not raised to 1")
	}
}

// A caller waiting for a slot is woken by a release, and by the end of its
// context (without taking a slot).
func TestAdaptiveLimitWakesWaitersAndHonoursContext(t *testing.T) {
	a := newAdaptiveLimit(2)
	for range 2 {
		if err := a.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- a.acquire(context.Background()) }()
	waitFor(t, "a waiter", func() bool { _, _, w := a.snapshot(); return w == 1 })
	select {
	case err := <-got:
		t.Fatalf("acquired beyond the limit: %v", err)
	default:
	}
	a.release(http.StatusOK)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if _, in, _ := a.snapshot(); in != 2 {
		t.Fatalf("in flight %d, want 2", in)
	}

	// A 429 halves the limit to 1 while 2 are in flight: a release leaves
	// 1 in flight, still not below the limit, so a waiter keeps waiting.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { got <- a.acquire(ctx) }()
	waitFor(t, "a waiter", func() bool { _, _, w := a.snapshot(); return w == 1 })
	a.release(http.StatusTooManyRequests)
	if l, in, w := a.snapshot(); l != 1 || in != 1 || w != 1 {
		t.Fatalf("limit %d, in flight %d, waiters %d; want 1, 1, 1", l, in, w)
	}
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	if _, in, w := a.snapshot(); in != 1 || w != 0 {
		t.Errorf("after the cancelled acquire: in flight %d, waiters %d", in, w)
	}
}

// countingServer answers every request after a short pause between its
// headers and its body, counting how many requests it serves at once.
type countingServer struct {
	*httptest.Server
	cur, peak atomic.Int64
	mu        sync.Mutex
	arrivals  []time.Time
	status    func(n int) int // status of the n-th request (0-based)
	n         atomic.Int64
}

func newCountingServer(t *testing.T, status func(int) int) *countingServer {
	s := &countingServer{status: status}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.n.Add(1) - 1)
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.mu.Unlock()
		c := s.cur.Add(1)
		for {
			p := s.peak.Load()
			if c <= p || s.peak.CompareAndSwap(p, c) {
				break
			}
		}
		defer s.cur.Add(-1)
		code := http.StatusOK
		if s.status != nil {
			code = s.status(n)
		}
		w.WriteHeader(code)
		w.(http.Flusher).Flush()
		time.Sleep(3 * time.Millisecond) // the body is still streaming
		io.WriteString(w, "body")
	}))
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		t.Error(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// The transport never has more requests in flight than the maximum, as the
// server counts them, a streamed body included; and it does use them all.
func TestLimitTransportMaxInFlight(t *testing.T) {
	srv := newCountingServer(t, nil)
	c := &http.Client{Transport: LimitTransport(nil, 0, 3)}
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() { defer wg.Done(); get(t, c, srv.URL) }()
	}
	wg.Wait()
	if p := srv.peak.Load(); p != 3 {
		t.Errorf("peak of %d requests in flight at the server, want exactly 3", p)
	}
}

// After 429s the transport lowers its own concurrency, and Lowest says so.
func TestLimitTransportLowersConcurrencyOn429(t *testing.T) {
	srv := newCountingServer(t, func(n int) int {
		if n < 3 {
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	})
	lim := NewLimiter(0, 8)
	c := &http.Client{Transport: lim.Transport(nil)}
	for range 3 {
		get(t, c, srv.URL)
	}
	if got := lim.Lowest(); got != 1 {
		t.Fatalf("Lowest %d after three 429s from 8, want 1", got)
	}
	srv.peak.Store(0)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() { defer wg.Done(); get(t, c, srv.URL) }()
	}
	wg.Wait()
	if p := srv.peak.Load(); p > 3 {
		t.Errorf("peak %d right after the limit fell to 1 (six successes raise it to 3 at most)", p)
	}
	if lim.Max() != 8 {
		t.Errorf("Max %d", lim.Max())
	}
}

// requests_per_second spaces requests evenly, also when many wait at once.
// The times are taken where the limiter hands each request on, so that a
// loaded machine's delay between that and the server's accept does not
// count against the limiter.
func TestLimitTransportRateSpacing(t *testing.T) {
	const rps = 50 // 20 ms apart
	srv := newCountingServer(t, nil)
	sent := &sendTimes{next: http.DefaultTransport}
	c := &http.Client{Transport: LimitTransport(sent, rps, 10)}
	start := time.Now()
	var wg sync.WaitGroup
	for range 11 {
		wg.Add(1)
		go func() { defer wg.Done(); get(t, c, srv.URL) }()
	}
	wg.Wait()
	if el := time.Since(start); el < 190*time.Millisecond {
		t.Errorf("11 requests at %d per second took %v, want at least 200 ms", rps, el)
	}
	sent.mu.Lock()
	defer sent.mu.Unlock()
	if len(sent.at) != 11 {
		t.Fatalf("%d requests sent, want 11", len(sent.at))
	}
	for i := 1; i < len(sent.at); i++ {
		// The limiter spaces the start of each request by 20 ms; a wake-up
		// a little late may bring the next one a little nearer.
		if gap := sent.at[i].Sub(sent.at[i-1]); gap < 12*time.Millisecond {
			t.Errorf("requests %d and %d sent %v apart, want about 20 ms", i-1, i, gap)
		}
	}
}

// sendTimes is a RoundTripper that notes when each request reaches it.
type sendTimes struct {
	next http.RoundTripper
	mu   sync.Mutex
	at   []time.Time
}

func (s *sendTimes) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
	return s.next.RoundTrip(req)
}

// A WebSocket session (Acquire) and HTTP requests (Transport) share the
// slots: with one slot held by a session, a request waits for its release.
// A session refused with 429 lowers the limit like an HTTP 429.
func TestLimiterSessionsShareSlotsWithTransport(t *testing.T) {
	srv := newCountingServer(t, nil)
	lim := NewLimiter(0, 1)
	c := &http.Client{Transport: lim.Transport(nil)}
	release, err := lim.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { get(t, c, srv.URL); close(done) }()
	waitFor(t, "the request to wait", func() bool { _, _, w := lim.limit.snapshot(); return w == 1 })
	if srv.n.Load() != 0 {
		t.Fatal("the request went out while the session held the only slot")
	}
	release(nil)
	release(nil) // a second call does nothing
	<-done
	if _, in, _ := lim.limit.snapshot(); in != 0 {
		t.Fatalf("in flight %d after everything finished", in)
	}

	lim = NewLimiter(0, 4)
	release, err = lim.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release(&speechapi.Error{StatusCode: http.StatusTooManyRequests})
	if lim.Lowest() != 2 {
		t.Errorf("Lowest %d after a session's 429, want 2", lim.Lowest())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lim.Acquire(ctx); err == nil {
		t.Error("Acquire with a cancelled context succeeded")
	}
}
