package master_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/internal/heaptest"
)

// speechLike is a mono signal with the rhythm of speech: bursts of
// noise-modulated tone with pauses, deterministic.
func speechLike(rate int) func(int64) float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	return func(i int64) float64 {
		t := float64(i) / float64(rate)
		if math.Mod(t, 4) > 3.2 { // a pause every 4 s
			return 0
		}
		env := 0.5 + 0.5*math.Sin(2*math.Pi*3*t)
		return env * (0.25*math.Sin(2*math.Pi*180*t) + 0.05*(2*rng.Float64()-1))
	}
}

// peakHeap runs f and returns the most heap in use while it ran.
func peakHeap(f func()) uint64 {
	runtime.GC()
	stop := heaptest.Sample(20 * time.Millisecond)
	f()
	return stop()
}

// TestMemoryBoundedByLength masters 1 minute and 10 minutes of audio at
// 44.1 kHz: the heap in use does not grow with the length (a whole-file
// buffer of the 10 minutes would be 26 million samples, 200 MiB as
// float64).
func TestMemoryBoundedByLength(t *testing.T) {
	heavy(t)
	if testing.Short() {
		t.Skip("writes 50 MB of audio")
	}
	dir := t.TempDir()
	p := deliver.Builtin("broadcast")
	heap := map[int]uint64{}
	for _, minutes := range []int{1, 10} {
		src := filepath.Join(dir, "src.wav")
		writeWAV(t, src, 44100, int64(minutes)*60*44100, speechLike(44100))
		out := filepath.Join(dir, "out.wav")
		var err error
		heap[minutes] = peakHeap(func() {
			_, err = master.Master(context.Background(), src, nil, p, nil, dir, out)
		})
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(out)
	}
	t.Logf("peak heap: 1 min %.1f MiB, 10 min %.1f MiB", float64(heap[1])/(1<<20), float64(heap[10])/(1<<20))
	if heap[10] > heap[1]+4<<20 {
		t.Errorf("10 minutes took %d bytes of heap, 1 minute %d: memory grows with the length", heap[10], heap[1])
	}
}
