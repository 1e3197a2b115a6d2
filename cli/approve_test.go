package cli

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/state"
)

const approveManifest = `version: 1
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
defaults:
  synthesis:
    voice: narrator
    lifecycle: { keep_approved: true }
syntheses:
  menu:
    for_each: [a, b]
    text: "press ${each.key}"
    output: "build/${each.key}.wav"
  bye: { text: "Goodbye", output: build/bye.wav, lifecycle: { prevent_destroy: true } }
`

func readState(t *testing.T, dir string) *state.File {
	t.Helper()
	st, err := state.NewLocal(dir).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestApproveAndRequireApproved: approve records the outputs' digest, who
// (-by, else the git user) and the note, for addresses, blocks and
// patterns; it refuses what a plan would change, recording nothing;
// verify -require-approved (and its JUnit "approval" suite) fails until
// every declared resource is approved; -revoke withdraws.
func TestApproveAndRequireApproved(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": approveManifest}, emulator.Options{})
	if code := runCmd(env, "approve", "-by", "Ana", "synthesis.bye"); code != ExitError || !strings.Contains(stderr.String(), "the plan would create it") {
		t.Fatalf("approve before apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "verify", "-require-approved", "-junit", "ci.xml"); code != ExitError || !strings.Contains(stdout.String(), `synthesis.menu["a"]: not approved`) {
		t.Fatalf("verify -require-approved, nothing approved: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "verify", "-require-approved", "-json"); code != ExitError || strings.Count(stdout.String(), `"approved":false,"status":"not approved"`) != 3 {
		t.Fatalf("verify -require-approved -json: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "approve", "-by", "Ana <ana@example.com>", "-note", "TICKET-7", "synthesis.menu[*]"); code != ExitOK {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}
	st := readState(t, env.Dir)
	for _, a := range []string{`synthesis.menu["a"]`, `synthesis.menu["b"]`} {
		r := st.Resources[a]
		if !r.Approved() || r.Details().Approval.By != "Ana <ana@example.com>" || r.Details().Approval.Note != "TICKET-7" || r.Details().Approval.Digest != state.OutputsDigest(r.Outputs) {
			t.Errorf("%s: approval %+v", a, r.Details().Approval)
		}
	}
	if st.Resources["synthesis.bye"].Details().Approval != nil || !st.Resources["synthesis.bye"].PreventDestroy {
		t.Errorf("bye: %+v", st.Resources["synthesis.bye"])
	}

	if code := runCmd(env, "destroy", "-auto-approve"); code != ExitError || !strings.Contains(stderr.String(), "lifecycle prevent_destroy") ||
		!strings.Contains(stderr.String(), "voxform.yaml:13:80: synthesis.bye (declared)") || !exists(env.Dir, "build/bye.wav") {
		t.Fatalf("destroy of a prevent_destroy resource: exit %d: %s", code, stderr)
	}

	// The default approver is the git user of the manifest directory.
	gitconfig := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(gitconfig, []byte("[user]\n\tname = Ravi\n\temail = ravi@example.com\n"), 0o644)
	env.Environ = func() []string {
		return []string{"GIT_CONFIG_GLOBAL=" + gitconfig, "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()}
	}
	if code := runCmd(env, "approve", "synthesis.bye"); code != ExitOK {
		t.Fatalf("approve as the git user: exit %d: %s", code, stderr)
	}
	if by := readState(t, env.Dir).Resources["synthesis.bye"].Details().Approval.By; by != "Ravi <ravi@example.com>" {
		t.Errorf("default approver %q", by)
	}
	if code := runCmd(env, "verify", "-require-approved", "-junit", "ci.xml"); code != ExitOK {
		t.Fatalf("verify -require-approved, all approved: exit %d: %s%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(env.Dir, "ci.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if s := rep.Suites[len(rep.Suites)-1]; s.Name != "approval" || len(s.Cases) != 3 {
		t.Errorf("junit approval suite: %+v", rep.Suites)
	}

	// An output changed: the plan would repair it, so it cannot be approved.
	os.WriteFile(filepath.Join(env.Dir, "build/a.wav"), []byte("not the approved audio"), 0o644)
	before, _ := os.ReadFile(filepath.Join(env.Dir, state.StateFileName))
	if code := runCmd(env, "approve", "-by", "Ana", "synthesis.*"); code != ExitError || !strings.Contains(stderr.String(), `synthesis.menu["a"]: the plan would repair it`) {
		t.Fatalf("approve of a modified output: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(env.Dir, state.StateFileName)); string(after) != string(before) {
		t.Error("a refused approve changed the state")
	}
	if code := runCmd(env, "approve", "-by", "Ana", "synthesis.nothing[*]"); code != ExitError || !strings.Contains(stderr.String(), "names no resource") {
		t.Fatalf("approve of nothing: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "approve", "-by", "Ana\x1b[2J", "synthesis.bye"); code != ExitError || !strings.Contains(stderr.String(), "not printable") {
		t.Fatalf("approve -by with an escape: exit %d: %s", code, stderr)
	}

	// Replaced despite keep_approved (-replace names it): the approval is
	// kept, lost, and said so. a.wav, modified above, is pinned: its
	// approved bytes are put back from the cache over the file voxform
	// did not write (-overwrite), and its approval holds again.
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(approveManifest, `text: "press ${each.key}"`, `text: "press ${each.key}"
    speed: 1.1`, 1)), 0o644)
	if code := runCmd(env, "apply", "-auto-approve", "-overwrite", "-replace", `synthesis.menu["b"]`); code != ExitOK {
		t.Fatalf("apply -replace: exit %d: %s", code, stderr)
	}
	if r := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]; !r.Approved() || sha256File(t, filepath.Join(env.Dir, "build/a.wav")) != r.Outputs[0].SHA256 {
		t.Errorf("a pinned output put back: not the approved bytes, or its approval does not hold: %+v", r.Details().Approval)
	}
	if code := runCmd(env, "state", "show", `synthesis.menu["b"]`); code != ExitOK || !strings.Contains(stderr.String(), "approval lost: outputs changed since Ana <ana@example.com> approved them") {
		t.Fatalf("state show of a lost approval: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "verify", "-require-approved"); code != ExitError || !strings.Contains(stdout.String(), `synthesis.menu["b"]: approval lost`) {
		t.Fatalf("verify -require-approved with a lost approval: exit %d: %s", code, stdout)
	}
	if code := runCmd(env, "approve", "-by", "Ana", `synthesis.menu["a"]`); code != ExitError || !strings.Contains(stderr.String(), "pinned: its outputs are of an older request (speed") {
		t.Fatalf("approve of a pinned resource: exit %d: %s", code, stderr)
	}

	if code := runCmd(env, "approve", "-revoke", "-json", "synthesis.menu"); code != ExitOK || strings.Count(stdout.String(), `"revoked":true`) != 2 {
		t.Fatalf("revoke: exit %d: %s%s", code, stdout, stderr)
	}
	if r := readState(t, env.Dir).Resources[`synthesis.menu["b"]`]; r.Details().Approval != nil {
		t.Errorf("revoked approval still recorded: %+v", r.Details().Approval)
	}
}

// TestApproveExpect: -expect ADDRESS=SHA256 (what the report page writes)
// approves only the outputs reviewed: once they are made again, the
// command refuses and records nothing; with the current digest it
// approves, the address named by -expect alone.
func TestApproveExpect(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": approveManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	reviewed := state.OutputsDigest(readState(t, env.Dir).Resources[`synthesis.menu["a"]`].Outputs)
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(approveManifest, "press", "push", 1)), 0o644)
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK { // made since the review
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(env.Dir, state.StateFileName))
	if code := runCmd(env, "approve", "-by", "Ana", "-expect", `synthesis.menu["a"]=`+reviewed); code != ExitError ||
		!strings.Contains(stderr.String(), "its outputs are not the ones reviewed") {
		t.Fatalf("approve -expect of outputs made since: exit %d: %s%s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(env.Dir, state.StateFileName)); string(after) != string(before) {
		t.Error("a refused approve -expect changed the state")
	}
	if code := runCmd(env, "approve", "-expect", "synthesis.bye=xyz"); code == ExitOK || !strings.Contains(stderr.String(), "want ADDRESS=SHA256") {
		t.Fatalf("approve -expect with no digest: exit %d: %s", code, stderr)
	}
	now := state.OutputsDigest(readState(t, env.Dir).Resources[`synthesis.menu["a"]`].Outputs)
	if code := runCmd(env, "approve", "-by", "Ana", "-expect", `synthesis.menu["a"]=`+now); code != ExitOK {
		t.Fatalf("approve -expect of the outputs as they are: exit %d: %s", code, stderr)
	}
	st := readState(t, env.Dir)
	if !st.Resources[`synthesis.menu["a"]`].Approved() || st.Resources[`synthesis.menu["b"]`].Details().Approval != nil {
		t.Errorf("approve -expect: a %+v, b %+v; want a alone approved", st.Resources[`synthesis.menu["a"]`].Details().Approval, st.Resources[`synthesis.menu["b"]`].Details().Approval)
	}
}
