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
// changes and no call, and never enters the output cache (another project
// pays for the same prompts); texts changed and applied make new takes,
// and 'use' puts an earlier one back byte for byte with no call, after
// which the plan shows no change.
func TestImportAndUse(t *testing.T) {
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
	// never enter the output cache, so another project asking for the same
	// prompt pays for it rather than restoring the imported file.
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
	if tk := listed.Takes; len(tk) != 2 || tk[0].Origin != "imported" || tk[0].Cached || tk[0].Current || !tk[1].Current {
		t.Fatalf("takes of %s: %+v, want the imported take (not cached) and the current one", addr, tk)
	}
	if r := p.run("use", addr, "1"); r.code == 0 {
		t.Fatalf("use put back an imported take the cache never held:\n%s", r)
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
