package speechapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
)

// DefaultBreakerThreshold is the number of operations in a row that must
// fail for a reason of the service's before a Breaker opens.
const DefaultBreakerThreshold = 5

// Breaker recognises a service that appears down, so that a dead service
// is not ground through call by call. Every operation of a Client that
// has one reports its outcome once its retries are over: a failure of the
// service's (a 5xx answer, a refused, reset or cut connection, no answer
// within Config.Timeout, a certificate the client does not trust) counts,
// a success sets the count back to zero, and anything else leaves it as
// it is: a 429 (the service is busy, not
// down: the caller slows down instead), another 4xx (the request's own
// fault), a local error. After threshold failures in a row the breaker
// opens, for good: the client starts no new operation (each fails at once
// with the *DownError, sending nothing) and sends no retry of one in
// flight; Open's channel is closed. A nil *Breaker never opens.
type Breaker struct {
	threshold int

	mu   sync.Mutex
	run  int // failures in a row
	down *DownError
	open chan struct{}
}

// NewBreaker returns a closed breaker that opens after threshold failures
// in a row (at least 1).
func NewBreaker(threshold int) *Breaker {
	return &Breaker{threshold: max(threshold, 1), open: make(chan struct{})}
}

// Open returns a channel that is closed when the breaker opens; nil (never
// ready) for a nil breaker.
func (b *Breaker) Open() <-chan struct{} {
	if b == nil {
		return nil
	}
	return b.open
}

// Err returns the *DownError once the breaker is open, else nil.
func (b *Breaker) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down == nil {
		return nil
	}
	return b.down
}

// report counts the outcome of one operation on host.
func (b *Breaker) report(host string, err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.down != nil:
	case err == nil:
		b.run = 0
	case serviceFault(err):
		b.run++
		if b.run >= b.threshold {
			b.down = &DownError{Host: host, Failures: b.run, Last: err}
			close(b.open)
		}
	}
}

// serviceFault reports whether err says the service failed, rather than
// the request, the caller or a rate limit: a 5xx answer (or an error event
// of that type), a connection refused, reset or cut, no answer in time,
// or a certificate the client does not trust: not sent again (a retry
// meets the same certificate), it is the same for every call, so a
// project's operations stop after threshold handshakes, not one each.
func serviceFault(err error) bool {
	var se *Error
	if errors.As(err, &se) {
		return se.StatusCode >= 500
	}
	if timeoutOf(err) != nil {
		return true
	}
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return true
	}
	return IsTemporary(err)
}

// DownError is the failure of a call a Breaker refused: the service
// appears down. Nothing was sent.
type DownError struct {
	// Host is the host of the last failed operation.
	Host string
	// Failures is how many operations in a row failed.
	Failures int
	// Last is the last failure, after its retries.
	Last error
}

// Error names the host, the count and the last failure.
func (e *DownError) Error() string {
	return fmt.Sprintf("the service at %s appears down: %d calls in a row failed; the last: %v", e.Host, e.Failures, e.Last)
}
