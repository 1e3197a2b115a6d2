package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSleep: Sleep waits its time, ends at once with the context's error
// when the context ends first, and does not wait for nothing.
func TestSleep(t *testing.T) {
	start := time.Now()
	if err := Sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep 20ms: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start = time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("Sleep cancelled: %v after %v", err, time.Since(start))
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep 0 with a done context: %v", err)
	}
	if err := Sleep(context.Background(), -time.Second); err != nil {
		t.Errorf("Sleep of a negative time: %v", err)
	}
}
