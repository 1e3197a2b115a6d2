package workspace_test

import (
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestApplyLeavesHashCacheWarm: the plan a CI job runs right after an
// apply trusts the hash cache for every output apply wrote, instead of
// reading each file again (the outputs' hashes, put as they were written,
// are within their racy window until apply settles them).
func TestApplyLeavesHashCacheWarm(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	p.apply(s, plan)
	if err := s.SaveHashes(); err != nil {
		t.Fatal(err)
	}
	if c := state.OpenHashCache(p.ws.Dir); !c.Fresh("out/hello.wav") {
		t.Error("out/hello.wav: the hash cache apply left would have the next plan read it again")
	}
}
