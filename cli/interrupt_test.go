package cli

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// waitClosed fails the test unless ch is closed within a generous bound
// (a signal is handled in microseconds; the bound only stops a hang).
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestInterruptionStages: the first interrupt stops (nothing new starts)
// without cancelling calls in flight; the second cancels them. The count
// does not depend on when apply starts watching: a first Ctrl-C that came
// before, while the plan was computed, still counts.
func TestInterruptionStages(t *testing.T) {
	for _, early := range []bool{false, true} {
		name := "first interrupt during apply"
		if early {
			name = "first interrupt before apply watched"
		}
		t.Run(name, func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			ctx, release := watchInterrupts(context.Background(), sigs, time.Hour)
			defer release()
			if early {
				sigs <- os.Interrupt
				waitClosed(t, ctx.Done(), "cancel at the first interrupt")
			}
			stop, hard, cancel := interruption(ctx)
			defer cancel()
			if !early {
				if isClosed(stop) {
					t.Fatal("stopped before any interrupt")
				}
				sigs <- os.Interrupt
			}
			waitClosed(t, stop, "stop at the first interrupt")
			// The counter handles signals in order: once the first has
			// cancelled ctx it is done with it, so hard must still be live.
			if hard.Err() != nil {
				t.Fatal("the first interrupt cancelled the calls in flight")
			}
			sigs <- syscall.SIGTERM
			waitClosed(t, hard.Done(), "hard cancel at the second interrupt")
		})
	}
}

// TestInterruptionWithoutCounter: a ctx that does not count interrupts
// (a library caller's) gives the first stage only, and cancel releases.
func TestInterruptionWithoutCounter(t *testing.T) {
	ctx, cancelCtx := context.WithCancel(context.Background())
	stop, hard, cancel := interruption(ctx)
	cancelCtx()
	waitClosed(t, stop, "stop when ctx is cancelled")
	if hard.Err() != nil {
		t.Fatal("hard cancelled without a second interrupt")
	}
	cancel()
	waitClosed(t, hard.Done(), "hard released by cancel")
}

// TestNotifyInterruptsRealSignals sends SIGINT to this process twice: the
// first cancels the context, the second reaches apply's hard stage, and the
// process survives both (the handler is registered before the first).
func TestNotifyInterruptsRealSignals(t *testing.T) {
	ctx, stop := NotifyInterrupts(context.Background())
	defer stop()
	_, hard, cancel := interruption(ctx)
	defer cancel()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ctx.Done(), "cancel at the first SIGINT")
	if hard.Err() != nil {
		t.Fatal("one SIGINT cancelled the calls in flight")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, hard.Done(), "hard cancel at the second SIGINT")
}

// TestSIGTERMCancelsAfterGrace: a SIGTERM stops at once (calls in flight
// may finish) and cancels what is still in flight once the grace period is
// over, as a second interrupt would; a SIGINT alone never does.
func TestSIGTERMCancelsAfterGrace(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			ctx, release := watchInterrupts(context.Background(), sigs, 50*time.Millisecond)
			defer release()
			stop, hard, cancel := interruption(ctx)
			defer cancel()
			sigs <- sig
			waitClosed(t, stop, "stop at the first signal")
			if sig == os.Interrupt {
				select {
				case <-hard.Done():
					t.Fatal("a single SIGINT cancelled the calls in flight")
				case <-time.After(200 * time.Millisecond):
				}
				return
			}
			waitClosed(t, hard.Done(), "cancel once the grace period is over")
		})
	}
}
