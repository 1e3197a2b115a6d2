package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// pinManifest is approveManifest without bye, whose prevent_destroy
// refuses its replace.
var pinManifest = approveManifest[:strings.Index(approveManifest, "  bye:")]

// TestPinnedOutputRestoredFromCache: a pinned resource (keep_approved,
// approval holding, a new default voice) whose approved output is gone is
// put back free from the output cache, byte for byte, with no call; its
// approval still holds, and the next plan shows it pinned only.
func TestPinnedOutputRestoredFromCache(t *testing.T) {
	env, stdout, stderr, run := pinnedProject(t)
	out := filepath.Join(env.Dir, "build/a.wav")
	approved, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(pinManifest, "voice: Shivani", "voice: Avinash", 1)), 0o644)
	os.Remove(out)
	calls := requests(statsOf(t, run))
	if code := runCmd(env, "plan"); code != ExitOK || !strings.Contains(stdout.String(), "put back from the cache") {
		t.Fatalf("plan: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "apply", "-auto-approve", "-target", `synthesis.menu["a"]`); code != ExitOK {
		t.Fatalf("apply: exit %d: %s%s", code, stdout, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != string(approved) {
		t.Fatalf("the approved bytes were not put back: %v", err)
	}
	if n := requests(statsOf(t, run)) - calls; n != 0 {
		t.Errorf("putting back a pinned output made %d calls", n)
	}
	if r := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]; !r.Approved() {
		t.Errorf("the approval no longer holds: %+v", r.Details().Approval)
	}
	if code := runCmd(env, "plan", "-target", `synthesis.menu["a"]`); code != ExitOK || !strings.Contains(stdout.String(), "pinned (approved)") ||
		strings.Contains(stdout.String(), "missing") {
		t.Fatalf("plan after the restore: exit %d: %s%s", code, stdout, stderr)
	}
}

// sha256File is the hex SHA-256 of the file at path.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestMoveKeepsApproval: a pure move (only the output path changed: the
// bytes are renamed) keeps the approval, re-based on the moved paths; the
// plan says so.
func TestMoveKeepsApproval(t *testing.T) {
	env, stdout, stderr, _ := pinnedProject(t)
	before := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(pinManifest, `output: "build/${each.key}.wav"`, `output: "build/menu/${each.key}.wav"`, 1)), 0o644)
	if code := runCmd(env, "plan"); code != ExitOK || !strings.Contains(stdout.String(), "approval by Ana of") || !strings.Contains(stdout.String(), "kept") {
		t.Fatalf("plan: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s%s", code, stdout, stderr)
	}
	r := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]
	if r.Outputs[0].Path != "build/menu/a.wav" || !r.Approved() || r.Details().Approval.By != "Ana" || !r.Details().Approval.At.Equal(before.Details().Approval.At) {
		t.Fatalf("after the move: %+v, approval %+v", r.Outputs, r.Details().Approval)
	}
	if b := readState(t, env.Dir).Resources[`synthesis.menu["b"]`]; b.Details().Approval != nil {
		t.Errorf("an unapproved resource moved gained an approval: %+v", b.Details().Approval)
	}
}

// TestImportAndUseSayApprovalLost: import -force and use over an
// approved resource say when its approval no longer holds (import -json
// carries it), and use says when an approved take put back makes it hold
// again.
func TestImportAndUseSayApprovalLost(t *testing.T) {
	manifest := strings.Replace(pinManifest, "    lifecycle: { keep_approved: true }\n", "", 1)
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": manifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(manifest, "press", "push", 1)), 0o644)
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK { // take 2 of each
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "approve", "-by", "Ana", "synthesis.menu[*]"); code != ExitOK {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}
	at := readState(t, env.Dir).Resources[`synthesis.menu["a"]`].Details().Approval.At.UTC().Format(time.RFC3339)
	lost := "approval by Ana of " + at + " no longer holds"

	if code := runCmd(env, "use", `synthesis.menu["a"]`, "1"); code != ExitOK || !strings.Contains(stderr.String(), `synthesis.menu["a"]: `+lost) {
		t.Fatalf("use of an older take over an approved one: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "use", `synthesis.menu["a"]`, "2"); code != ExitOK || !strings.Contains(stdout.String(), "approval by Ana of "+at+" holds again") {
		t.Fatalf("use of the approved take: exit %d: %s%s", code, stdout, stderr)
	}

	old := filepath.Join(env.Dir, "old.wav")
	b, _ := os.ReadFile(filepath.Join(env.Dir, "build/b.wav"))
	os.WriteFile(old, b, 0o644)
	if code := runCmd(env, "import", "-force", "-json", `synthesis.menu["a"]`, old); code != ExitOK || !strings.Contains(stdout.String(), `"approval":"`+lost+`"`) {
		t.Fatalf("import -force -json over an approved resource: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "import", "-force", `synthesis.menu["b"]`, old); code != ExitOK || strings.Contains(stderr.String(), lost) {
		t.Fatalf("import -force of the approved bytes in place: exit %d: %s%s", code, stdout, stderr)
	}
}

const bookManifest = `version: 1
voices:
  hindi: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  ch1: { voice: hindi, text: "अध्याय एक।", audio_config: { container: mp3, sample_rate: 24000, bitrate: 64k }, output: build/ch1.mp3 }
  ch2: { voice: hindi, text: "अध्याय दो।", audio_config: { container: mp3, sample_rate: 24000, bitrate: 64k }, output: build/ch2.mp3 }
packages:
  book:
    title: Book
    author: Rampur Tales
    language: hi-IN
    chapters:
      - { synthesis: synthesis.ch1, title: "One" }
      - { synthesis: synthesis.ch2, title: "Two" }
    mp3: build/book.mp3
`

// TestReplaceChapterRemastersBook: apply -replace of a chapter remasters
// its package in the same apply, over the book file voxform made (it
// failed with "build/book.mp3 appeared after the plan").
func TestReplaceChapterRemastersBook(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": bookManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s%s", code, stdout, stderr)
	}
	before := sha256File(t, filepath.Join(env.Dir, "build/book.mp3"))
	if code := runCmd(env, "apply", "-auto-approve", "-replace", "synthesis.ch2"); code != ExitOK {
		t.Fatalf("apply -replace synthesis.ch2: exit %d: %s%s", code, stdout, stderr)
	}
	r := readState(t, env.Dir).Resources["package.book"]
	if after := sha256File(t, filepath.Join(env.Dir, "build/book.mp3")); r.Outputs[0].SHA256 != after {
		t.Errorf("the book recorded %.12s, on disk %.12s (before %.12s)", r.Outputs[0].SHA256, after, before)
	}
}

// TestPinnedDeliveryAndCheckRemade: a pinned resource's delivered file,
// gone, is remastered free from the pinned audio, and its listening check
// made, both under the recorded fingerprint: the resource stays pinned,
// its approval holding.
func TestPinnedDeliveryAndCheckRemade(t *testing.T) {
	manifest := strings.Replace(pinManifest, `    output: "build/${each.key}.wav"`, "    output: \"build/${each.key}.wav\"\n    deliver: telephony", 1)
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": manifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "approve", "-by", "Ana", "synthesis.menu[*]"); code != ExitOK {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}
	rec := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]
	delivered := ""
	for _, o := range rec.Outputs {
		if o.Delivery != nil {
			delivered = o.Path
		}
	}
	if delivered == "" {
		t.Fatalf("no delivered output recorded: %+v", rec.Outputs)
	}
	changed := strings.Replace(manifest, "voice: Shivani", "voice: Avinash", 1)
	changed = strings.Replace(changed, "    deliver: telephony", "    deliver: telephony\n    listen: true", 1)
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(changed), 0o644)
	syntheses := statsOf(t, run).Syntheses
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK || !strings.Contains(stdout.String(), "pinned (approved)") {
		t.Fatalf("apply (a check of the pinned audio): exit %d: %s%s", code, stdout, stderr)
	}
	r := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]
	if r.Fingerprint != rec.Fingerprint || !r.Approved() || r.Outputs[0].Listen == nil {
		t.Fatalf("after the check: fingerprint %.12s (was %.12s), approved %v, check %+v", r.Fingerprint, rec.Fingerprint, r.Approved(), r.Outputs[0].Listen)
	}
	os.Remove(filepath.Join(env.Dir, delivered))
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK || !strings.Contains(stdout.String(), "remaster") {
		t.Fatalf("apply (the delivery made again): exit %d: %s%s", code, stdout, stderr)
	}
	if n := statsOf(t, run).Syntheses - syntheses; n != 0 {
		t.Errorf("a pinned resource was synthesized %d times", n)
	}
	r = readState(t, env.Dir).Resources[`synthesis.menu["a"]`]
	if r.Fingerprint != rec.Fingerprint || !r.Approved() {
		t.Fatalf("after the remaster: fingerprint %.12s (was %.12s), approved %v", r.Fingerprint, rec.Fingerprint, r.Approved())
	}
	if _, err := os.Stat(filepath.Join(env.Dir, delivered)); err != nil {
		t.Errorf("the delivered file was not made again: %v", err)
	}
}

// TestMoveOfAChangedFileRefused: a move keeps the record, and its
// approval, of the bytes it renames; a file changed while apply waits for
// its "yes" is not them, so the move is refused and nothing is recorded.
func TestMoveOfAChangedFileRefused(t *testing.T) {
	env, stdout, stderr, _ := pinnedProject(t)
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(strings.Replace(pinManifest, `output: "build/${each.key}.wav"`, `output: "build/menu/${each.key}.wav"`, 1)), 0o644)
	env.Interactive = true
	env.Stdin = &changeThenYes{path: filepath.Join(env.Dir, "build/a.wav")}
	code := runCmd(env, "apply")
	if code == ExitOK || !strings.Contains(stdout.String()+stderr.String(), "build/a.wav changed after the plan") {
		t.Fatalf("apply of a move whose file changed: exit %d: %s%s", code, stdout, stderr)
	}
	if r := readState(t, env.Dir).Resources[`synthesis.menu["a"]`]; r.Outputs[0].Path != "build/a.wav" {
		t.Errorf("a refused move was recorded: %+v", r.Outputs)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "build/menu/a.wav")); err == nil {
		t.Error("the changed file was moved")
	}
}

// changeThenYes answers apply's question "yes" after writing other bytes
// to path, as someone editing the output while apply waits would.
type changeThenYes struct {
	path string
	done bool
}

func (c *changeThenYes) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	c.done = true
	if err := os.WriteFile(c.path, []byte("RIFF not the approved audio"), 0o644); err != nil {
		return 0, err
	}
	return copy(p, "yes\n"), nil
}

// pinnedProject is pinManifest applied against the emulator, with
// synthesis.menu["a"] approved by Ana.
func pinnedProject(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer, *emulator.Running) {
	t.Helper()
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": pinManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "approve", "-by", "Ana", `synthesis.menu["a"]`); code != ExitOK {
		t.Fatalf("approve: exit %d: %s", code, stderr)
	}
	return env, stdout, stderr, run
}
