package e2e_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestREADMEFirstCommand runs the README's first command, 'voxform -chdir
// examples/manifests/ivr-prompts apply -emulate -auto-approve', on a copy
// of the example as a new user runs it: from another directory, with no
// API key and no base URL in the environment (SPEC sections 8 and 9). It
// must exit 0, say on stderr that the built-in emulator answers, write the
// nine prompts as valid 8 kHz mu-law, and leave a state that a second
// 'plan -emulate' finds up to date.
func TestREADMEFirstCommand(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	ffprobe(t)
	p := newProject(t, "ivr-prompts", nil)
	p.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + p.dir} // no VOXFORM_API_KEY, no VOXFORM_BASE_URL
	p.from = t.TempDir()

	r := p.run("apply", "-emulate", "-auto-approve")
	if r.code != 0 {
		t.Fatalf("the README's first command failed:\n%s", r)
	}
	if !strings.Contains(r.stderr, "built-in emulator") || !strings.Contains(r.stderr, "http://127.0.0.1:") {
		t.Fatalf("apply -emulate does not announce the emulator on stderr:\n%s", r)
	}
	checkOutputs(t, p, 18)
	assertNoTemps(t, p)
	if files := p.filesUnder("."); !slices.Contains(files, "voxform.state.json") {
		t.Fatalf("no state beside the manifest: %v", files)
	}

	if r := p.run("plan", "-emulate", "-detailed-exitcode"); r.code != 0 || !strings.Contains(r.stdout, "No changes") {
		t.Fatalf("a second plan -emulate should show no changes:\n%s", r)
	}
	if _, sum := p.plan("-emulate"); sum.changes() != 0 || sum.NoOp != 9 {
		t.Fatalf("second plan -emulate: %+v, want 9 resources unchanged", sum)
	}
}
