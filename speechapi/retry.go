package speechapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/voxform/voxform/internal/clock"
)

// One retry layer. Every method of Client is one operation, and retry runs
// it: an attempt sends one request (or opens one WebSocket session) and
// reads its whole answer. Nothing above the client retries, so
// Config.Retries bounds what an operation costs the service: at most
// Retries+1 requests, cut answers sent again included.

// retry runs op, attempt counting from 0, until it succeeds, fails in a way
// that sending it again cannot mend, the retries run out, ctx ends or the
// breaker opens. What is sent again: a refused or reset connection, no
// answer within Config.Timeout, a 429, 500, 502, 503 or 504, and an answer
// cut mid-body; an attempt whose failure must not be sent again (a cut
// answer of a call that started billed work, output that cannot be
// emptied) returns final(err). Between attempts it waits exactly as long
// as the service's Retry-After asked (a longer wait than RetryAfterMax is
// a *RetryLaterError, never retried), else exponential backoff with
// jitter. rawURL names the call to OnRetry and to the breaker.
func (c *Client) retry(ctx context.Context, rawURL string, op func(attempt int) error) error {
	service := c.isService(rawURL)
	if service {
		if err := c.cfg.Breaker.Err(); err != nil {
			return err
		}
	}
	var err, prev error
	attempt := 0
	for ; ; attempt++ {
		err = op(attempt)
		if attempt > 0 && errors.Is(err, errNotRereadable) {
			// The body was streamed from a reader that cannot be read
			// again: the failure is the previous attempt's.
			err, attempt = prev, attempt-1
			break
		}
		if fe, ok := err.(*finalError); ok {
			err = fe.err
			break
		}
		if err == nil || ctx.Err() != nil || !IsTemporary(err) || attempt >= c.cfg.Retries {
			break
		}
		if service && c.cfg.Breaker.Err() != nil {
			break // in flight when the service was found down: not sent again
		}
		c.retried(ctx, rawURL, attempt+1, err)
		if werr := clock.Sleep(ctx, retryWait(err, c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt)); werr != nil {
			err = errors.Join(err, werr)
			break
		}
		if service && c.cfg.Breaker.Err() != nil {
			break
		}
		prev = err
	}
	if te := timeoutOf(err); te != nil {
		te.Attempts = attempt + 1
	}
	if service && ctx.Err() == nil {
		c.cfg.Breaker.report(hostOf(rawURL), err)
	}
	return err
}

// finalError marks the failure of an attempt that must not be sent again;
// retry returns the error under it.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }

func (e *finalError) Unwrap() error { return e.err }

// final marks err, if not nil, as not to be sent again.
func final(err error) error {
	if _, ok := err.(*finalError); ok || err == nil {
		return err
	}
	return &finalError{err: err}
}

// isService reports whether rawURL is on the service's own host (HTTP or
// WebSocket), not a storage address a presigned download points at: only
// the service's calls count for the breaker.
func (c *Client) isService(rawURL string) bool {
	h := hostOf(rawURL)
	return h == hostOf(c.cfg.BaseURL) || h == hostOf(c.cfg.WSBaseURL)
}

// retried tells Config.OnRetry and the call's retry hook (WithRetryHook)
// that attempt (from 1) follows err.
func (c *Client) retried(ctx context.Context, rawURL string, attempt int, err error) {
	if c.cfg.OnRetry != nil {
		c.cfg.OnRetry(pathOf(rawURL), attempt, err)
	}
	if hook, ok := ctx.Value(retryHookKey{}).(func(int, error)); ok {
		hook(attempt, err)
	}
}

// retryHookKey is the context key of WithRetryHook.
type retryHookKey struct{}

// WithRetryHook returns a context whose calls tell hook of each attempt
// they send again (attempt counts from 1) and of the failure that caused
// it, as net/http/httptrace attaches hooks to a request: a caller reports
// retries per piece of work this way, where Config.OnRetry sees the
// client's.
func WithRetryHook(ctx context.Context, hook func(attempt int, err error)) context.Context {
	return context.WithValue(ctx, retryHookKey{}, hook)
}

// pathOf is the path of an absolute URL, as OnRetry names endpoints.
func pathOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Path
	}
	return raw
}

// retryWait is the wait before retry number attempt (0-based): the
// service's Retry-After when it sent one, else Backoff.
func retryWait(err error, min, max time.Duration, attempt int) time.Duration {
	var se *Error
	if errors.As(err, &se) && se.RetryAfter != "" {
		if d, ok := RetryAfter(se.RetryAfter, time.Now()); ok {
			return d
		}
	}
	return Backoff(min, max, attempt)
}

// Truncater is a writer that can be emptied, as *os.File can.
type Truncater interface {
	io.WriteSeeker
	Truncate(size int64) error
}

// Rewind empties an output so that an attempt starts afresh: it truncates
// w to zero and seeks to its start. w must be a Truncater.
func Rewind(w io.Writer) error {
	t, ok := w.(Truncater)
	if !ok {
		return fmt.Errorf("rewind output: %T cannot be truncated", w)
	}
	if err := t.Truncate(0); err != nil {
		return fmt.Errorf("rewind output: %w", err)
	}
	if _, err := t.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind output: %w", err)
	}
	return nil
}

// output is the caller's writer of an operation that streams to it: each
// attempt after the first starts from an empty writer (Rewind), so that a
// stream cut mid-body is sent again only when what it wrote can be
// discarded.
type output struct {
	w io.Writer
}

// begin empties the writer before attempt number attempt (from 0).
func (o output) begin(attempt int) error {
	if attempt == 0 {
		return nil
	}
	if _, ok := o.w.(Truncater); !ok {
		return nil // nothing was written (see end)
	}
	if err := Rewind(o.w); err != nil {
		return final(err)
	}
	return nil
}

// end marks the failure of an attempt that wrote n bytes final when the
// writer cannot be emptied for another.
func (o output) end(err error, n int64) error {
	if _, ok := o.w.(Truncater); err == nil || ok || n == 0 {
		return err
	}
	return final(err)
}
