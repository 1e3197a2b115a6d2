package cli

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/junit"
)

// junitDoc is the part of a JUnit report these tests read.
type junitDoc struct {
	Suites []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Class   string `xml:"classname,attr"`
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Out string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// withEnv adds the variables vars to env's environment.
func withEnv(env *Env, vars map[string]string) {
	base := env.Getenv
	env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return base(k)
	}
}

// TestVerifyJUnit: verify -junit writes one case per recorded file and
// per loudness check, valid by the JUnit schema; a drifted output is a
// failure naming the recorded and the found hash, a file it cannot
// measure is skipped; the report is never written over a file that is
// not one, nor over an output.
func TestVerifyJUnit(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "verify", "-loudness", "-junit", "out/junit.xml"); code != ExitError || !strings.Contains(stderr.String(), "out") {
		t.Errorf("-junit into a directory that does not exist: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "verify", "-junit", "junit.xml"); code != ExitOK {
		t.Fatalf("verify -junit of an intact tree: exit %d: %s %s", code, stdout, stderr)
	}
	doc := readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 2 || doc.Suites[0].Cases[0].Failure != nil || doc.Suites[0].Cases[0].Name != "hash build/bye.wav" {
		t.Fatalf("intact tree: %+v", doc)
	}
	os.WriteFile(filepath.Join(env.Dir, "build/hello.wav"), []byte("RIFF"), 0o644)
	os.Remove(filepath.Join(env.Dir, "build/bye.wav"))
	if code := runCmd(env, "verify", "-loudness", "-junit", "junit.xml"); code != ExitError {
		t.Fatalf("verify after drift: exit %d: %s", code, stderr)
	}
	doc = readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "hash" || doc.Suites[1].Name != "loudness" {
		t.Fatalf("suites: %+v", doc)
	}
	bye, hello := doc.Suites[0].Cases[0], doc.Suites[0].Cases[1]
	if bye.Class != "synthesis.bye" || bye.Failure == nil || bye.Failure.Type != "missing" || !strings.Contains(bye.Failure.Message, "found no file") {
		t.Errorf("missing output: %+v", bye)
	}
	if hello.Failure == nil || hello.Failure.Type != "modified" || !strings.Contains(hello.Failure.Message, "recorded sha256 ") || !strings.Contains(hello.Failure.Message, ", found ") {
		t.Errorf("modified output: %+v", hello)
	}
	for _, c := range doc.Suites[1].Cases {
		if c.Skipped == nil || !strings.Contains(c.Skipped.Message, "loudness not measured") {
			t.Errorf("loudness of a file gone or not audio: %+v", c)
		}
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(env.Dir, "reports"))
	if code := runCmd(env, "verify", "-junit", "reports/junit.xml"); code != ExitError || !strings.Contains(stderr.String(), "leads outside the manifest directory through a symbolic link") {
		t.Errorf("-junit through a committed link out of the project: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "junit.xml")); err == nil {
		t.Errorf("-junit wrote through a link out of the project")
	}
	if code := runCmd(env, "verify", "-junit", filepath.Join(outside, "junit.xml")); code != ExitError || stderr.Len() == 0 {
		t.Errorf("-junit outside by its own path, after drift: exit %d: %s", code, stderr)
	}
	readJUnit(t, filepath.Join(outside, "junit.xml"))
	for _, tt := range []struct{ name, want string }{
		{"voxform.yaml", "exists and is not a JUnit XML report"},
		{"build/hello.wav", "build/hello.wav is an output of synthesis.hello"},
		{"voxform.state.json", "voxform.state.json"},
	} {
		before, _ := os.ReadFile(filepath.Join(env.Dir, tt.name))
		if code := runCmd(env, "verify", "-junit", tt.name); code != ExitError || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("-junit %s: exit %d: %s", tt.name, code, stderr)
		}
		if after, _ := os.ReadFile(filepath.Join(env.Dir, tt.name)); !bytes.Equal(before, after) {
			t.Errorf("-junit %s changed the file", tt.name)
		}
	}
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := junit.Check(bytes.NewReader(b)); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestStepSummary: with GITHUB_STEP_SUMMARY set, plan and verify append
// their Markdown summaries to that file after what is there; a link or a
// missing file there is a warning and the command's outcome is its own.
func TestStepSummary(t *testing.T) {
	env, _, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	summary := filepath.Join(t.TempDir(), "step_summary")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	withEnv(env, map[string]string{stepSummaryVar: summary})
	if code := runCmd(env, "plan"); code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	os.Remove(filepath.Join(env.Dir, "build/bye.wav"))
	if code := runCmd(env, "verify"); code != ExitError {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(summary)
	got := string(b)
	plan, verify := strings.Index(got, "### voxform plan\n"), strings.Index(got, "### voxform verify\n")
	if !strings.HasPrefix(got, "earlier step\n") || plan < 0 || verify < plan || !strings.Contains(got, "2 to add") ||
		!strings.Contains(got, "Verified 2 recorded file(s) of 2 resource(s): 1 drifted.") || !strings.Contains(got, "| `synthesis.bye` | build/bye.wav | missing |") {
		t.Errorf("job summary:\n%s", got)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(summary, link)
	none := filepath.Join(t.TempDir(), "none")
	state := filepath.Join(env.Dir, "voxform.state.json")
	stateBefore, _ := os.ReadFile(state)
	for _, path := range []string{link, none, state, "relative.md", "/dev/null"} {
		withEnv(env, map[string]string{stepSummaryVar: path})
		if code := runCmd(env, "plan"); code != ExitOK || !strings.Contains(stderr.String(), "voxform: warning: plan: job summary (GITHUB_STEP_SUMMARY):") {
			t.Errorf("summary at %s: exit %d: %s", path, code, stderr)
		}
	}
	if after, _ := os.ReadFile(summary); string(after) != got {
		t.Errorf("a summary was written through a link")
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, stateBefore) {
		t.Errorf("a summary was appended to the state")
	}
	if _, err := os.Stat(none); err == nil {
		t.Errorf("a summary file was created")
	}
}
