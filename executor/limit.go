package executor

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/voxform/voxform/speechapi"
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
	waiters  int // blocked in acquire (for tests)
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
	if err := ctx.Err(); err != nil {
		return err
	}
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
		a.waiters++
		a.cond.Wait()
		a.waiters--
	}
	a.inflight++
	return nil
}

// release frees a slot and adapts the limit to the response status (0: no
// response, which leaves the limit as it is).
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

// Limiter is the client-side pace (the rate the service admits, learned
// from its 429s, never above requests_per_second: see pacer) and the
// adaptive concurrency limit (-parallelism, halved on every 429) of one
// apply. One Limiter governs both the HTTP transport (Transport) and the
// WebSocket sessions the executor opens (Acquire), so that every request
// to the service, whatever its protocol, counts against the same limits.
type Limiter struct {
	pace  *pacer
	limit *adaptiveLimit
}

// NewLimiter returns a limit of at most rps requests per second (0: no
// ceiling), spaced evenly (no burst) at the pace the service admits, and
// at most maxInFlight requests in flight.
func NewLimiter(rps float64, maxInFlight int) *Limiter {
	return &Limiter{pace: newPacer(rps, maxInFlight), limit: newAdaptiveLimit(maxInFlight)}
}

// Acquire waits for the rate limit and a free slot, for one request or one
// WebSocket session. The returned release must be called exactly once, with
// the outcome (nil, or the error whose service status, a 429 above all,
// adapts the limit).
func (l *Limiter) Acquire(ctx context.Context) (release func(error), err error) {
	if err := l.limit.acquire(ctx); err != nil {
		return nil, err
	}
	sent, err := l.pace.wait(ctx)
	if err != nil {
		l.limit.release(0)
		return nil, err
	}
	var once sync.Once
	return func(err error) {
		once.Do(func() {
			status := statusOf(err)
			l.pace.outcome(time.Now(), sent, status)
			l.limit.release(status)
		})
	}, nil
}

// session runs one WebSocket session under the limits (a session does not
// go through the HTTP transport the Limiter otherwise decorates); a nil
// Limiter runs it unlimited.
func (l *Limiter) session(ctx context.Context, call func() error) error {
	if l == nil {
		return call()
	}
	release, err := l.Acquire(ctx)
	if err != nil {
		return err
	}
	err = call()
	release(err)
	return err
}

// statusOf is the HTTP status an outcome stands for: 200 for success, the
// service's status for a service error, 0 when there was no answer.
func statusOf(err error) int {
	var se *speechapi.Error
	switch {
	case err == nil:
		return http.StatusOK
	case errors.As(err, &se):
		return se.StatusCode
	}
	return 0
}

// Lowest reports the lowest concurrency the limit fell to after 429s; it is
// maxInFlight when the service never rate limited.
func (l *Limiter) Lowest() int {
	l.limit.mu.Lock()
	defer l.limit.mu.Unlock()
	return l.limit.lowest
}

// Max is the concurrency the limit starts at and never exceeds.
func (l *Limiter) Max() int { return l.limit.max }

// Transport wraps next so that every HTTP attempt, retries included, waits
// for the limits: a decorator around the transport rather than checks
// scattered through the executor. A slot is held until the response body is
// closed or read to its end, so a streamed body counts as in flight.
func (l *Limiter) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &limitedTransport{next: next, lim: l}
}

// limitedTransport is the http.RoundTripper of a Limiter.
type limitedTransport struct {
	next http.RoundTripper
	lim  *Limiter
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := t.lim.limit.acquire(ctx); err != nil {
		return nil, err
	}
	sent, err := t.lim.pace.wait(ctx)
	if err != nil {
		t.lim.limit.release(0)
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.lim.limit.release(0)
		return nil, err
	}
	status := resp.StatusCode
	// The pace learns from the status at once; the slot is held until
	// the body is done with.
	t.lim.pace.outcome(time.Now(), sent, status)
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { t.lim.limit.release(status) }}
	return resp, nil
}

// releasingBody frees its request's slot once the body is done with.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.release)
	}
	return n, err
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// LimitTransport wraps next with a new Limiter of rps requests per second
// (0 for none) and at most maxInFlight requests in flight. Prefer
// NewLimiter and Limiter.Transport, and pass the Limiter in
// Options.Limiter, so that WebSocket sessions share the limits.
func LimitTransport(next http.RoundTripper, rps float64, maxInFlight int) http.RoundTripper {
	return NewLimiter(rps, maxInFlight).Transport(next)
}
