package executor

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRunGraphOrderFailureAndSkip(t *testing.T) {
	var mu sync.Mutex
	var order []string
	ran := func(id string, err error) func(context.Context, *slot) error {
		return func(context.Context, *slot) error {
			mu.Lock()
			order = append(order, id)
			mu.Unlock()
			return err
		}
	}
	units := []*unit{
		{id: "embedding.a", run: ran("embedding.a", nil)},
		{id: "synthesis.x", deps: []string{"embedding.a"}, run: ran("synthesis.x", nil)},
		{id: "embedding.bad", run: ran("embedding.bad", errors.New("boom"))},
		{id: "synthesis.y", deps: []string{"embedding.bad"}, run: ran("synthesis.y", nil)},
		{id: "synthesis.z", deps: []string{"synthesis.y"}, run: ran("synthesis.z", nil)},
		{id: "synthesis.free", deps: []string{"embedding.outside-this-run"}, run: ran("synthesis.free", nil)},
	}
	got := map[string]string{}
	err := runGraph(context.Background(), nil, nil, 3, units, func(o outcome) {
		switch {
		case o.err != nil:
			got[o.id] = "failed: " + o.err.Error()
		case o.skipped != "":
			got[o.id] = "skipped: " + o.skipped
		default:
			got[o.id] = "ok"
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"embedding.a":    "ok",
		"synthesis.x":    "ok",
		"embedding.bad":  "failed: boom",
		"synthesis.y":    "skipped: dependency embedding.bad failed",
		"synthesis.z":    "skipped: dependency synthesis.y did not run",
		"synthesis.free": "ok",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	idx := map[string]int{}
	for i, id := range order {
		idx[id] = i
	}
	if idx["synthesis.x"] < idx["embedding.a"] {
		t.Errorf("dependent ran before its dependency: %v", order)
	}
	if _, ok := idx["synthesis.y"]; ok {
		t.Errorf("dependent of a failure ran: %v", order)
	}
}

func TestRunGraphStopStartsNothingNew(t *testing.T) {
	stop := make(chan struct{})
	release := make(chan struct{})
	var started atomic.Int32
	var units []*unit
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		units = append(units, &unit{id: id, run: func(context.Context, *slot) error {
			if started.Add(1) == 1 {
				close(stop) // the first Ctrl-C arrives while work is in flight
			}
			<-release
			return nil
		}})
	}
	go func() {
		for started.Load() < 2 {
		}
		close(release)
	}()
	outcomes := map[string]outcome{}
	if err := runGraph(context.Background(), stop, nil, 2, units, func(o outcome) { outcomes[o.id] = o }); err != nil {
		t.Fatal(err)
	}
	var ok, skipped int
	for _, o := range outcomes {
		if o.skipped != "" {
			skipped++
		} else if o.err == nil {
			ok++
		}
	}
	if ok != 2 || skipped != 3 || len(outcomes) != 5 {
		t.Errorf("in-flight work should finish and nothing new start: ok=%d skipped=%d total=%d", ok, skipped, len(outcomes))
	}
}

func TestRunGraphRefusesCycle(t *testing.T) {
	units := []*unit{
		{id: "a", deps: []string{"b"}, run: func(context.Context, *slot) error { return nil }},
		{id: "b", deps: []string{"a"}, run: func(context.Context, *slot) error { return nil }},
	}
	if err := runGraph(context.Background(), nil, nil, 1, units, func(outcome) {}); err == nil {
		t.Fatal("cycle accepted")
	}
}

// TestRunGraphReleasedSlot: a unit that has released its slot (its calls to
// the service are done) lets the next unit start while it finishes its
// output; its dependents still wait until it returns, and at most twice
// parallelism units are active at once.
func TestRunGraphReleasedSlot(t *testing.T) {
	finishing := make(chan struct{})
	var active, peak atomic.Int32
	var order []string
	var mu sync.Mutex
	note := func(id string) {
		mu.Lock()
		order = append(order, id)
		mu.Unlock()
	}
	enter := func() {
		if n := active.Add(1); n > peak.Load() {
			peak.Store(n)
		}
	}
	units := []*unit{
		{id: "a", run: func(ctx context.Context, sl *slot) error {
			enter()
			defer active.Add(-1)
			sl.Release()
			sl.Release() // twice is harmless
			select {     // b must start meanwhile
			case <-finishing:
			case <-time.After(10 * time.Second):
				t.Error("b did not start while a finished its output")
			}
			note("a done")
			return nil
		}},
		{id: "b", run: func(ctx context.Context, sl *slot) error {
			enter()
			defer active.Add(-1)
			note("b")
			close(finishing)
			return nil
		}},
		{id: "c", deps: []string{"a"}, run: func(ctx context.Context, sl *slot) error {
			note("c")
			return nil
		}},
	}
	if err := runGraph(context.Background(), nil, nil, 1, units, func(outcome) {}); err != nil {
		t.Fatal(err)
	}
	want := []string{"b", "a done", "c"}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if peak.Load() != 2 {
		t.Errorf("peak active units %d, want 2 (parallelism 1 plus one finishing)", peak.Load())
	}

	// Units that release at once and then wait: never more than
	// 2 x parallelism active. Four enter; a fifth must not while they
	// wait (without the cap it would within microseconds).
	var entered atomic.Int32
	four, gate := make(chan struct{}), make(chan struct{})
	var many []*unit
	for _, id := range []string{"1", "2", "3", "4", "5", "6", "7"} {
		many = append(many, &unit{id: id, run: func(ctx context.Context, sl *slot) error {
			sl.Release()
			if entered.Add(1) == 4 {
				close(four)
			}
			<-gate
			return nil
		}})
	}
	done := make(chan error, 1)
	go func() { done <- runGraph(context.Background(), nil, nil, 2, many, func(outcome) {}) }()
	<-four
	time.Sleep(100 * time.Millisecond) // a negative check: give a fifth unit the chance to start
	if n := entered.Load(); n != 4 {
		t.Errorf("%d units active at once with parallelism 2, want at most 4", n)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := entered.Load(); n != 7 {
		t.Errorf("%d units ran, want 7", n)
	}
}

// TestRunGraphStopIsSeenFirst: a stop request that came before the graph
// started starts nothing, and one that comes while units finish starts
// nothing more, whatever order the events arrive in.
func TestRunGraphStopIsSeenFirst(t *testing.T) {
	noop := func(context.Context, *slot) error { return nil }
	var units []*unit
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		units = append(units, &unit{id: id, run: noop})
	}
	stop := make(chan struct{})
	close(stop)
	ran := 0
	if err := runGraph(context.Background(), stop, nil, 4, units, func(o outcome) {
		if o.skipped == "" {
			ran++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Errorf("%d units ran after a stop that came first", ran)
	}

	for range 50 {
		stop := make(chan struct{})
		var once sync.Once
		var late atomic.Int32
		var many []*unit
		for _, id := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
			many = append(many, &unit{id: id, run: func(ctx context.Context, sl *slot) error {
				select {
				case <-stop:
					late.Add(1) // started after the stop request
				default:
				}
				once.Do(func() { close(stop) }) // the stop comes while units run
				sl.Release()
				return nil
			}})
		}
		// One at a time: the unit that asks to stop is the only one
		// running, and its release must not let another start.
		if err := runGraph(context.Background(), stop, nil, 1, many, func(outcome) {}); err != nil {
			t.Fatal(err)
		}
		if n := late.Load(); n > 0 {
			t.Fatalf("%d unit(s) started after the stop request", n)
		}
	}
}
