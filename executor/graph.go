package executor

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// unit is one schedulable piece of work: usually one resource, or a group of
// transcriptions sent as one batch job. It runs once every unit it depends
// on has succeeded.
type unit struct {
	id   string
	deps []string
	run  func(ctx context.Context, s *slot) error
	// members are the addresses a group works on; a unit without them
	// works on the resource its id names.
	members []string
	// dir is the directory of the unit's first output ("": none). Units
	// ready together start directory by directory, so that outputs
	// renamed into one directory at about the same time share its syncs
	// (owned.Dir.Sync) rather than each syncing it alone.
	dir string
}

// outcome is what became of a unit.
type outcome struct {
	id      string
	members []string // the unit's (see unit.members)
	err     error    // the failure, if it ran and failed
	skipped string   // why it did not run (a dependency failed, or stopped)
	halted  bool     // it did not run because stop or down was closed
}

// addresses are the addresses of the resources whose outcome o is.
func (o outcome) addresses() []string {
	if o.members != nil {
		return o.members
	}
	return []string{o.id}
}

// slot is a running unit's place among the parallelism units calling the
// service. A unit whose calls are done releases it (what is left:
// validating, syncing and recording its output), so that the next unit can
// start its call meanwhile; one that never does holds it until it returns.
type slot struct {
	once sync.Once
	free func()
}

// Release gives the slot back; a second call, or a nil slot, does nothing.
func (s *slot) Release() {
	if s != nil && s.free != nil {
		s.once.Do(s.free)
	}
}

// runGraph runs units in dependency order with at most parallelism at once
// holding a slot (see slot), and at most as many again finishing
// their outputs after releasing theirs. A failed unit does not stop
// independent ones; its dependents are skipped. Once stop or down (the
// service appears down) is closed no new unit starts (in-flight ones
// finish); ctx is passed to running units and cancels them. Each unit's outcome is sent to done as it happens (a
// dependent starts only once its dependencies have returned); runGraph
// returns when nothing more can run. A unit is let go of (units[i] set to nil)
// as its outcome is sent, and with it whatever the run holds.
func runGraph(ctx context.Context, stop, down <-chan struct{}, parallelism int, units []*unit, done func(outcome)) error {
	g, err := newGraph(units, done)
	if err != nil {
		return err
	}
	results := make(chan ranUnit)
	freed := make(chan struct{})
	// running counts the units holding a slot; active those not returned.
	running, active, stopped := 0, 0, false
	if parallelism < 1 {
		parallelism = 1
	}
	for g.left > 0 {
		// A stop request is seen before anything starts, not only when the
		// select below happens to pick it among other ready events.
		select {
		case <-stop:
			stop, stopped = nil, true
		case <-down:
			down, stopped = nil, true
		default:
		}
		for running < parallelism && active < 2*parallelism && len(g.ready) > 0 && !stopped {
			i := g.ready[0]
			g.ready = g.ready[1:]
			running++
			active++
			run, s := units[i].run, &slot{free: func() { freed <- struct{}{} }}
			go func() {
				err := run(ctx, s)
				s.Release()
				results <- ranUnit{i: i, err: err}
			}()
		}
		if active == 0 {
			g.halt() // stopped (or nothing can run): whatever has not finished never started
			break
		}
		select {
		case <-freed:
			running--
		case r := <-results:
			active--
			g.ran(r)
		case <-stop:
			stop, stopped = nil, true
		case <-down:
			down, stopped = nil, true
		}
	}
	return nil
}

// ranUnit is the error a unit's run returned, by the unit's index.
type ranUnit struct {
	i   int32
	err error
}

// graph is runGraph's bookkeeping, by index in its units.
type graph struct {
	units      []*unit           // nil once its outcome is sent
	waiting    []int32           // unfinished dependencies
	dependents map[int32][]int32 // the units waiting for each (most: none)
	done       []bool            // outcome sent
	left       int               // units without an outcome
	ready      []int32
	send       func(outcome)
}

// newGraph indexes units, refusing an id scheduled twice and a
// dependency cycle; a dependency outside units is satisfied. The units
// ready at once are in the order of their output directories, then of
// their ids.
func newGraph(units []*unit, send func(outcome)) (*graph, error) {
	index := make(map[string]int32, len(units))
	for i := range units {
		if _, dup := index[units[i].id]; dup {
			return nil, fmt.Errorf("unit %s scheduled twice", units[i].id)
		}
		index[units[i].id] = int32(i)
	}
	deps := make([][]int32, len(units))
	g := &graph{units: units, waiting: make([]int32, len(units)), dependents: map[int32][]int32{},
		done: make([]bool, len(units)), left: len(units), send: send}
	for i, u := range units {
		for _, d := range u.deps {
			if j, ok := index[d]; ok {
				deps[i] = append(deps[i], j)
				g.waiting[i]++
				g.dependents[j] = append(g.dependents[j], int32(i))
			}
		}
	}
	if err := checkCycles(units, deps); err != nil {
		return nil, err
	}
	for i := range units {
		if g.waiting[i] == 0 {
			g.ready = append(g.ready, int32(i))
		}
	}
	sort.Slice(g.ready, func(a, b int) bool {
		ua, ub := units[g.ready[a]], units[g.ready[b]]
		if ua.dir != ub.dir {
			return ua.dir < ub.dir
		}
		return ua.id < ub.id
	})
	return g, nil
}

// finish sends the outcome of unit i and lets go of the unit, and with
// it whatever its run holds; it returns the unit's id.
func (g *graph) finish(i int32, o outcome) string {
	u := g.units[i]
	o.id, o.members = u.id, u.members
	g.done[i] = true
	g.left--
	g.units[i] = nil
	g.send(o)
	return o.id
}

// ran accounts for a unit that returned: its dependents are skipped if
// it failed, and become ready once nothing else holds them otherwise.
func (g *graph) ran(r ranUnit) {
	id := g.finish(r.i, outcome{err: r.err})
	if r.err != nil {
		g.skipDependents(r.i, "dependency "+id+" failed")
		return
	}
	for _, d := range g.dependents[r.i] {
		if g.waiting[d]--; g.waiting[d] == 0 && !g.done[d] {
			g.ready = append(g.ready, d)
		}
	}
}

func (g *graph) skipDependents(i int32, why string) {
	for _, d := range g.dependents[i] {
		if !g.done[d] {
			id := g.finish(d, outcome{skipped: why})
			g.skipDependents(d, "dependency "+id+" did not run")
		}
	}
}

// halt finishes every unit without an outcome as never started.
func (g *graph) halt() {
	for i := range g.units {
		if !g.done[i] {
			g.finish(int32(i), outcome{skipped: "interrupted before it started", halted: true})
		}
	}
}

// checkCycles refuses a dependency cycle (the planner never makes one; this
// guards against a bug turning into a hang). deps are the units' indexed
// dependencies.
func checkCycles(units []*unit, deps [][]int32) error {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(units))
	var visit func(i int32) error
	visit = func(i int32) error {
		switch color[i] {
		case grey:
			return fmt.Errorf("dependency cycle through %s", units[i].id)
		case black:
			return nil
		}
		color[i] = grey
		for _, d := range deps[i] {
			if err := visit(d); err != nil {
				return err
			}
		}
		color[i] = black
		return nil
	}
	for i := range units {
		if err := visit(int32(i)); err != nil {
			return err
		}
	}
	return nil
}
