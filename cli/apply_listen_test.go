package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// listenManifest is one synthesis with a listening check.
const listenManifest = `version: 1
voices:
  v3: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  hello:
    voice: v3
    text: "नमस्ते, आज की कहानी छोटी है और सुनने में बहुत अच्छी है।"
    output: out/hello.wav
    listen: true
`

// TestApplyListenFailing: a synthesis whose take fails its listening
// check (the emulator speaks silence) is written and recorded, and apply
// says so and exits 1 naming it; so does the next apply, which makes
// nothing (CI stays red); -json's apply_summary lists the failure.
func TestApplyListenFailing(t *testing.T) {
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": listenManifest}, emulator.Options{SilenceRate: 1})
	if code := runCmd(env, "apply", "-auto-approve", "-json"); code != ExitError {
		t.Fatalf("exit %d, want %d: %s", code, ExitError, stderr)
	}
	if !exists(env.Dir, "out/hello.wav") {
		t.Error("the failing take is not in place")
	}
	msgs := jsonLines(t, stdout.String())
	last := msgs[len(msgs)-1]
	failed, _ := last["listen_failed"].([]any)
	if last["type"] != "apply_summary" || len(failed) != 1 || last["listen_failing"] != 1.0 {
		t.Fatalf("apply_summary: %v", last)
	}
	if f := failed[0].(map[string]any); f["address"] != "synthesis.hello" || !strings.Contains(f["why"].(string), "silence") {
		t.Errorf("listen_failed: %v", f)
	}
	if !strings.Contains(stderr.String(), "1 listening check(s) or seam(s) fail or are not made: synthesis.hello") {
		t.Errorf("stderr: %s", stderr)
	}
	progress := 0
	for _, m := range msgs {
		if l, ok := m["listen"].(map[string]any); ok && m["type"] == "apply_progress" && l["pass"] == false && l["take"] == 1.0 {
			progress++
		}
	}
	if progress != 1 {
		t.Errorf("%d apply_progress messages of a failing check, want 1: %v", progress, msgs)
	}
	before := statsOf(t, run)
	stdout.Reset()
	stderr.Reset()
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitError {
		t.Fatalf("second apply: exit %d, want %d", code, ExitError)
	}
	if after := statsOf(t, run); requests(after) != requests(before) {
		t.Errorf("the second apply called the service: %v", after.Requests)
	}
	for _, want := range []string{"Listening checks failing: 1", "synthesis.hello: silence: nothing heard"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("second apply's output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr.String(), "1 listening check(s) or seam(s) fail or are not made: synthesis.hello") {
		t.Errorf("second apply's stderr: %s", stderr)
	}

	// The verdict is the manifest's, not the state's: without listen:
	// the failure recorded no longer keeps apply red, and no call is made.
	for _, m := range []string{strings.Replace(listenManifest, "    listen: true\n", "", 1)} {
		if err := os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		stderr.Reset()
		if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
			t.Fatalf("apply once the manifest accepts the take: exit %d: %s", code, stderr)
		}
	}
	if after := statsOf(t, run); requests(after) != requests(before) {
		t.Errorf("judging again called the service: %v", after.Requests)
	}
}
