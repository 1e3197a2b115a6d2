package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/junit"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// listenProject declares a prompt and a chapter sent in chunks of at most
// 60 characters; listen is what the listen: of each says ("" for none).
func listenProject(listen string) string {
	if listen != "" {
		listen = ", listen: " + listen
	}
	return `version: 1
service: { max_text_chars: 60 }
voices:
  narrator: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  hello: { voice: narrator, text: "the quick brown fox jumps over the lazy dog", output: build/hello.wav` + listen + ` }
  chapter: { voice: narrator, text: "One sentence of the chapter is here. Another sentence follows it now. And the last one ends the chapter.", output: build/chapter.wav` + listen + ` }
`
}

// listenEnv applies listenProject without listen: against the emulator,
// then declares listen (the manifest's listen: block) and returns the
// environment with the texts sent: the prompt's, then the chapter's
// chunks.
func listenEnv(t *testing.T, listen string) (*Env, *bytes.Buffer, *bytes.Buffer, []string) {
	t.Helper()
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": listenProject("")}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	m, ds := workspace.New(env.Dir).Load((&varFlags{}).options(env))
	if m == nil {
		t.Fatal(ds)
	}
	desired, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, d := range desired { // chapter, then hello
		if len(d.Details().Chunks) == 0 {
			texts = append([]string{d.Wire.Synthesis.Text}, texts...)
		}
		for _, c := range d.Details().Chunks {
			texts = append(texts, c.Text)
		}
	}
	if len(texts) < 3 {
		t.Fatalf("the chapter is not chunked: %q", texts)
	}
	writeManifest(t, env, listenProject(listen))
	return env, stdout, stderr, texts
}

func writeManifest(t *testing.T, env *Env, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// heardAs records a listening check on the prompt and on every chunk of
// the chapter, each heard as heard gives (of the index in texts, the text
// sent): nil leaves a chunk unchecked; a record without a fingerprint is
// given that of its audio and request. Chunks are 10 s each, at -23 LUFS,
// with 0.25 s of silence at either end.
func heardAs(t *testing.T, env *Env, texts []string, heard func(i int, sent string) *state.Listen) {
	t.Helper()
	path := filepath.Join(env.Dir, "voxform.state.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	hello := &st.Resources["synthesis.hello"].Outputs[0]
	hello.Listen = ofAudio(heard(0, texts[0]), hello.SHA256)
	ch := st.Resources["synthesis.chapter"]
	if len(ch.Details().Chunks) != len(texts)-1 {
		t.Fatalf("%d chunks recorded, %d planned", len(ch.Details().Chunks), len(texts)-1)
	}
	for i := range ch.Details().Chunks {
		c := &ch.Details().Chunks[i]
		lufs := -23.0
		c.Start, c.End, c.Lead, c.Tail = float64(i)*10, float64(i+1)*10, 0.25, 0.25
		c.Loudness = &state.Loudness{Integrated: &lufs}
		c.Listen = ofAudio(heard(i+1, texts[i+1]), c.SHA256)
	}
	out, err := state.MarshalSorted(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ofAudio gives l (nil: none) the fingerprint of its check of the audio
// sha, unless it has one.
func ofAudio(l *state.Listen, sha string) *state.Listen {
	if l != nil && l.Fingerprint == "" {
		l.Fingerprint = planner.CheckFingerprint(sha, planner.CheckRequest{API: l.API, LanguageCode: l.LanguageCode, Format: "verbatim", Rate: l.Rate})
	}
	return l
}

// faithful is a check that heard exactly what was sent.
func faithful(_ int, sent string) *state.Listen {
	return &state.Listen{API: "rest", LanguageCode: "hi-IN", Rate: 16000, Seconds: 10, Heard: narration.Spoken(sent), Pass: true, Judged: "old"}
}

// TestVerifyListenJudgesAgain: verify -listen judges every recorded check
// again at the manifest's current limits, calling no service: a record
// that passed at max_run 2 (one word misheard) fails at max_run 0, named
// with its chunk, its place in the joined output and the span; JUnit
// carries a listen case per check and a seams case per boundary; -json
// an object per check and seam.
func TestVerifyListenJudgesAgain(t *testing.T) {
	env, stdout, stderr, texts := listenEnv(t, "{ max_run: 2 }")
	heardAs(t, env, texts, func(i int, sent string) *state.Listen {
		l := faithful(i, sent)
		if i == 2 { // chunk 2 of the chapter: one word misheard
			l.Heard = strings.Replace(l.Heard, "sentence", "sentinel", 1)
		}
		return l
	})
	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitOK {
		t.Fatalf("verify -listen at max_run 2: exit %d: %s %s", code, stdout, stderr)
	}
	doc := readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	if len(doc.Suites) != 3 || doc.Suites[1].Name != "listen" || doc.Suites[2].Name != "seams" ||
		len(doc.Suites[1].Cases) != len(texts) || len(doc.Suites[2].Cases) != len(texts)-2 {
		t.Fatalf("suites: %+v", doc.Suites)
	}
	n := len(texts) - 1
	chunk2 := doc.Suites[1].Cases[1]
	if chunk2.Class != "synthesis.chapter" || chunk2.Name != "listen chunk 2 of "+itoa(n)+" (10.0-20.0 s)" || chunk2.Failure != nil ||
		!strings.Contains(chunk2.Out, "longest_run 1 words (max 2)") {
		t.Errorf("chunk 2 at max_run 2: %+v", chunk2)
	}
	if hello := doc.Suites[1].Cases[len(texts)-1]; hello.Name != "listen build/hello.wav" || hello.Failure != nil {
		t.Errorf("the prompt: %+v", hello)
	}
	if s := doc.Suites[2].Cases[0]; s.Name != "seam 1|2 at 10.0 s" || s.Failure != nil || !strings.Contains(s.Out, "step 0.00 LU within 3 LU; gap 0.50 s within 0-2 s") {
		t.Errorf("seam 1|2: %+v", s)
	}

	writeManifest(t, env, listenProject("{ max_run: 0 }"))
	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitError ||
		!strings.Contains(stderr.String(), "1 listening check(s) fail") {
		t.Fatalf("verify -listen at max_run 0: exit %d: %s %s", code, stdout, stderr)
	}
	for _, want := range []string{"synthesis.chapter", "listen chunk 2 of " + itoa(n) + " (10.0-20.0 s)", "fail",
		"longest_run: 1 words over 0", `at 1`, `sent "sentence"`, `heard "sentinel"`, "longest_run 1 words (max 0)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("verify output lacks %q:\n%s", want, stdout)
		}
	}
	doc = readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	chunk2 = doc.Suites[1].Cases[1]
	if chunk2.Failure == nil || chunk2.Failure.Type != "listen" || !strings.Contains(chunk2.Failure.Message, `sent "sentence", heard "sentinel"`) ||
		!strings.Contains(chunk2.Failure.Message, "longest_run 1 words (max 0)") {
		t.Errorf("chunk 2 at max_run 0: %+v", chunk2)
	}

	if code := runCmd(env, "verify", "-listen", "-json"); code != ExitError {
		t.Fatalf("verify -listen -json: exit %d: %s", code, stderr)
	}
	var listens, seams, failing int
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch o["kind"] {
		case "listen":
			listens++
			if o["pass"] == false {
				failing++
				if o["item"] != "listen chunk 2 of "+itoa(n)+" (10.0-20.0 s)" || o["measures"].(map[string]any)["longest_run"] != 1.0 || o["span"] == nil {
					t.Errorf("failing check: %s", line)
				}
			}
		case "seam":
			seams++
		}
	}
	if listens != len(texts) || seams != n-1 || failing != 1 {
		t.Errorf("-json: %d checks (%d failing), %d seams:\n%s", listens, failing, seams, stdout)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestVerifyListenUncheckedAndSeams: a declared check without a verdict
// for the output's current audio fails (JUnit type "unchecked", naming
// the command that makes it): never made, made in another language than
// the manifest now asks, of a file changed since, of an output the
// manifest now asks otherwise; a loudness step between chunks over the
// limit fails its seam, the gap within limits said beside it.
func TestVerifyListenUncheckedAndSeams(t *testing.T) {
	env, stdout, stderr, texts := listenEnv(t, "true")
	heardAs(t, env, texts, func(i int, sent string) *state.Listen {
		l := faithful(i, sent)
		switch i {
		case 1:
			return nil // chunk 1 never checked
		case 2:
			l.LanguageCode = "en-IN"
		case 3:
			l.Fingerprint = strings.Repeat("d", 64) // a check of other audio
		}
		return l
	})
	b, _ := os.ReadFile(filepath.Join(env.Dir, "voxform.state.json"))
	st, _ := state.Decode(bytes.NewReader(b))
	louder := -18.9
	chunks := st.Resources["synthesis.chapter"].Details().Chunks
	chunks[len(chunks)-1].Loudness.Integrated = &louder
	out, _ := state.MarshalSorted(st)
	os.WriteFile(filepath.Join(env.Dir, "voxform.state.json"), out, 0o644)
	os.WriteFile(filepath.Join(env.Dir, "build/hello.wav"), []byte("RIFF"), 0o644)

	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"1 seam(s) of joined outputs are outside their limits", "4 declared listening check(s) are not checked", "verify -listen -make"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	doc := readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	listen, seams := doc.Suites[1].Cases, doc.Suites[2].Cases
	for i, want := range map[int]string{0: "not checked; run", 1: "not checked in hi-IN: heard in en-IN", 2: "its recorded check is of other audio", len(listen) - 1: workspace.ChangedSince} {
		if c := listen[i]; c.Failure == nil || c.Failure.Type != "unchecked" || !strings.Contains(c.Failure.Message, want) || !strings.Contains(c.Failure.Message, "verify -listen -make") {
			t.Errorf("case %d: want unchecked, %q: %+v", i, want, c)
		}
	}
	last := seams[len(seams)-1]
	if s := last; s.Failure == nil || s.Failure.Type != "seam" || s.Failure.Message != "step 4.10 LU > 3 LU; gap 0.50 s within 0-2 s" {
		t.Errorf("the last seam: %+v", s)
	}
	if seams[0].Failure != nil {
		t.Errorf("seam 1|2: %+v", seams[0])
	}
	if !strings.Contains(stdout.String(), last.Name) {
		t.Errorf("verify output: %s", stdout)
	}

	writeManifest(t, env, strings.Replace(listenProject("true"), "the quick brown fox", "the slow brown fox", 1))
	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc = readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	if c := doc.Suites[1].Cases[len(texts)-1]; c.Failure == nil || c.Failure.Type != "unchecked" || !strings.Contains(c.Failure.Message, workspace.NotCurrent) {
		t.Errorf("the prompt, its text changed in the manifest: %+v", c)
	}
}

// TestVerifyListenHostileHeard: a transcript is the service's text: ANSI
// escapes, XML that would close the report's elements and 200 KB of it
// leave the terminal output inert and short, and the JUnit report valid.
func TestVerifyListenHostileHeard(t *testing.T) {
	env, stdout, stderr, texts := listenEnv(t, "true")
	hostile := "\x1b[2J\x1b]0;owned\x07 </failure></testcase>]]><![CDATA[ \u202e evil " + strings.Repeat("\x1b[31mword ]]> ", 200<<10/16)
	heardAs(t, env, texts, func(i int, sent string) *state.Listen {
		l := faithful(i, sent)
		if i == 0 {
			l.Heard = hostile
		}
		return l
	})
	summary := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(summary, nil, 0o644)
	withEnv(env, map[string]string{stepSummaryVar: summary})
	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md, _ := os.ReadFile(summary)
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "summary": string(md)} {
		if strings.ContainsAny(out, "\x1b\x07\u202e") || len(out) > 8<<10 {
			t.Errorf("%s is not inert and short (%d bytes): %q", name, len(out), out)
		}
	}
	if !strings.Contains(stdout.String(), "synthesis.hello") || !strings.Contains(string(md), "synthesis.hello") {
		t.Errorf("the failing prompt is not named: %s\n%s", stdout, md)
	}
	b, _ := os.ReadFile(filepath.Join(env.Dir, "junit.xml"))
	if err := junit.Check(bytes.NewReader(b)); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	if bytes.ContainsAny(b, "\x1b\x07") {
		t.Errorf("control characters in the JUnit report")
	}
	doc := readJUnit(t, filepath.Join(env.Dir, "junit.xml"))
	if c := doc.Suites[1].Cases[len(texts)-1]; c.Failure == nil || c.Failure.Type != "listen" {
		t.Errorf("the prompt heard as garbage: %+v", c)
	}
}

// TestVerifyListenFlags: -make goes with -listen, -auto-approve with -make;
// a manifest that declares no check passes with empty suites.
func TestVerifyListenFlags(t *testing.T) {
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": planManifest})
	if code := runCmd(env, "verify", "-listen", "-junit", "junit.xml"); code != ExitOK || !strings.Contains(stdout.String(), "Listening checks: 0 declared") {
		t.Fatalf("verify -listen of a project without listen: exit %d: %s %s", code, stdout, stderr)
	}
	if doc := readJUnit(t, filepath.Join(env.Dir, "junit.xml")); len(doc.Suites) != 3 || len(doc.Suites[1].Cases) != 0 {
		t.Errorf("suites: %+v", doc.Suites)
	}
	for _, args := range [][]string{{"-make"}, {"-listen", "-auto-approve"}, {"-listen", "-emulate"}} {
		if code := runCmd(env, append([]string{"verify"}, args...)...); code != ExitError || !strings.Contains(stderr.String(), "goes with") {
			t.Errorf("verify %v: exit %d: %s", args, code, stderr)
		}
	}
}
