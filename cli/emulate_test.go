package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// stream records stdout and stderr in the order they were written, as a
// person at a terminal sees them, besides each stream on its own.
type stream struct {
	mu                  sync.Mutex
	all, stdout, stderr bytes.Buffer
}

type streamWriter struct {
	s   *stream
	own *bytes.Buffer
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.s.all.Write(p)
	return w.own.Write(p)
}

// run runs voxform with fresh streams.
func (s *stream) run(env *Env, args ...string) int {
	s.all.Reset()
	s.stdout.Reset()
	s.stderr.Reset()
	env.Stdout, env.Stderr = streamWriter{s, &s.stdout}, streamWriter{s, &s.stderr}
	return Run(context.Background(), env, args)
}

// inOrder fails unless each of want appears in s.all after the one before.
func (s *stream) inOrder(t *testing.T, want ...string) {
	t.Helper()
	rest := s.all.String()
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%q missing or out of order in:\n%s", w, s.all.String())
			return
		}
		rest = rest[i+len(w):]
	}
}

const (
	announcePlan  = "voxform: -emulate: this plan is for the built-in emulator (plan calls no service; 'voxform apply -emulate' runs it locally and nothing is billed)\n"
	announceApply = "voxform: -emulate: this apply runs against the built-in emulator on a loopback port, not the speech service: audio and transcripts are generated locally and nothing is billed\n"
	listening     = "voxform: the built-in emulator is listening at http://127.0.0.1:"
)

// TestEmulate: -emulate on plan, a saved plan and apply, destroy. No API
// key and no base URL are set: only the emulator can serve these. Every
// run says first, on stderr, that it is for the emulator.
func TestEmulate(t *testing.T) {
	env, _, _ := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	var s stream

	if code := s.run(env, "plan", "-emulate"); code != ExitOK {
		t.Fatalf("plan -emulate: exit %d: %s", code, &s.stderr)
	}
	if !strings.HasPrefix(s.all.String(), announcePlan) {
		t.Errorf("plan -emulate does not start with the announcement:\n%s", &s.all)
	}
	s.inOrder(t, announcePlan, "| + | create | synthesis.hello", "Plan: 2 to add")

	// A plan saved with -emulate is applied on the emulator, and says so.
	if code := s.run(env, "plan", "-emulate", "-out", "e.plan"); code != ExitOK {
		t.Fatalf("plan -emulate -out: exit %d: %s", code, &s.stderr)
	}
	if !strings.Contains(s.stdout.String(), "It was made with -emulate") {
		t.Errorf("plan -out does not say the plan is for the emulator:\n%s", &s.stdout)
	}
	var saved struct {
		Emulate bool `json:"emulate"`
	}
	data, _ := os.ReadFile(filepath.Join(env.Dir, "e.plan"))
	if err := json.Unmarshal(data, &saved); err != nil || !saved.Emulate {
		t.Errorf("the saved plan does not record -emulate (%v): %.200s", err, data)
	}
	if code := s.run(env, "show", "e.plan"); code != ExitOK || !strings.Contains(s.stdout.String(), "made with -emulate") {
		t.Errorf("show e.plan: exit %d:\n%s", code, &s.all)
	}
	if code := s.run(env, "apply", "e.plan"); code != ExitOK {
		t.Fatalf("apply e.plan: exit %d: %s", code, &s.all)
	}
	fromPlan := "voxform: e.plan was made with -emulate: this apply runs against the built-in emulator on a loopback port"
	if !strings.HasPrefix(s.all.String(), fromPlan) {
		t.Errorf("apply e.plan does not start with the announcement:\n%s", &s.all)
	}
	s.inOrder(t, fromPlan, "| + | create | synthesis.hello", listening, "Apply complete! Resources: 2 done", "(by the emulator: no real charges)")
	for _, out := range []string{"build/hello.wav", "build/bye.wav"} {
		if !exists(env.Dir, out) {
			t.Errorf("%s not produced on the emulator", out)
		}
	}

	// A plan saved without -emulate needs the service's key...
	if code := s.run(env, "plan", "-replace", "synthesis.bye", "-out", "r.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, &s.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(env.Dir, "r.plan")); bytes.Contains(data, []byte(`"emulate"`)) {
		t.Error("a plan made without -emulate records it")
	}
	if code := s.run(env, "apply", "r.plan"); code != ExitError ||
		!strings.Contains(s.stderr.String(), "voxform: the API key variable VOXFORM_API_KEY is not set\nhint: export VOXFORM_API_KEY=...") {
		t.Errorf("apply r.plan without a key: exit %d:\n%s", code, &s.all)
	}
	if strings.Contains(s.all.String(), "| -/+ | replace") {
		t.Errorf("apply without a key showed the plan before saying so:\n%s", &s.all)
	}
	if strings.Contains(s.all.String(), "built-in emulator") {
		t.Errorf("apply of a plan made without -emulate mentions the emulator:\n%s", &s.all)
	}
	// ...and apply -emulate runs it on the emulator.
	if code := s.run(env, "apply", "-emulate", "r.plan"); code != ExitOK {
		t.Fatalf("apply -emulate r.plan: exit %d: %s", code, &s.all)
	}
	s.inOrder(t, announceApply, "| -/+ | replace | synthesis.bye", listening, "Apply complete! Resources: 1 done")
	if !strings.HasPrefix(s.all.String(), announceApply) {
		t.Errorf("apply -emulate does not start with the announcement:\n%s", &s.all)
	}

	// Interactive: announced before the plan and the question, even when
	// the answer is no and nothing connects.
	env.Interactive, env.Terminal = true, true
	env.Stdin = strings.NewReader("no\n")
	if code := s.run(env, "apply", "-emulate", "-replace", "synthesis.hello"); code != ExitError {
		t.Errorf("apply -emulate answered no: exit %d", code)
	}
	s.inOrder(t, announceApply, "synthesis.hello", "Do you want to perform these actions?", "voxform: apply cancelled: nothing was changed")
	if strings.Contains(s.all.String(), listening) {
		t.Errorf("the emulator was started for a cancelled apply:\n%s", &s.all)
	}
	env.Interactive, env.Terminal = false, false

	// destroy -emulate: deleting outputs needs no service, and it is
	// still announced.
	if code := s.run(env, "destroy", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("destroy -emulate: exit %d: %s", code, &s.all)
	}
	announceDestroy := strings.Replace(announceApply, "this apply", "this destroy", 1)
	if !strings.HasPrefix(s.all.String(), announceDestroy) || strings.Contains(s.all.String(), listening) {
		t.Errorf("destroy -emulate: want the announcement first and no emulator started:\n%s", &s.all)
	}
	s.inOrder(t, announceDestroy, "Destroy complete! Resources: 2 done, 0 failed, 0 skipped.")
	if strings.Contains(s.all.String(), "Apply complete") {
		t.Errorf("destroy says apply:\n%s", &s.all)
	}
	if exists(env.Dir, "build/hello.wav") || exists(env.Dir, "build/bye.wav") {
		t.Error("destroy left outputs")
	}
}
