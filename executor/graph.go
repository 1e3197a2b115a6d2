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
}

// outcome is what became of a unit.
type outcome struct {
	id      string
	err     error  // the failure, if it ran and failed
	skipped string // why it did not run (a dependency failed, or stopped)
	halted  bool   // it did not run because stop or down was closed
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
// returns when nothing more can run.
func runGraph(ctx context.Context, stop, down <-chan struct{}, parallelism int, units []unit, done func(outcome)) error {
	byID := make(map[string]*unit, len(units))
	for i := range units {
		if _, dup := byID[units[i].id]; dup {
			return fmt.Errorf("unit %s scheduled twice", units[i].id)
		}
		byID[units[i].id] = &units[i]
	}
	if err := checkCycles(units, byID); err != nil {
		return err
	}
	waiting := make(map[string]int, len(units)) // unfinished dependencies
	dependents := make(map[string][]string, len(units))
	for _, u := range units {
		for _, d := range u.deps {
			if _, ok := byID[d]; ok { // a dependency outside this run is satisfied
				waiting[u.id]++
				dependents[d] = append(dependents[d], u.id)
			}
		}
	}
	var ready []string
	for _, u := range units {
		if waiting[u.id] == 0 {
			ready = append(ready, u.id)
		}
	}
	sort.Strings(ready)
	finished := make(map[string]bool, len(units))
	finish := func(o outcome) {
		finished[o.id] = true
		done(o)
	}
	var skipDependents func(id, why string)
	skipDependents = func(id, why string) {
		for _, d := range dependents[id] {
			if !finished[d] {
				finish(outcome{id: d, skipped: why})
				skipDependents(d, "dependency "+d+" did not run")
			}
		}
	}
	results := make(chan outcome)
	freed := make(chan struct{})
	// running counts the units holding a slot; active those not returned.
	running, active, stopped := 0, 0, false
	if parallelism < 1 {
		parallelism = 1
	}
	for len(finished) < len(units) {
		// A stop request is seen before anything starts, not only when the
		// select below happens to pick it among other ready events.
		select {
		case <-stop:
			stop, stopped = nil, true
		case <-down:
			down, stopped = nil, true
		default:
		}
		for running < parallelism && active < 2*parallelism && len(ready) > 0 && !stopped {
			u := byID[ready[0]]
			ready = ready[1:]
			running++
			active++
			s := &slot{free: func() { freed <- struct{}{} }}
			go func() {
				err := u.run(ctx, s)
				s.Release()
				results <- outcome{id: u.id, err: err}
			}()
		}
		if active == 0 {
			// Stopped (or nothing can run): whatever has not finished never started.
			for _, u := range units {
				if !finished[u.id] {
					finish(outcome{id: u.id, skipped: "interrupted before it started", halted: true})
				}
			}
			break
		}
		select {
		case <-freed:
			running--
		case r := <-results:
			active--
			finish(r)
			if r.err != nil {
				skipDependents(r.id, "dependency "+r.id+" failed")
				continue
			}
			for _, d := range dependents[r.id] {
				if waiting[d]--; waiting[d] == 0 && !finished[d] {
					ready = append(ready, d)
				}
			}
		case <-stop:
			stop, stopped = nil, true
		case <-down:
			down, stopped = nil, true
		}
	}
	return nil
}

// checkCycles refuses a dependency cycle (the planner never makes one; this
// guards against a bug turning into a hang).
func checkCycles(units []unit, byID map[string]*unit) error {
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(units))
	var visit func(id string) error
	visit = func(id string) error {
		switch color[id] {
		case grey:
			return fmt.Errorf("dependency cycle through %s", id)
		case black:
			return nil
		}
		color[id] = grey
		for _, d := range byID[id].deps {
			if _, ok := byID[d]; ok {
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		color[id] = black
		return nil
	}
	for _, u := range units {
		if err := visit(u.id); err != nil {
			return err
		}
	}
	return nil
}
