package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextFileLinkToEnvironRefused: a text_file that a contributor made a
// symbolic link to /proc/self/environ is refused at the field by validate
// and every plan; the process environment, the API key in it, appears in
// no output (the table, -markdown for a pull request comment, -json), no
// saved plan and no state. It used to become the synthesis text.
func TestTextFileLinkToEnvironRefused(t *testing.T) {
	const key = "sk-fake-environ-5c1e0b9d"
	if os.Getenv("VOXFORM_API_KEY") != key {
		// /proc/self/environ is the environment the process started
		// with: run the test again in a process started with the key.
		cmd := exec.Command(os.Args[0], "-test.run=^TestTextFileLinkToEnvironRefused$", "-test.v")
		cmd.Env = append(os.Environ(), "VOXFORM_API_KEY="+key)
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestTextFileLinkToEnvironRefused")) {
			t.Fatalf("in a process started with VOXFORM_API_KEY: %v\n%s", err, out)
		}
		return
	}
	if environ, err := os.ReadFile("/proc/self/environ"); err != nil || !bytes.Contains(environ, []byte(key)) {
		t.Fatalf("/proc/self/environ does not hold the key (%v): the test would prove nothing", err)
	}
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": `version: 1
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  welcome: { voice: v, text_file: texts/welcome.txt, output: build/welcome.wav }
`}, "VOXFORM_API_KEY="+key)
	env.Getenv = func(k string) string {
		if k == "VOXFORM_API_KEY" {
			return key
		}
		return ""
	}
	if err := os.MkdirAll(filepath.Join(env.Dir, "texts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(env.Dir, "texts/welcome.txt")); err != nil {
		t.Fatal(err)
	}
	const refused = `voxform.yaml:5:35: error: text_file "texts/welcome.txt": leads outside the manifest directory through a symbolic link`
	for _, args := range [][]string{{"validate"}, {"plan"}, {"plan", "-markdown"}, {"plan", "-json"}, {"plan", "-out", "review.plan"}} {
		code := runCmd(env, args...)
		out := stdout.String() + stderr.String()
		if code == ExitOK {
			t.Errorf("%s: exit 0; want the text_file refused", args)
		}
		if strings.Contains(out, key) {
			t.Errorf("%s: the API key from the environment is in the output:\n%s", args, out)
		}
		if !strings.Contains(out, refused) && !strings.Contains(out, `leads outside the manifest directory through a symbolic link`) {
			t.Errorf("%s: output lacks %q:\n%s", args, refused, out)
		}
	}
	if code := runCmd(env, "validate"); code == ExitOK || !strings.Contains(stderr.String()+stdout.String(), refused) {
		t.Errorf("validate: exit %d; want %q in:\n%s%s", code, refused, stdout, stderr)
	}
	err := filepath.WalkDir(env.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
