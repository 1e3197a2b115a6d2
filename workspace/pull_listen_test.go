package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// listenRemote writes m with a directory remote cache into p and points
// p at a cache directory of its own.
func listenRemote(t *testing.T, p *project, remote, m string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "voxform.yaml"), []byte(m+"cache:\n  remote: file://"+remote+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
}

// Pull calls no service, whatever checks the restores would make: a
// teammate who shares the remote cache but not the state pulls a
// synthesis with listen:; a fresh clone pulls after listen: was added
// to a manifest whose state records no check. Each output is restored,
// unchecked, and the next plan leaves its check to apply as a Check
// action.
func TestPullLeavesChecksForApply(t *testing.T) {
	const listen = "defaults:\n  synthesis:\n    listen: {}\n"
	for _, tc := range []struct {
		name          string
		first, second string
		copyState     bool
		want          planner.ActionType
	}{
		{"no record", listen + hello, listen + hello, false, planner.Check},
		{"listen added", hello, listen + hello, true, planner.Check},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remote := filepath.Join(t.TempDir(), "remote")
			if err := os.Mkdir(remote, 0o755); err != nil {
				t.Fatal(err)
			}
			p := newProject(t)
			listenRemote(t, p, remote, tc.first)
			plan, s := p.plan(planner.Options{Cache: planner.CacheOn})
			if sum := p.apply(s, plan); sum.Done != 1 {
				t.Fatalf("apply: %+v", sum)
			}
			c := &project{t: t, ws: workspace.New(t.TempDir()), cl: p.cl, ctx: p.ctx}
			listenRemote(t, c, remote, tc.second)
			if tc.copyState {
				st, err := os.ReadFile(filepath.Join(p.ws.Dir, "voxform.state.json"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(c.ws.Dir, "voxform.state.json"), st, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum, _ := c.pull()
			if sum.Done != 1 || sum.Failed != 0 {
				t.Fatalf("pull: %+v", sum)
			}
			next, s2 := c.plan(planner.Options{Cache: planner.CacheOn})
			s2.Close()
			if len(next.Actions) != 1 || next.Actions[0].Type != tc.want {
				t.Fatalf("plan after pull: %+v", next.Actions)
			}
		})
	}
}
