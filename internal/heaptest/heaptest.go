// Package heaptest measures, for the memory tests of other packages, the
// most heap in use while something runs, and what it allocates.
package heaptest

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Sample reads the heap in use (runtime.MemStats.HeapInuse) every period
// until the stop it returns is called; stop returns the largest reading.
func Sample(period time.Duration) (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(period):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// Allocated returns the bytes the process allocated while f ran, garbage
// included (runtime.MemStats.TotalAlloc).
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
