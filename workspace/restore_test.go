package workspace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/workspace"
)

// team is a project applied with a directory remote (pushed as it went),
// and that remote: what a teammate's clone pulls from.
type team struct {
	*project
	remote *cache.Cache // the remote, through a cache of its own
	fps    map[string]string
}

func newTeam(t *testing.T) *team {
	t.Helper()
	p := newProject(t)
	dir := filepath.Join(t.TempDir(), "remote")
	os.Mkdir(dir, 0o755)
	manifest := hello + "  bye:\n    voice: v\n    text: \"फिर मिलेंगे\"\n    output: out/bye.wav\ncache:\n  remote: file://" + dir + "\n"
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "voxform.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	plan, s := p.plan(planner.Options{Cache: planner.CacheOn})
	if sum := p.apply(s, plan); sum.Done != 2 {
		t.Fatalf("apply: %+v", sum)
	}
	st, err := p.ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fps := map[string]string{}
	for addr, r := range st.Resources {
		fps[addr] = r.Fingerprint
	}
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	local, err := cache.OpenLocal(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	return &team{project: p, remote: &cache.Cache{Local: local, Remote: r}, fps: fps}
}

// clone is a fresh clone of tm's project: the manifest and the committed
// state, no outputs, an empty local cache.
func (tm *team) clone(t *testing.T) (*project, []byte) {
	t.Helper()
	c := &project{t: t, ws: workspace.New(t.TempDir()), cl: tm.cl, ctx: tm.ctx}
	c.ws.CacheDir = filepath.Join(t.TempDir(), "cache")
	var st []byte
	for _, name := range []string{"voxform.yaml", "voxform.state.json"} {
		b, err := os.ReadFile(filepath.Join(tm.ws.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(c.ws.Dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		st = b
	}
	return c, st
}

// forge rewrites the remote entry of addr as a teammate who can write the
// remote may: edit(entry), under the same fingerprint.
func (tm *team) forge(t *testing.T, addr string, edit func(e, other *cache.Entry)) {
	t.Helper()
	e, err := tm.remote.Remote.Entry(tm.ctx, tm.fps[addr])
	if err != nil || e == nil {
		t.Fatalf("remote entry of %s: %v, %v", addr, e, err)
	}
	other, err := tm.remote.Remote.Entry(tm.ctx, tm.fps["synthesis.bye"])
	if err != nil || other == nil {
		t.Fatalf("remote entry of synthesis.bye: %v, %v", other, err)
	}
	edit(e, other)
	if err := tm.remote.Remote.PutEntry(tm.ctx, e); err != nil {
		t.Fatal(err)
	}
}

// pull runs 'voxform pull' in p.
func (p *project) pull() (*executor.Summary, *planner.Plan) {
	p.t.Helper()
	s, err := p.ws.Lock(context.Background(), "pull")
	if err != nil {
		p.t.Fatal(err)
	}
	defer s.Close()
	sum, left, err := s.Pull(context.Background(), p.load(), planner.CacheOn, executor.Options{})
	if err != nil {
		p.t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		p.t.Fatal(err)
	}
	return sum, left
}

func (p *project) stateBytes() []byte {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.ws.Dir, "voxform.state.json"))
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

func (p *project) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(p.ws.Dir, filepath.FromSlash(rel)))
	return err == nil
}

// A fresh clone that only pulls gets every output back and leaves the
// committed state as it was, byte for byte: an honest restore keeps the
// record (created_at, billed_characters), so 'git diff' shows nothing.
func TestPullLeavesStateUnchanged(t *testing.T) {
	tm := newTeam(t)
	c, committed := tm.clone(t)
	sum, left := c.pull()
	if sum.Done != 2 || sum.Failed != 0 || left.HasChanges() {
		t.Fatalf("pull: %+v, left %+v; want 2 restored", sum, left.Actions)
	}
	for _, rel := range []string{"out/hello.wav", "out/bye.wav"} {
		a, _ := os.ReadFile(filepath.Join(tm.ws.Dir, rel))
		b, err := os.ReadFile(filepath.Join(c.ws.Dir, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: not the recorded output (%v)", rel, err)
		}
	}
	if got := c.stateBytes(); !bytes.Equal(got, committed) {
		t.Errorf("pull rewrote voxform.state.json:\n%s\nwas\n%s", got, committed)
	}
	plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
	s.Close()
	if plan.HasChanges() {
		t.Errorf("plan after pull: %+v", plan.Actions)
	}
}

// A teammate who can write the remote replaces the entry of
// synthesis.hello with other audio under the same fingerprint. The plan
// of a fresh clone shows the billed repair, saying why; pull restores the
// honest resource, writes nothing for the other, and leaves the state as
// committed.
func TestPullRefusesEntryUnlikeTheState(t *testing.T) {
	tm := newTeam(t)
	tm.forge(t, "synthesis.hello", func(e, other *cache.Entry) { e.Files = other.Files })
	c, committed := tm.clone(t)

	plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
	s.Close()
	a := plan.Action("synthesis.hello")
	if a == nil || a.Type != planner.Repair || a.Cost.Characters == 0 || !strings.Contains(strings.Join(a.Reasons, "; "), "is not the recorded out/hello.wav") {
		t.Fatalf("plan of synthesis.hello: %+v; want a billed repair saying the cached audio is not the recorded one", a)
	}
	if b := plan.Action("synthesis.bye"); b == nil || b.Type != planner.Restore {
		t.Fatalf("plan of synthesis.bye: %+v; want a restore", b)
	}

	sum, left := c.pull()
	if sum.Done != 1 || sum.Failed != 0 || left.Action("synthesis.hello") == nil {
		t.Fatalf("pull: %+v, left %+v; want synthesis.bye restored, synthesis.hello left", sum, left.Actions)
	}
	if c.exists("out/hello.wav") {
		t.Error("pull wrote out/hello.wav from an entry unlike the state")
	}
	if got := c.stateBytes(); !bytes.Equal(got, committed) {
		t.Errorf("pull rewrote voxform.state.json:\n%s", got)
	}
}

// The entry changes between the plan and the apply: the apply fetches it
// again and refuses it before writing anything. The state keeps its
// record, and the refused entry is not copied into the local cache.
func TestRestoreRefusesEntryChangedSincePlan(t *testing.T) {
	tm := newTeam(t)
	c, committed := tm.clone(t)
	plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
	if a := plan.Action("synthesis.hello"); a == nil || a.Type != planner.Restore {
		s.Close()
		t.Fatalf("plan: %+v; want a restore", a)
	}
	tm.forge(t, "synthesis.hello", func(e, other *cache.Entry) { e.Files = other.Files })
	sum, err := s.Apply(c.ctx, plan, executor.Options{})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 1 || sum.Failed != 1 || sum.Failures[0].Address != "synthesis.hello" ||
		!strings.Contains(sum.Failures[0].Err.Error(), "is not the recorded out/hello.wav") {
		t.Fatalf("apply: %+v; want synthesis.hello refused, the cached audio not the recorded one", sum)
	}
	if c.exists("out/hello.wav") {
		t.Error("the apply wrote out/hello.wav from an entry unlike the state")
	}
	if got := c.stateBytes(); !bytes.Equal(got, committed) {
		t.Errorf("the apply rewrote voxform.state.json:\n%s", got)
	}
	local, err := cache.OpenLocal(c.ws.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if local.Has(tm.fps["synthesis.hello"]) {
		t.Error("the refused entry was copied into the local cache")
	}
}

// An entry whose metadata a state could not hold is never restored: the
// plan bills the work instead, naming why (so a plan and an apply do not
// refuse it again and again), and an entry forged between the plan and
// the apply is refused by the apply, nothing written or recorded.
func TestRestoreRefusesImpossibleMetadata(t *testing.T) {
	forge := func(tm *team) {
		tm.forge(t, "synthesis.hello", func(e, _ *cache.Entry) {
			v := 1e300
			e.Meta.IntegratedLUFS = &v
		})
	}
	t.Run("at plan", func(t *testing.T) {
		tm := newTeam(t)
		forge(tm)
		c, _ := tm.clone(t)
		os.Remove(filepath.Join(c.ws.Dir, "voxform.state.json")) // a new project asking for the same work
		plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
		s.Close()
		var hello *planner.Action
		for _, a := range plan.Actions {
			if a.Address == "synthesis.hello" {
				hello = a
			}
		}
		if hello == nil || hello.Type != planner.Create || hello.Cost.Characters == 0 ||
			!strings.Contains(strings.Join(hello.Reasons, "; "), "not restored: ") ||
			!strings.Contains(strings.Join(hello.Reasons, "; "), "integrated_lufs: 1e+300, beyond the limit of ±200") {
			t.Fatalf("synthesis.hello planned as %+v; want a billed create saying why the entry is not restored", hello)
		}
	})
	t.Run("at apply", func(t *testing.T) {
		tm := newTeam(t)
		c, _ := tm.clone(t)
		os.Remove(filepath.Join(c.ws.Dir, "voxform.state.json"))
		plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
		forge(tm) // after the plan
		sum, err := s.Apply(c.ctx, plan, executor.Options{})
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if sum.Done != 1 || sum.Failed != 1 || sum.Failures[0].Address != "synthesis.hello" ||
			!strings.Contains(sum.Failures[0].Err.Error(), "integrated_lufs: 1e+300, beyond the limit of ±200") {
			t.Fatalf("apply: %+v; want synthesis.hello refused for its loudness figure", sum)
		}
		st, err := c.ws.ReadState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Resources["synthesis.hello"] != nil || c.exists("out/hello.wav") {
			t.Errorf("an entry with an impossible loudness figure was restored: %+v", st.Resources["synthesis.hello"])
		}
	})
}

// A resource left pending without a job (written by hand) whose request
// the cache holds is restored and recorded complete, with what the entry
// holds: there is no complete record to keep.
func TestRestoreOfPendingRecordsComplete(t *testing.T) {
	tm := newTeam(t)
	c, committed := tm.clone(t)
	var st map[string]any
	if err := json.Unmarshal(committed, &st); err != nil {
		t.Fatal(err)
	}
	hello := st["resources"].(map[string]any)["synthesis.hello"].(map[string]any)
	hello["status"] = "pending"
	b, _ := json.Marshal(st)
	if err := os.WriteFile(filepath.Join(c.ws.Dir, "voxform.state.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, left := c.pull(); sum.Done != 2 || sum.Failed != 0 || left.HasChanges() {
		t.Fatalf("pull: %+v, left %+v; want 2 restored", sum, left.Actions)
	}
	got, err := c.ws.ReadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Resources["synthesis.hello"]; r == nil || r.Status != "complete" || len(r.Outputs) != 1 {
		t.Errorf("synthesis.hello recorded as %+v; want complete with its output", r)
	}
	plan, s := c.plan(planner.Options{Cache: planner.CacheOn})
	s.Close()
	if plan.HasChanges() {
		t.Errorf("plan after pull: %+v", plan.Actions)
	}
}
