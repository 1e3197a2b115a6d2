package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/state"
)

// TestPlanCheckErrorAfterStateRead: a manifest that expands but fails its
// check (two syntheses writing one output) has its state read started
// (LoadOptions.Expanded); the plan fails with the manifest's error, not
// the state's, the state file is left as it was, and the lock is let go.
func TestPlanCheckErrorAfterStateRead(t *testing.T) {
	const bad = `version: 1
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  hello: { voice: narrator, text: "hello", output: build/same.wav }
  bye: { voice: narrator, text: "bye", output: build/same.wav }
`
	for _, tc := range []struct{ name, st string }{
		{"a readable state", `{"version": 1, "serial": 3, "lineage": "l-1", "resources": {}}`},
		{"a corrupt state", `{not json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, stderr := manifestEnv(t, map[string]string{"voxform.yaml": bad, state.StateFileName: tc.st})
			if code := runCmd(env, "plan"); code != ExitError {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr.String(), "build/same.wav") {
				t.Errorf("the manifest's error is not reported:\n%s", stderr)
			}
			got, err := os.ReadFile(filepath.Join(env.Dir, state.StateFileName))
			if err != nil || string(got) != tc.st {
				t.Errorf("state file now %q (%v), want it unchanged", got, err)
			}
			lk, err := state.NewLocal(env.Dir).Lock(context.Background(), "plan")
			if err != nil {
				t.Fatalf("the lock is held after the failed plan: %v", err)
			}
			lk.Unlock()
		})
	}
}
