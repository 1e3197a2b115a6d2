package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// importPrompts is how many existing prompts TestImportAndUse adopts.
const importPrompts = 50

// TestImportAndUse is issue 30's adoption, end to end against the
// emulator: a folder of 50 existing prompts imported gives a plan with no
// changes and no call, and is kept in the output cache under its content,
// never under the request's fingerprint (another project sharing the
// cache pays for the same prompts); texts changed and applied make new takes,
// and 'use' puts an earlier one back byte for byte with no call, after
// which the plan shows no change.
func TestImportAndUse(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	texts := make([]string, importPrompts)
	var csv strings.Builder
	csv.WriteString("key,text\n")
	for i := range importPrompts {
		texts[i] = fmt.Sprintf("Please hold for line %d.", i)
		fmt.Fprintf(&csv, "p%02d,%s\n", i, texts[i])
		// The library as it was: WAVs at the declared format, each its own.
		p.writeFile(fmt.Sprintf("legacy/menu_p%02d.wav", i), string(speechLikeWAV(t, 200+10*i)))
	}
	p.writeFile("legacy/README.txt", "not a prompt: left alone")
	p.writeFile("prompts.csv", csv.String())
	manifest := func(csv string) string {
		return `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  prompt:
    for_each: ` + csv + `
    voice: n
    text: "${each.value.text}"
    output: "build/${each.key}.wav"
    audio_config: { container: wav, sample_rate: 16000 }
`
	}
	p.writeFile("voxform.yaml", manifest("prompts.csv"))

	calls := e.stats(t).calls()
	r := p.mustRun("import", "-dir", "legacy", "-match", "menu_{key}.wav")
	if !strings.Contains(r.stdout, fmt.Sprintf("Imported %d files", importPrompts)) {
		t.Fatalf("import:\n%s", r)
	}
	p.assertNoChanges()
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("import and plan made %d API calls, want none", n)
	}
	st := p.readState()
	if len(st.Resources) != importPrompts {
		t.Fatalf("state records %d resources, want %d", len(st.Resources), importPrompts)
	}
	addr := `synthesis.prompt["p07"]`
	legacy := mustRead(t, p.path("legacy/menu_p07.wav"))
	if got := mustRead(t, p.path("build/p07.wav")); !bytes.Equal(got, legacy) {
		t.Fatal("build/p07.wav is not the imported file")
	}
	if o := stateOrigin(t, p, addr); o != "imported" {
		t.Fatalf("origin of %s: %q, want imported", addr, o)
	}

	// The imported bytes are not the service's answer to the request: they
	// are cached under their content, never the request's fingerprint, so
	// another project sharing the cache and asking for the same prompt pays
	// for it rather than restoring the imported file.
	other := &project{t: t, dir: t.TempDir(), env: p.env}
	for _, f := range []string{"voxform.yaml", "prompts.csv"} {
		other.writeFile(f, p.readFile(f))
	}
	if _, sum := other.plan(); sum.Add != importPrompts || sum.Restore != 0 {
		t.Fatalf("another project with the same requests: %+v, want %d billed creates and no restore", sum, importPrompts)
	}

	// A text change replaces the imported prompt, billed: a new take.
	p.writeFile("prompts.csv", strings.Replace(csv.String(), texts[7], "Please hold while the line is busy.", 1))
	calls = e.stats(t).calls()
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if n := e.stats(t).calls() - calls; n != 1 {
		t.Fatalf("apply of one changed text made %d API calls, want 1", n)
	}
	if bytes.Equal(mustRead(t, p.path("build/p07.wav")), legacy) {
		t.Fatal("the apply did not replace build/p07.wav")
	}
	var listed struct {
		Takes []struct {
			Take    int    `json:"take"`
			Origin  string `json:"origin"`
			Cached  bool   `json:"cached"`
			Current bool   `json:"current"`
		} `json:"takes"`
	}
	r = p.mustRun("takes", "-json", addr)
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatalf("takes -json: %v\n%s", err, r)
	}
	if tk := listed.Takes; len(tk) != 2 || tk[0].Origin != "imported" || !tk[0].Cached || tk[0].Current || !tk[1].Current {
		t.Fatalf("takes of %s: %+v, want the imported take (cached, under its content) and the current one", addr, tk)
	}

	// Another text: a third take. use puts the second (the service's)
	// back, byte for byte, with no call.
	second := mustRead(t, p.path("build/p07.wav"))
	p.writeFile("prompts.csv", strings.Replace(csv.String(), texts[7], "All our lines are busy.", 1))
	if r := p.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	calls = e.stats(t).calls()
	p.mustRun("use", addr, "2")
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("use made %d API calls, want none", n)
	}
	if got := mustRead(t, p.path("build/p07.wav")); !bytes.Equal(got, second) {
		t.Fatal("use did not put the second take back byte for byte")
	}
	if o := stateOrigin(t, p, addr); o != "take" {
		t.Fatalf("origin of %s after use: %q, want take", addr, o)
	}
	p.assertNoChanges()
	if n := e.stats(t).calls() - calls; n != 0 {
		t.Fatalf("use and plan made %d API calls, want none", n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stateOrigin is the origin 'voxform state show' gives for addr.
func stateOrigin(t *testing.T, p *project, addr string) string {
	t.Helper()
	var shown map[string]struct {
		Origin string `json:"origin"`
	}
	r := p.mustRun("state", "show", addr)
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil {
		t.Fatalf("state show: %v\n%s", err, r)
	}
	return shown[addr].Origin
}

// TestImportAndUseSurvivePull is issue 30's "imports survive pull on a
// fresh clone": imported files, an imported take put back, and a take
// of the service's put back by 'use' are pushed and restored by a fresh
// clone's pull, byte for byte, with no call, after which the plan shows
// no change. The imported files reach the remote under their content,
// never the request's fingerprint: a project asking for the same prompts
// with an empty local cache pays for them.
func TestImportAndUseSurvivePull(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	p := newProject(t, "", e)
	remote := t.TempDir()
	p.env = append(p.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	const n = 3
	texts := make([]string, n)
	for i := range n {
		texts[i] = fmt.Sprintf("Please hold for line %d.", i)
		p.writeFile(fmt.Sprintf("legacy/menu_p%d.wav", i), string(speechLikeWAV(t, 250+20*i)))
	}
	prompts := func(texts []string) {
		var csv strings.Builder
		csv.WriteString("key,text\n")
		for i, s := range texts {
			fmt.Fprintf(&csv, "p%d,%s\n", i, s)
		}
		p.writeFile("prompts.csv", csv.String())
	}
	prompts(texts)
	p.writeFile("voxform.yaml", `version: 1
voices:
  n: { model: tts-v2.5, voice: Girish, language: en-IN }
syntheses:
  prompt:
    for_each: prompts.csv
    voice: n
    text: "${each.value.text}"
    output: "build/${each.key}.wav"
    audio_config: { container: wav, sample_rate: 16000 }
`)
	calls := e.stats(t).calls()
	p.mustRun("import", "-dir", "legacy", "-match", "menu_{key}.wav")

	// p1: the service's first take, replaced, then put back by use.
	texts[1] = "All our lines are busy."
	prompts(texts)
	p.mustRun("apply", "-auto-approve")
	first := mustRead(t, p.path("build/p1.wav"))
	texts[1] = "Thank you for waiting."
	prompts(texts)
	p.mustRun("apply", "-auto-approve")
	p.mustRun("use", `synthesis.prompt["p1"]`, "2")
	// p2: replaced by the service, then its imported take put back.
	texts[2] = "Your call matters to us."
	prompts(texts)
	p.mustRun("apply", "-auto-approve")
	p.mustRun("use", `synthesis.prompt["p2"]`, "1")
	if o := stateOrigin(t, p, `synthesis.prompt["p2"]`); o != "imported" {
		t.Fatalf("origin of p2 with its imported take put back: %q, want imported", o)
	}
	p.assertNoChanges()
	billed := e.stats(t).calls() - calls
	p.mustRun("push")

	want := map[string][]byte{
		"build/p0.wav": mustRead(t, p.path("legacy/menu_p0.wav")),
		"build/p1.wav": first,
		"build/p2.wav": mustRead(t, p.path("legacy/menu_p2.wav")),
	}
	for rel, b := range want {
		if !bytes.Equal(mustRead(t, p.path(rel)), b) {
			t.Fatalf("%s is not the file put back", rel)
		}
	}
	outputs := make([]string, 0, len(want))
	for rel := range want {
		outputs = append(outputs, rel)
	}
	c := cloneWithoutOutputs(t, p, e, outputs)
	c.env = append(c.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	calls = e.stats(t).calls()
	r := c.mustRun("pull")
	if !strings.Contains(r.stdout, fmt.Sprintf("Restored %d resource(s)", n)) {
		t.Fatalf("pull on a fresh clone:\n%s", r)
	}
	if got := e.stats(t).calls() - calls; got != 0 {
		t.Fatalf("pull made %d API calls, want none", got)
	}
	for rel, b := range want {
		if !bytes.Equal(mustRead(t, c.path(rel)), b) {
			t.Fatalf("pull did not restore %s byte for byte", rel)
		}
	}
	c.assertNoChanges()

	// Another project, its local cache empty, the same remote: the
	// imported prompt p0's request is the service's to answer, billed.
	other := newProject(t, "", e)
	other.env = append(other.env, "VOXFORM_CACHE_REMOTE=file://"+remote)
	other.writeFile("voxform.yaml", p.readFile("voxform.yaml"))
	other.writeFile("prompts.csv", p.readFile("prompts.csv"))
	changes, sum := other.plan()
	if sum.Add != 1 || sum.Restore != n-1 || sum.Cost.Characters != int64(len(texts[0])) {
		t.Fatalf("another project's plan: %+v %+v, want the imported prompt's request billed and the service's %d restored (%d calls made here)", sum, changes, n-1, billed)
	}
	for _, ch := range changes {
		if ch.Address == `synthesis.prompt["p0"]` && ch.Action != "create" {
			t.Fatalf("another project's plan of the imported prompt: %+v, want a billed create", ch)
		}
	}
}
