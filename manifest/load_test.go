package manifest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// TestVariablePrecedence: a manifest default < VOXFORM_VAR_NAME < -var-file
// (later files win) < -var (later flags win).
func TestVariablePrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
variables:
  a: default
  b: default
  c: default
  d: default
  e: default
`)
	writeFile(t, dir, "vars/one.yaml", "c: file1\nd: file1\ne: file1\n")
	writeFile(t, dir, "vars/two.json", `{"d": "file2", "e": "file2"}`)
	opts := manifest.LoadOptions{
		Environ:  []string{"VOXFORM_VAR_b=env", "VOXFORM_VAR_c=env", "VOXFORM_VAR_d=env", "VOXFORM_VAR_e=env", "VOXFORM_VAR_undeclared=x"},
		VarFiles: []string{"vars/one.yaml", "vars/two.json"},
		Vars:     []string{"e=flag1", "e=flag2"},
	}
	m, ds := manifest.Load(dir, opts, schema.Validator{})
	if ds.HasErrors() {
		t.Fatalf("errors: %v", ds)
	}
	want := map[string]any{"a": "default", "b": "env", "c": "file1", "d": "file2", "e": "flag2"}
	if diff := cmp.Diff(want, m.Variables); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
}

// TestHash: the hash covers manifest files, for_each data files and var
// files, and nothing else.
func TestHash(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
variables: { lang: hi-IN }
voices:
  n: { model: tts-v2.5, voice: Nalini, language: "${var.lang}" }
syntheses:
  s: { for_each: data/p.csv, voice: n, text: "${each.value.text}", output: "out/${each.key}.wav" }
`)
	writeFile(t, dir, "data/p.csv", "key,text\na,hello\n")
	writeFile(t, dir, "vars.json", `{"lang": "ta-IN"}`)
	hash := func() string {
		m, ds := manifest.Load(dir, manifest.LoadOptions{VarFiles: []string{"vars.json"}}, schema.Validator{})
		if ds.HasErrors() {
			t.Fatalf("errors: %v", ds)
		}
		return m.Hash
	}
	h0 := hash()
	if h0 != hash() {
		t.Fatal("hash is not stable")
	}
	writeFile(t, dir, "unrelated.txt", "x")
	if h0 != hash() {
		t.Error("hash changed with an unrelated file")
	}
	for _, change := range [][2]string{{"data/p.csv", "key,text\na,bye\n"}, {"vars.json", `{"lang": "en-IN"}`}, {"voxform.yaml", ""}} {
		path := filepath.Join(dir, change[0])
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		content := change[1]
		if content == "" {
			content = string(old) + "# comment\n"
		}
		writeFile(t, dir, change[0], content)
		if h := hash(); h == h0 {
			t.Errorf("hash did not change when %s changed", change[0])
		}
		writeFile(t, dir, change[0], string(old))
	}
}

// bigManifest writes a manifest whose synthesis iterates over a CSV of n rows.
func bigManifest(t testing.TB, n int) string {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: hi-IN }
defaults:
  synthesis:
    audio_config: { container: mulaw }
syntheses:
  prompts:
    for_each: prompts.csv
    voice: narrator
    text: "${each.value.text}"
    output: "build/${each.value.group}/${each.key}.ulaw"
`)
	var b strings.Builder
	b.WriteString("key,group,text\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "prompt-%05d,g%d,\"कृपया प्रतीक्षा करें, prompt %s\"\n", i, i%10, strings.Repeat("x", i%7))
	}
	writeFile(t, dir, "prompts.csv", b.String())
	return dir
}

// TestLargeForEach checks the addresses of a 10,000-row CSV for_each.
func TestLargeForEach(t *testing.T) {
	dir := bigManifest(t, 10000)
	m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if ds.HasErrors() || len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds[:min(len(ds), 5)])
	}
	if len(m.Syntheses) != 10000 {
		t.Fatalf("got %d syntheses, want 10000", len(m.Syntheses))
	}
	for i, s := range m.Syntheses {
		want := fmt.Sprintf(`synthesis.prompts["prompt-%05d"]`, i)
		if s.Address != want {
			t.Fatalf("synthesis %d: address %s, want %s", i, s.Address, want)
		}
		if wantOut := fmt.Sprintf("build/g%d/prompt-%05d.ulaw", i%10, i); s.Output != wantOut {
			t.Fatalf("synthesis %d: output %s, want %s", i, s.Output, wantOut)
		}
		if p := manifest.PosAt(s.TextSpans, s.Text, 0); p.File != "prompts.csv" || p.Line != i+2 {
			t.Fatalf("synthesis %d: text position %v", i, p)
		}
	}
}

// BenchmarkLoad10k measures load + validation of a 10,000-row for_each
// (SPEC target P8: at most 0.3 s).
func BenchmarkLoad10k(b *testing.B) {
	dir := bigManifest(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		if ds.HasErrors() || len(m.Syntheses) != 10000 {
			b.Fatalf("load: %v", ds)
		}
	}
}
