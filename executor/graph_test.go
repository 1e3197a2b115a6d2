package executor

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunGraphOrderFailureAndSkip(t *testing.T) {
	var mu sync.Mutex
	var order []string
	ran := func(id string, err error) func(context.Context) error {
		return func(context.Context) error {
			mu.Lock()
			order = append(order, id)
			mu.Unlock()
			return err
		}
	}
	units := []unit{
		{id: "embedding.a", run: ran("embedding.a", nil)},
		{id: "synthesis.x", deps: []string{"embedding.a"}, run: ran("synthesis.x", nil)},
		{id: "embedding.bad", run: ran("embedding.bad", errors.New("boom"))},
		{id: "synthesis.y", deps: []string{"embedding.bad"}, run: ran("synthesis.y", nil)},
		{id: "synthesis.z", deps: []string{"synthesis.y"}, run: ran("synthesis.z", nil)},
		{id: "synthesis.free", deps: []string{"embedding.outside-this-run"}, run: ran("synthesis.free", nil)},
	}
	got := map[string]string{}
	err := runGraph(context.Background(), nil, 3, units, func(o outcome) {
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
	var units []unit
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		units = append(units, unit{id: id, run: func(context.Context) error {
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
	if err := runGraph(context.Background(), stop, 2, units, func(o outcome) { outcomes[o.id] = o }); err != nil {
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
	units := []unit{
		{id: "a", deps: []string{"b"}, run: func(context.Context) error { return nil }},
		{id: "b", deps: []string{"a"}, run: func(context.Context) error { return nil }},
	}
	if err := runGraph(context.Background(), nil, 1, units, func(outcome) {}); err == nil {
		t.Fatal("cycle accepted")
	}
}
