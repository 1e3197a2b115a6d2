package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/workspace"
)

const hello = `
voices:
  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  hello:
    voice: v
    text: "नमस्ते"
    output: out/hello.wav
`

// project is a manifest directory with an emulator to apply against.
type project struct {
	t   *testing.T
	ws  *workspace.Workspace
	cl  *speechapi.Client
	ctx context.Context
}

func newProject(t *testing.T) *project {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := emulator.Start(emulator.Options{NoEspeak: true, TimeScale: 1000, Profile: string(contract.DefaultProfile)}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Shutdown(context.Background()) })
	cl, err := speechapi.New(speechapi.Config{BaseURL: run.URL, APIKey: "test-key", Profile: contract.DefaultProfile})
	if err != nil {
		t.Fatal(err)
	}
	return &project{t: t, ws: workspace.New(dir), cl: cl, ctx: context.Background()}
}

func (p *project) load() *manifest.Manifest {
	p.t.Helper()
	m, ds := p.ws.Load(manifest.LoadOptions{})
	if m == nil {
		p.t.Fatalf("manifest: %v", ds)
	}
	return m
}

// plan locks, plans with opts and returns the plan and the open session.
func (p *project) plan(opts planner.Options) (*planner.Plan, *workspace.Session) {
	p.t.Helper()
	s, err := p.ws.Lock(context.Background(), "plan")
	if err != nil {
		p.t.Fatal(err)
	}
	plan, err := s.Plan(p.ctx, p.load(), opts)
	if err != nil {
		s.Close()
		p.t.Fatal(err)
	}
	return plan, s
}

func (p *project) apply(s *workspace.Session, plan *planner.Plan) *executor.Summary {
	p.t.Helper()
	sum, err := s.Apply(p.ctx, plan, executor.Options{Client: p.cl})
	if err != nil {
		p.t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		p.t.Fatal(err)
	}
	return sum
}

// The workflow end to end: plan, save, apply the saved plan, plan again
// with nothing to do; the saved plan is not applied twice.
func TestPlanSaveApply(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	if len(plan.Actions) != 1 || plan.Actions[0].Type != planner.Create {
		t.Fatalf("first plan: %+v", plan.Actions)
	}
	if err := p.ws.WritePlan("release.plan", planner.NewSaved(plan, p.load(), nil, nil)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	saved, err := p.ws.ReadPlan("release.plan")
	if err != nil {
		t.Fatal(err)
	}
	s, err = p.ws.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Replan(p.ctx, "release.plan", saved, p.load())
	if err != nil {
		t.Fatal(err)
	}
	if sum := p.apply(s, fresh); sum.Done != 1 || sum.Failed != 0 {
		t.Fatalf("apply: %+v", sum)
	}
	st, err := p.ws.ReadState(context.Background())
	if err != nil || st.Resources["synthesis.hello"] == nil {
		t.Fatalf("state after apply: %v, %v", st, err)
	}

	again, s := p.plan(planner.Options{})
	if again.HasChanges() {
		t.Errorf("plan after apply has changes: %+v", again.Actions)
	}
	_, err = s.Replan(p.ctx, "release.plan", saved, p.load())
	s.Close()
	var we *workspace.Error
	if !errors.Is(err, planner.ErrStalePlan) || !errors.As(err, &we) || !strings.Contains(we.Hint(), "voxform plan -out release.plan") {
		t.Errorf("the applied plan applied again: %v", err)
	}
}

// A saved plan whose action no longer matches what apply would do (the
// output it replaces was edited since) is refused, naming the resource.
func TestReplanRefusesWhatChanged(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	p.apply(s, plan)
	plan, s = p.plan(planner.Options{Replace: []string{"synthesis.hello"}})
	saved := planner.NewSaved(plan, p.load(), nil, nil)
	s.Close()
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "out/hello.wav"), []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := p.ws.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Replan(p.ctx, "p.plan", saved, p.load())
	if !errors.Is(err, planner.ErrStalePlan) || !strings.Contains(err.Error(), "synthesis.hello") {
		t.Errorf("replan after an edit: %v", err)
	}
}

// A second session waits for nobody: it fails at once, saying who holds
// the lock and how to recover.
func TestLockHeld(t *testing.T) {
	p := newProject(t)
	s, err := p.ws.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.ws.Lock(context.Background(), "plan")
	var we *workspace.Error
	if !errors.As(err, &we) || !strings.Contains(we.Hint(), "force-unlock") {
		t.Errorf("second lock: %v", err)
	}
	s.Close()
	s.Close() // closing twice is harmless
	s, err = p.ws.Lock(context.Background(), "plan")
	if err != nil {
		t.Fatalf("lock after close: %v", err)
	}
	s.Close()
}

// A plan is never saved over the state, an output or a file that is not a
// plan.
func TestWritePlanRefuses(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	defer s.Close()
	saved := planner.NewSaved(plan, p.load(), nil, nil)
	os.WriteFile(filepath.Join(p.ws.Dir, "notes.txt"), []byte("the user's notes"), 0o644)
	for name, want := range map[string]string{
		"voxform.state.json": "voxform",
		"out/hello.wav":      "an output of synthesis.hello",
		"notes.txt":          "not a voxform plan file",
	} {
		err := p.ws.WritePlan(name, saved)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plan -out %s: %v, want %q", name, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(p.ws.Dir, "notes.txt")); string(b) != "the user's notes" {
		t.Errorf("notes.txt = %q", b)
	}
	if err := p.ws.WritePlan("release.plan", saved); err != nil {
		t.Fatal(err)
	}
	if err := p.ws.WritePlan("release.plan", saved); err != nil {
		t.Errorf("a plan file is replaced by a plan: %v", err)
	}
}

// Verify finds outputs modified or missing.
func TestVerify(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	p.apply(s, plan)
	st, _ := p.ws.ReadState(context.Background())
	if d, n, err := p.ws.Verify(p.ctx, st); err != nil || len(d) != 0 || len(n) != 1 || n[0].Path != "out/hello.wav" {
		t.Fatalf("verify after apply: %v %v %v", d, n, err)
	}
	out := filepath.Join(p.ws.Dir, "out/hello.wav")
	os.WriteFile(out, []byte("x"), 0o644)
	if d, _, _ := p.ws.Verify(p.ctx, st); len(d) != 1 || d[0].Problem != "modified" || d[0].Found == "" {
		t.Errorf("verify after an edit: %+v", d)
	}
	os.Remove(out)
	if d, _, _ := p.ws.Verify(p.ctx, st); len(d) != 1 || d[0].Problem != "missing" {
		t.Errorf("verify after removal: %+v", d)
	}
}

// Verify never hashes a file outside the manifest directory: an output
// directory replaced by a link to elsewhere is an error.
func TestVerifyRefusesLinkOutside(t *testing.T) {
	p := newProject(t)
	plan, s := p.plan(planner.Options{})
	p.apply(s, plan)
	st, _ := p.ws.ReadState(context.Background())
	outside := t.TempDir()
	if err := os.Rename(filepath.Join(p.ws.Dir, "out"), filepath.Join(outside, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "out"), filepath.Join(p.ws.Dir, "out")); err != nil {
		t.Fatal(err)
	}
	if d, _, err := p.ws.Verify(p.ctx, st); err == nil || !strings.Contains(err.Error(), "out/hello.wav") {
		t.Errorf("verify through a link outside: %v %v, want an error", d, err)
	}
}

// A session of LockUnread reads the state once started (by Start, or by
// the first method that needs it); closing one never started does not
// wait for a read that never comes, and releases the lock.
func TestLockUnread(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.ws.Dir, "voxform.state.json"), []byte("{not a state"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := p.ws.LockUnread(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("closing a session never started: %v", err)
	}
	s, err = p.ws.LockUnread(context.Background(), "plan")
	if err != nil {
		t.Fatalf("lock after close: %v", err)
	}
	if _, err := s.State(); err == nil {
		t.Error("State of a session not started: read nothing, want the state's error")
	}
	s.Close()
}
