package workspace_test

import (
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// TestChecksOnly: verify -listen -make carries out the Check actions of a
// plan and nothing else, each without its regeneration (no take can be
// billed: its worst case is its cost), leaving the plan it came from, and
// the check its block's instances share, as they were.
func TestChecksOnly(t *testing.T) {
	shared := &manifest.Listen{Regenerate: 2, Hash: "h"}
	check := &planner.Action{Address: "synthesis.a", Type: planner.Check, Cost: planner.Cost{AudioSeconds: 12},
		Desired: (&planner.Desired{Address: "synthesis.a"}).WithDetails(planner.DesiredDetails{Listen: shared}),
		Listen:  &planner.ListenWork{Items: 1, Make: 1, AudioSeconds: 12, Regenerate: 2, Worst: planner.Cost{Characters: 80, AudioSeconds: 36}}}
	restored := &planner.Action{Address: "synthesis.b", Type: planner.Check, Desired: (&planner.Desired{Address: "synthesis.b"}).WithDetails(planner.DesiredDetails{Listen: shared}),
		Listen: &planner.ListenWork{Items: 1, Restored: 1}}
	p := &planner.Plan{Actions: []*planner.Action{
		{Address: "synthesis.new", Type: planner.Create, Cost: planner.Cost{Characters: 40}},
		check, restored,
		{Address: "synthesis.r", Type: planner.Restore},
	}}
	sub := workspace.ChecksOnly(p)
	if len(sub.Actions) != 2 || sub.Actions[0].Address != "synthesis.a" || sub.Actions[1].Address != "synthesis.b" {
		t.Fatalf("actions: %+v", sub.Actions)
	}
	if sub.Cost != (planner.Cost{AudioSeconds: 12}) || sub.Worst != sub.Cost {
		t.Errorf("cost %+v, worst %+v: want the checks' 12 s, at worst too", sub.Cost, sub.Worst)
	}
	a := sub.Actions[0]
	if a.Listen.Regenerate != 0 || a.Listen.Worst != a.Cost || a.Desired.Details().Listen.Regenerate != 0 || a.Desired.Details().Listen.Hash != "h" {
		t.Errorf("a check made by verify regenerates: %+v, %+v", a.Listen, a.Desired.Details().Listen)
	}
	if check.Listen.Regenerate != 2 || check.Listen.Worst.Characters != 80 || shared.Regenerate != 2 || len(p.Actions) != 4 {
		t.Errorf("the plan it came from changed: %+v, shared %+v", check.Listen, shared)
	}
}
