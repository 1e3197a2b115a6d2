package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/manifest"
)

// TestPollVariable: VOXFORM_POLL=documented reaches the apply as
// executor.Options.DocumentedPolling (through the service connection);
// unset it is off; any other value is refused before the plan is shown,
// with nothing called.
func TestPollVariable(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"", false}, {"documented", true}} {
		env, _, _ := manifestEnv(t, nil)
		env.Getenv = func(k string) string {
			return map[string]string{"VOXFORM_API_KEY": testKey, "VOXFORM_BASE_URL": "http://127.0.0.1:9", pollVar: c.value}[k]
		}
		conn, err := connect(env, &manifest.Manifest{}, serviceFlags{}, nil, io.Discard)
		if err != nil {
			t.Fatalf("VOXFORM_POLL=%q: %v", c.value, err)
		}
		if conn.documentedPolls != c.want {
			t.Errorf("VOXFORM_POLL=%q: documented polling %v, want %v", c.value, conn.documentedPolls, c.want)
		}
	}

	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		if k == pollVar {
			return "fast"
		}
		return getenv(k)
	}
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitError {
		t.Errorf("apply with VOXFORM_POLL=fast: exit %d, want %d", code, ExitError)
	}
	if msg := stderr.String(); !strings.HasPrefix(msg, `voxform: VOXFORM_POLL is "fast", which is not a polling mode`) || !strings.Contains(msg, "hint: VOXFORM_POLL=documented") {
		t.Errorf("stderr %q", msg)
	}
	if stdout.Len() != 0 {
		t.Errorf("a plan was shown:\n%s", stdout)
	}
	if n := requests(statsOf(t, run)); n != 0 {
		t.Errorf("%d API calls", n)
	}
}
