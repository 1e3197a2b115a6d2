package executor

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/voxform/voxform/audio"
	audioloudness "github.com/voxform/voxform/audio/loudness"
)

// LimiterWaiters reports how many callers wait for a slot of l.
func LimiterWaiters(l *Limiter) int {
	_, _, w := l.limit.snapshot()
	return w
}

// snapshot returns the limit in force, the requests in flight and the
// callers waiting.
func (a *adaptiveLimit) snapshot() (limit, inflight, waiters int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit, a.inflight, a.waiters
}

// BatchCheck is a stand-in for the batch jobs of long listening checks:
// given the rendition of each check (a WAV file path, its seconds), it
// returns what was heard of each.
type BatchCheck func(paths []string, seconds []float64) []string

type fakeBatcher struct{ f BatchCheck }

func (b fakeBatcher) transcribe(_ context.Context, files []checkFile) ([]checkHeard, []error) {
	paths := make([]string, len(files))
	secs := make([]float64, len(files))
	for i, f := range files {
		paths[i], secs[i] = f.Path, f.Seconds
	}
	texts := b.f(paths, secs)
	heard := make([]checkHeard, len(files))
	for i := range heard {
		heard[i] = checkHeard{Text: texts[i], Seconds: secs[i], JobID: "job_fake"}
	}
	return heard, make([]error, len(files))
}

// SetBatchCheck makes the applies of a test send long checks to f, until
// the test ends.
func SetBatchCheck(t interface{ Cleanup(func()) }, f BatchCheck) {
	old := checkBatcherOf
	checkBatcherOf = func(context.Context, *batchOp) checkBatcher { return fakeBatcher{f} }
	t.Cleanup(func() { checkBatcherOf = old })
}

// CountMeasures counts the outputs measured for loudness until the test
// ends (not with t.Parallel).
func CountMeasures(t testing.TB) *atomic.Int64 {
	var n atomic.Int64
	saved := measureFile
	measureFile = func(ctx context.Context, path string, raw *audio.Format) (audioloudness.Loudness, error) {
		n.Add(1)
		return saved(ctx, path, raw)
	}
	t.Cleanup(func() { measureFile = saved })
	return &n
}
