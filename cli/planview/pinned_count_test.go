package planview

import (
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestCountApprovalsPinnedWithWork: a pinned resource whose outputs the
// plan puts back (a restore, a remaster of its deliveries, a check) is
// declared once, not once pinned and once more for its action.
func TestCountApprovalsPinnedWithWork(t *testing.T) {
	p := &planner.Plan{NoOps: 3,
		Pinned:  []planner.Pinned{{Address: "synthesis.a"}, {Address: "synthesis.b"}},
		Actions: []*planner.Action{{Address: "synthesis.a", Type: planner.Restore}, {Address: "synthesis.c", Type: planner.Replace}}}
	if a := CountApprovals(p, &state.File{Resources: map[string]*state.Resource{}}); a.Declared != 6 {
		t.Errorf("declared %d, want 6 (3 no-ops, 2 pinned, 1 replaced)", a.Declared)
	}
}
