// Package clock waits: the one home of "sleep for d unless the caller's
// context ends first", which retries, lock polls, pacing and settling all
// need.
package clock

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx is done, whichever comes first; it
// returns ctx's error in the second case. A d of zero or less returns at
// once (with ctx's error if it is already done).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
