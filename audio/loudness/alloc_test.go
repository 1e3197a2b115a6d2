package loudness_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// TestLoudnessOfPromptsAllocatesLittle: apply measures every output it
// writes, most of them prompts of a second or two; the meter's buffers
// are reused from one measurement to the next, so measuring another
// prompt allocates a few kilobytes (the sample reader's), not the 100 KB
// of the meter's buffers.
func TestLoudnessOfPromptsAllocatesLittle(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16}
	prompt := promptLike(8000, 1)
	measure := func() {
		l, err := loudness.MeasureLoudness(context.Background(), &loop{buf: prompt, n: int64(len(prompt))}, f)
		if err != nil || l.Silent {
			t.Fatal(l, err)
		}
	}
	// A collection empties the pools, and a pool's last item put is seen
	// by its processor only: neither from the first measurement to the
	// last.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	measure()
	const n = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		measure()
	}
	runtime.ReadMemStats(&after)
	if got := (after.TotalAlloc - before.TotalAlloc) / n; got > 16<<10 {
		t.Errorf("measuring a prompt allocated %d bytes", got)
	}
}
