package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/state"
)

const planManifest = `version: 1
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  hello: { voice: narrator, text: "<laugh> नमस्ते", output: build/hello.wav }
  bye: { voice: narrator, text: "Goodbye", output: build/bye.wav }
`

func runCmd(env *Env, args ...string) int {
	env.Stdout.(*bytes.Buffer).Reset()
	env.Stderr.(*bytes.Buffer).Reset()
	return Run(context.Background(), env, args)
}

// TestPlanLockedFailsAtOnce: a second plan while the state is locked fails
// at once naming the holder's pid and operation.
func TestPlanLockedFailsAtOnce(t *testing.T) {
	env, _, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	lk, err := state.NewLocal(env.Dir).Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	if code := runCmd(env, "plan"); code != ExitError {
		t.Fatalf("exit %d", code)
	}
	msg := stderr.String()
	for _, want := range []string{fmt.Sprintf("pid %d", os.Getpid()), "operation apply", "voxform force-unlock " + lk.Info().ID} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
}

func TestPlanCommand(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest}, "VOXFORM_API_KEY=sk-secret-123")
	env.Getenv = func(k string) string {
		if k == "VOXFORM_API_KEY" {
			return "sk-secret-123"
		}
		return ""
	}
	if code := runCmd(env, "plan"); code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| + | create | synthesis.hello", "Plan: 2 to add, 0 to replace, 0 to repair, 0 to move, 0 to destroy.",
		"Cost: 21 billable characters, 0h00m00s of audio to transcribe."} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("plan output lacks %q:\n%s", want, stdout)
		}
	}
	if code := runCmd(env, "plan", "-detailed-exitcode"); code != ExitChanges {
		t.Errorf("-detailed-exitcode with changes: exit %d", code)
	}

	if code := runCmd(env, "plan", "-json", "-target", "synthesis.hello"); code != ExitOK {
		t.Fatalf("plan -json: exit %d: %s", code, stderr)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		types = append(types, msg["type"].(string))
	}
	if strings.Join(types, ",") != "planned_change,change_summary" {
		t.Errorf("message types %v", types)
	}

	if code := runCmd(env, "plan", "-out", "tonight.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, stderr)
	}
	saved, err := os.ReadFile(filepath.Join(env.Dir, "tonight.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(saved, []byte("sk-secret-123")) || strings.Contains(stdout.String(), "sk-secret-123") {
		t.Error("the API key leaked into the plan")
	}
	if code := runCmd(env, "show", "tonight.plan"); code != ExitOK || !strings.Contains(stdout.String(), "Plan: 2 to add") {
		t.Errorf("show plan: exit %d: %s%s", code, stdout, stderr)
	}

	// Something is applied meanwhile: the saved plan is stale.
	recordDone(t, env.Dir, "synthesis.bye")
	if code := runCmd(env, "show", "tonight.plan"); code != ExitError || !strings.Contains(stderr.String(), "stale") {
		t.Errorf("stale plan shown: exit %d: %s", code, stderr)
	}
	// A changed manifest also makes it stale.
	runCmd(env, "plan", "-out", "tonight.plan")
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(planManifest+"\n# edited\n"), 0o644)
	if code := runCmd(env, "show", "tonight.plan"); code != ExitError || !strings.Contains(stderr.String(), "manifest changed") {
		t.Errorf("plan of another manifest shown: exit %d: %s", code, stderr)
	}

	if code := runCmd(env, "graph"); code != ExitOK || !strings.Contains(stdout.String(), `"voice.narrator" -> "synthesis.hello"`) {
		t.Errorf("graph: exit %d: %s%s", code, stdout, stderr)
	}
}

// recordDone records addr as applied, its output written.
func recordDone(t *testing.T, dir, addr string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	os.WriteFile(filepath.Join(dir, "build/x.wav"), []byte("RIFF"), 0o644)
	b := state.NewLocal(dir)
	lk, err := b.Lock(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	rec, err := b.Open(context.Background(), lk, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, size, _ := state.HashFile(filepath.Join(dir, "build/x.wav"))
	if err := rec.Record(addr, &state.Resource{Kind: "synthesis", Fingerprint: "f", Request: map[string]any{"text": "x"},
		Outputs: []state.Output{{Path: "build/x.wav", SHA256: sum, Size: size}}}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStateCommands(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	recordDone(t, env.Dir, `synthesis.menu["a"]`)
	recordDone(t, env.Dir, `synthesis.menu["b"]`)
	recordDone(t, env.Dir, "synthesis.other")
	if code := runCmd(env, "state", "list", "synthesis.menu"); code != ExitOK || stdout.String() != "synthesis.menu[\"a\"]\nsynthesis.menu[\"b\"]\n" {
		t.Errorf("state list: exit %d: %q %s", code, stdout, stderr)
	}
	if code := runCmd(env, "state", "show", "synthesis.other"); code != ExitOK || !strings.Contains(stdout.String(), `"path": "build/x.wav"`) {
		t.Errorf("state show: exit %d: %s %s", code, stdout, stderr)
	}
	if code := runCmd(env, "state", "show", "synthesis.nope"); code != ExitError {
		t.Errorf("state show of an unknown address: exit %d", code)
	}
	if code := runCmd(env, "state", "rm", "synthesis.menu"); code != ExitOK {
		t.Fatalf("state rm: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "state", "list"); code != ExitOK || stdout.String() != "synthesis.other\n" {
		t.Errorf("after rm: %q", stdout)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "build/x.wav")); err != nil {
		t.Errorf("state rm removed an output: %v", err)
	}
	if code := runCmd(env, "show"); code != ExitOK || !strings.Contains(stdout.String(), "synthesis.other") {
		t.Errorf("show: exit %d: %s", code, stdout)
	}
	// The recorded output of synthesis.other is not declared: plan deletes it.
	if code := runCmd(env, "plan", "-no-color"); code != ExitOK || !strings.Contains(stdout.String(), "| - | delete | synthesis.other") {
		t.Errorf("plan: exit %d: %s %s", code, stdout, stderr)
	}
}

func TestForceUnlockCommand(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	if code := runCmd(env, "force-unlock", "abc"); code != ExitError || !strings.Contains(stderr.String(), "-force") {
		t.Errorf("non-interactive force-unlock without -force: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "force-unlock", "-force", "abc"); code != ExitOK || !strings.Contains(stdout.String(), "not locked") {
		t.Errorf("force-unlock of a free lock: exit %d: %s %s", code, stdout, stderr)
	}
}
