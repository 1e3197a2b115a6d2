package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/state"
)

// TestVerifyListenMake: verify -listen -make makes the declared checks an
// apply made no record of and nothing else: never a synthesis, within the
// budget, billed ones only with -auto-approve; made once, never again.
func TestVerifyListenMake(t *testing.T) {
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": listenProject("")}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	writeManifest(t, env, listenProject("true"))
	if code := runCmd(env, "verify", "-listen"); code != ExitError || !strings.Contains(stderr.String(), "not checked") {
		t.Fatalf("verify -listen before the checks: exit %d: %s %s", code, stdout, stderr)
	}
	before := statsOf(t, run)
	if code := runCmd(env, "verify", "-listen", "-make"); code != ExitError || !strings.Contains(stderr.String(), "pass -auto-approve") {
		t.Fatalf("-make without -auto-approve nor a terminal: exit %d: %s %s", code, stdout, stderr)
	}
	env.Interactive, env.Stdin = true, strings.NewReader("no\n")
	if code := runCmd(env, "verify", "-listen", "-make"); code != ExitError || !strings.Contains(stderr.String(), "Only 'yes' will be accepted") || !strings.Contains(stderr.String(), "cancelled") {
		t.Fatalf("-make answered no on a terminal: exit %d: %s %s", code, stdout, stderr)
	}
	env.Interactive = false
	writeManifest(t, env, listenProject("true")+"budget: { max_audio_seconds: 1 }\n")
	if code := runCmd(env, "verify", "-listen", "-make", "-auto-approve"); code != ExitError || !strings.Contains(stderr.String(), "budget.max_audio_seconds") {
		t.Fatalf("-make over budget: exit %d: %s %s", code, stdout, stderr)
	}
	if after := statsOf(t, run); requests(after) != requests(before) {
		t.Fatalf("checks refused were made: %v, then %v", before.Requests, after.Requests)
	}
	writeManifest(t, env, listenProject("true"))
	if code := runCmd(env, "verify", "-listen", "-make", "-auto-approve"); code != ExitOK {
		t.Fatalf("-make -auto-approve: exit %d: %s %s", code, stdout, stderr)
	}
	after := statsOf(t, run)
	if after.Syntheses != before.Syntheses || after.BilledCharacters != before.BilledCharacters || requests(after) == requests(before) {
		t.Errorf("-make synthesized, or made no check: %+v, then %+v", before, after)
	}
	st, err := state.NewLocal(env.Dir).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if l := st.Resources["synthesis.hello"].Outputs[0].Listen; l == nil || !l.Pass {
		t.Errorf("the prompt's check: %+v", l)
	}
	for i, c := range st.Resources["synthesis.chapter"].Details().Chunks {
		if c.Listen == nil || c.Loudness == nil {
			t.Errorf("chunk %d: check %+v, loudness %+v", i, c.Listen, c.Loudness)
		}
	}
	if code := runCmd(env, "verify", "-listen", "-make", "-auto-approve"); code != ExitOK || !strings.Contains(stdout.String(), "No listening check to make") {
		t.Errorf("-make again: exit %d: %s %s", code, stdout, stderr)
	}
	if again := statsOf(t, run); requests(again) != requests(after) {
		t.Errorf("a check was paid twice: %v, then %v", after.Requests, again.Requests)
	}
}
