package speechapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// RetryPolicy bounds the retries of a whole operation (Retry).
type RetryPolicy struct {
	// Attempts is the most attempts in all (0: 5).
	Attempts int
	// WaitMin and WaitMax bound the backoff (0: 500 ms and 30 s).
	WaitMin, WaitMax time.Duration
	// OnRetry, if set, is told before each retry.
	OnRetry func(attempt int, err error)
}

// Retry runs op until it succeeds, fails with an error that is not
// temporary (IsTemporary), or the attempts run out; attempt counts from 1.
// Between attempts it waits with exponential backoff and jitter, or as long
// as the service's Retry-After asked.
//
// The client itself retries a request that failed before its response
// began. A stream cut mid-body (an *IncompleteError) has already written
// part of the audio, so the whole operation must start again with an empty
// output: op is that operation, and must begin by discarding what an
// earlier attempt wrote, for example with Rewind:
//
//	err := speechapi.Retry(ctx, policy, func(attempt int) error {
//		if err := speechapi.Rewind(f); err != nil {
//			return err
//		}
//		_, err := client.SynthesizeStream(ctx, req, f)
//		return err
//	})
func Retry(ctx context.Context, p RetryPolicy, op func(attempt int) error) error {
	if p.Attempts <= 0 {
		p.Attempts = 5
	}
	if p.WaitMin <= 0 {
		p.WaitMin = 500 * time.Millisecond
	}
	if p.WaitMax <= 0 {
		p.WaitMax = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		err := op(attempt)
		if err == nil || attempt >= p.Attempts || !IsTemporary(err) {
			return err
		}
		if ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		if p.OnRetry != nil {
			p.OnRetry(attempt, err)
		}
		if werr := sleepCtx(ctx, retryWait(err, p.WaitMin, p.WaitMax, attempt-1)); werr != nil {
			return errors.Join(err, werr)
		}
	}
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

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Truncater is a writer that can be emptied, as *os.File can.
type Truncater interface {
	io.WriteSeeker
	Truncate(size int64) error
}

// Rewind empties an output so that a retried operation starts afresh: it
// truncates w to zero and seeks to its start. w must be a Truncater.
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
