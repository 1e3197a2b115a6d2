package executor

import (
	"context"
	"net/http"
	"sync"

	"golang.org/x/time/rate"
)

// adaptiveLimit bounds the number of requests in flight. It starts at max;
// every 429 halves it (never below 1) and every run of successes as long as
// the current limit raises it by one again, so repeated rate limiting makes
// voxform slow down instead of hammering (SPEC section 6).
type adaptiveLimit struct {
	mu       sync.Mutex
	cond     *sync.Cond
	max      int
	limit    int
	inflight int
	streak   int
	lowest   int
}

func newAdaptiveLimit(max int) *adaptiveLimit {
	if max < 1 {
		max = 1
	}
	a := &adaptiveLimit{max: max, limit: max, lowest: max}
	a.cond = sync.NewCond(&a.mu)
	return a
}

// acquire waits for a slot or for ctx to end.
func (a *adaptiveLimit) acquire(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.inflight >= a.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		a.cond.Wait()
	}
	a.inflight++
	return nil
}

// release frees a slot and adapts the limit to the response status.
func (a *adaptiveLimit) release(status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight--
	switch {
	case status == http.StatusTooManyRequests:
		a.streak = 0
		if a.limit > 1 {
			a.limit /= 2
		}
		a.lowest = min(a.lowest, a.limit)
	case status > 0 && status < 400:
		a.streak++
		if a.streak >= a.limit && a.limit < a.max {
			a.limit++
			a.streak = 0
		}
	}
	a.cond.Broadcast()
}

// Lowest reports the lowest concurrency the limit fell to.
func (a *adaptiveLimit) Lowest() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lowest
}

// limitedTransport applies the client-side rate limit and the adaptive
// concurrency limit to every HTTP attempt, retries included: a decorator
// around the transport rather than checks scattered through the executor.
type limitedTransport struct {
	next    http.RoundTripper
	rate    *rate.Limiter // nil: no rate limit
	limit   *adaptiveLimit
	observe func(status int)
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if t.rate != nil {
		if err := t.rate.Wait(ctx); err != nil {
			return nil, err
		}
	}
	if err := t.limit.acquire(ctx); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	t.limit.release(status)
	if t.observe != nil {
		t.observe(status)
	}
	return resp, err
}

// LimitTransport wraps next with the client-side rate limit (requests per
// second, 0 for none) and an adaptive limit of at most maxInFlight requests
// in flight that halves on every 429 and recovers on success.
func LimitTransport(next http.RoundTripper, rps float64, maxInFlight int) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	t := &limitedTransport{next: next, limit: newAdaptiveLimit(maxInFlight)}
	if rps > 0 {
		t.rate = rate.NewLimiter(rate.Limit(rps), max(1, int(rps)))
	}
	return t
}
