package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
)

// The recorded outputs are hashed while the desired resources are built:
// what the plan finds is what is on disk when it plans. An edited output
// is repaired, -refresh=false trusts the state, and an output that cannot
// be hashed fails the plan, naming it.
func TestPlanSeesRecordedOutputs(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	p.apply(s, plan)
	out := filepath.Join(p.ws.Dir, "out", "hello.wav")
	if err := os.WriteFile(out, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, s = p.plan(planner.Options{})
	s.Close()
	if len(plan.Actions) != 1 || plan.Actions[0].Type != planner.Repair {
		t.Fatalf("plan after an output was edited: %+v", plan.Actions)
	}
	plan, s = p.plan(planner.Options{NoRefresh: true})
	s.Close()
	if plan.HasChanges() {
		t.Fatalf("-refresh=false: %+v", plan.Actions)
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := p.ws.Lock(p.ctx, "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Plan(p.ctx, p.load(), planner.Options{}); err == nil || !strings.Contains(err.Error(), "out/hello.wav: not a regular file") {
		t.Errorf("plan with a directory for an output: %v", err)
	}
}
