package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interruptKey is the context key of the process's interrupt counter.
type interruptKey struct{}

// interrupts is what a command can learn of the interrupts counted by
// NotifyInterrupts.
type interrupts struct {
	second chan struct{} // closed at the second interrupt
}

// TermGrace is how long after a SIGTERM voxform waits for the calls in
// flight before it cancels them: a SIGTERM is a first interrupt followed by
// a second one after TermGrace, so that a CI job's timeout (SIGTERM, then
// SIGKILL some seconds later) ends voxform cleanly, its finished work
// recorded and no partial file left.
const TermGrace = 5 * time.Second

// NotifyInterrupts returns a copy of parent that the first SIGINT or SIGTERM
// of the process cancels, and that carries a count of the later ones: apply
// lets the calls in flight finish at the first interrupt and cancels them at
// the second (or TermGrace after a SIGTERM). Counting starts here, once for
// the whole process, so no interrupt is missed however early it comes. stop
// ends the watch and restores the default signal behaviour.
func NotifyInterrupts(parent context.Context) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := watchInterrupts(parent, sigs, TermGrace)
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// watchInterrupts counts the signals received on sigs: the first cancels
// the returned context, the second closes the counter's second channel. A
// SIGTERM also counts as the second once grace has passed.
func watchInterrupts(parent context.Context, sigs <-chan os.Signal, grace time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{second: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		n := 0
		var graceOver <-chan time.Time // nil until a SIGTERM
		count := func() {
			n++
			switch n {
			case 1:
				cancel()
			case 2:
				close(in.second)
			}
		}
		for {
			select {
			case sig := <-sigs:
				count()
				if sig == syscall.SIGTERM && graceOver == nil && n < 2 {
					graceOver = time.After(grace)
				}
			case <-graceOver:
				if n < 2 {
					count()
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return context.WithValue(ctx, interruptKey{}, in), func() {
		once.Do(func() { close(done) })
		cancel()
	}
}

// interruption turns the interrupts counted in ctx into apply's two stages:
// stop is closed at the first (ctx is then done, however long before this
// call it came) and hard is cancelled at the second. A ctx that does not
// come from NotifyInterrupts only ever gives the first stage. cancel
// releases hard.
func interruption(ctx context.Context) (stop <-chan struct{}, hard context.Context, cancel func()) {
	hardCtx, cancelHard := context.WithCancel(context.Background())
	var second <-chan struct{} // nil: never
	if in, ok := ctx.Value(interruptKey{}).(*interrupts); ok {
		second = in.second
	}
	go func() {
		select {
		case <-second:
			cancelHard()
		case <-hardCtx.Done():
		}
	}()
	return ctx.Done(), hardCtx, cancelHard
}
