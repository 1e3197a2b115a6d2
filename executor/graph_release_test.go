package executor

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"
)

// TestRunGraphReleasesFinishedUnits: a unit's run, and what it holds (the
// plan's action, its desired resource), is let go of once the unit has
// finished, while the rest of the graph still runs: an apply's plan
// shrinks as its state grows.
func TestRunGraphReleasesFinishedUnits(t *testing.T) {
	type payload struct{ b [1 << 16]byte }
	units := make([]*unit, 2)
	var held weak.Pointer[payload]
	func() {
		p := &payload{}
		held = weak.Make(p)
		units[0] = &unit{id: "a", run: func(context.Context, *slot) error { p.b[0]++; return nil }}
	}()
	release := make(chan struct{})
	units[1] = &unit{id: "b", run: func(context.Context, *slot) error { <-release; return nil }}
	freed := false
	err := runGraph(context.Background(), nil, nil, 2, units, func(o outcome) {
		if o.id != "a" {
			return
		}
		defer close(release) // b runs until a's outcome is looked at
		for range 100 {
			if runtime.GC(); held.Value() == nil {
				freed = true
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !freed {
		t.Error("a finished unit's run is still held while the graph runs")
	}
}
