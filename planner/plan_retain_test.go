package planner_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestPlanLetsGoOfItsState: a plan does not keep the state it was made
// from reachable (Session.Apply lets go of it so that the records and map
// apply replaces are freed as it records): its actions' desired
// resources must not point at the *state.File.
func TestPlanLetsGoOfItsState(t *testing.T) {
	p := baseProject()
	applied := p.apply(t)
	st := &state.File{Version: 1, Lineage: "lineage-1", Serial: 1, Resources: map[string]*state.Resource{}}
	for a, r := range applied.Resources {
		if a != "synthesis.welcome" {
			st.Resources[a] = r
		}
	}
	p.synthesis(`synthesis.menu["billing"]`).VoiceName = "Deepak" // a replace too
	freed := make(chan struct{})
	runtime.SetFinalizer(st, func(*state.File) { close(freed) })
	desired, err := planner.BuildWith(p.m, p.fs.hash, planner.BuildOptions{State: st})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.Compute(planner.Input{Desired: desired, State: st, Hash: p.fs.hash, Probe: probe})
	if err != nil {
		t.Fatal(err)
	}
	desired, st = nil, nil
	if len(plan.Actions) == 0 {
		t.Fatal("no actions")
	}
	for range 10 {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(plan)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Errorf("the state the plan was made from is still reachable from the plan (%d actions)", len(plan.Actions))
	runtime.KeepAlive(plan)
}
