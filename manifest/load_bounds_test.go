package manifest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// mergeBomb is a 582-byte manifest of 8 levels of merge keys, each level
// merging the previous anchor ten times: resolved naively it is 10^8
// merges, which took the loader over 30 s.
func mergeBomb() []byte {
	var b strings.Builder
	b.WriteString("version: 1\nx-0: &a0 {a: 1, b: 2, c: 3, d: 4, e: 5000}\n")
	for i := 1; i <= 8; i++ {
		refs := strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10)
		fmt.Fprintf(&b, "x-%d: &a%d {<<: [%s]}\n", i, i, strings.TrimSuffix(refs, ", "))
	}
	return []byte(b.String())
}

// TestMergeBombRefused: the 582-byte merge bomb is refused at once, at the
// alias where what aliases reach passes the limit, naming the limit. The
// corpus case invalid/alias-bomb holds the same manifest.
func TestMergeBombRefused(t *testing.T) {
	bomb := mergeBomb()
	if len(bomb) != 582 {
		t.Fatalf("the bomb is %d bytes, want 582", len(bomb))
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", string(bomb))
	got := loadWithin(t, 5*time.Second, dir, manifest.LoadOptions{NoProbe: true})
	want := []string{`voxform.yaml:7:16: error: alias *a4 brings the nodes reached through aliases and merge keys over 200,000, the limit for one document` +
		"\nhint: each alias copies its anchor's whole value, and aliases nested in merges multiply: merge each shared block once"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestAliasBombsInEveryYAMLInput: a for_each data file and a -var-file are
// YAML too, and a merge bomb in either is refused in that file.
func TestAliasBombsInEveryYAMLInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
variables:
  lang: hi-IN
voices:
  v: { model: tts-v2.5, voice: Nalini, language: "${var.lang}" }
syntheses:
  s: { for_each: data/rows.yaml, voice: v, text: "${each.value}", output: "o/${each.key}.wav" }
`)
	bomb := strings.Replace(string(mergeBomb()), "version: 1\n", "", 1)
	writeFile(t, dir, "data/rows.yaml", bomb)
	writeFile(t, dir, "vars.yaml", bomb)
	got := errorsOf(loadWithin(t, 5*time.Second, dir, manifest.LoadOptions{NoProbe: true, VarFiles: []string{"vars.yaml"}}))
	want := []string{
		"data/rows.yaml:6:16: error: alias *a4 brings the nodes reached through aliases and merge keys over 200,000, the limit for one document",
		"vars.yaml:6:16: error: alias *a4 brings the nodes reached through aliases and merge keys over 200,000, the limit for one document",
	}
	for i := range got {
		got[i], _, _ = strings.Cut(got[i], "\n")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestAliasLimits: recursive aliases, and long values copied by many
// aliases, are refused at the alias; a document just within both limits
// is not.
func TestAliasLimits(t *testing.T) {
	long := strings.Repeat("12 34 ", 10_000) // 60,000 bytes, one digit run
	head := "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n"
	syntheses := func(n int, text string) string {
		var b strings.Builder
		b.WriteString("syntheses:\n")
		for i := range n {
			fmt.Fprintf(&b, "  s%d: { voice: v, text: %s, output: o/%d.wav }\n", i, text, i)
		}
		return b.String()
	}
	tests := []struct {
		name, doc string
		want      string // the first error, without its hint; "" for none
	}{
		{"recursive sequence", "a: &a [*a]\n", "voxform.yaml:1:8: error: alias *a refers to a value that contains it"},
		{"recursive merge", "x-a: &a {b: {<<: *a}}\n", "voxform.yaml:1:18: error: alias *a refers to a value that contains it"},
		// 70 copies of a 60,000-byte text are 4,200,000 bytes: the 70th
		// (s69, line 75) crosses 4 MiB (4,194,304 bytes).
		{"long text copied by aliases", head + "x-t: &t \"" + long + "\"\n" + syntheses(70, "*t"),
			"voxform.yaml:75:26: error: alias *t brings the bytes of values reached through aliases and merge keys over 4,194,304 (4 MiB), the limit for one document"},
		{"long text within the limit", head + "x-t: &t \"" + long + "\"\n" + syntheses(69, "*t"), ""},
		// A list of 99,999 items is 100,000 nodes: two copies reach the
		// limit, a third passes it.
		{"copies within the limit", "x-l: &l [" + strings.Repeat("p, ", 99_998) + "p]\nx-c: [*l, *l]\n", ""},
		{"copies over the limit", "x-l: &l [" + strings.Repeat("p, ", 99_998) + "p]\nx-c: [*l, *l, *l]\n",
			"voxform.yaml:2:15: error: alias *l brings the nodes reached through aliases and merge keys over 200,000, the limit for one document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", tt.doc)
			got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{NoProbe: true}))
			if tt.want == "" {
				if len(got) > 0 {
					t.Errorf("errors within the limits:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("no error, want %s", tt.want)
			}
			if first, _, _ := strings.Cut(got[0], "\n"); first != tt.want {
				t.Errorf("first error:\n%s\nwant:\n%s", first, tt.want)
			}
		})
	}
}

// padTo returns a valid manifest padded with comment lines of 1,024 bytes
// to exactly size bytes.
func padTo(size int) string {
	var b strings.Builder
	b.WriteString("version: 1\n")
	for b.Len()+1024 <= size {
		b.WriteString("#" + strings.Repeat("x", 1022) + "\n")
	}
	b.WriteString("#" + strings.Repeat("x", size-b.Len()-1))
	return b.String()
}

// TestManifestSizeLimit: a manifest file of MaxManifestBytes is read; one
// byte more is refused at that byte, naming the limit; a manifest that is
// a link to an endless device is refused as a link, not read.
func TestManifestSizeLimit(t *testing.T) {
	const over = "error: manifest file voxform.yaml is larger than 4,194,304 bytes (4 MiB), the limit for a manifest file" +
		"\nhint: split it into several files, or move long lists into a for_each data file"
	if manifest.MaxManifestBytes != 4_194_304 {
		t.Fatalf("MaxManifestBytes = %d; the messages below say 4,194,304", manifest.MaxManifestBytes)
	}
	t.Run("at the limit", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, "voxform.yaml", padTo(manifest.MaxManifestBytes))
		if got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{}); len(got) != 0 {
			t.Errorf("diagnostics: %v", got)
		}
	})
	t.Run("one byte over", func(t *testing.T) {
		dir := t.TempDir()
		// Line 1 is 11 bytes and every other line 1,024: the byte past the
		// limit is byte 1,013 of line 4,097.
		writeFile(t, dir, "voxform.yaml", padTo(manifest.MaxManifestBytes+1))
		got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{})
		if diff := cmp.Diff([]string{"voxform.yaml:4097:1014: " + over}, got); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("a link to /dev/zero", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "voxform.yaml")); err != nil {
			t.Fatal(err)
		}
		got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{})
		want := "voxform.yaml: error: manifest file voxform.yaml is a symbolic link; voxform reads only regular files as manifests"
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("diagnostics %q, want one starting %q", got, want)
		}
	})
}

// TestDataAndVarFileSizeLimits: a for_each data file over MaxDataBytes is
// refused at the for_each naming it, a -var-file over MaxManifestBytes in
// the file; neither is read whole.
func TestDataAndVarFileSizeLimits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
variables:
  lang: hi-IN
voices:
  v: { model: tts-v2.5, voice: Nalini, language: "${var.lang}" }
syntheses:
  s: { for_each: data/big.csv, voice: v, text: "${each.value.text}", output: "o/${each.key}.wav" }
`)
	writeFile(t, dir, "data/big.csv", "key,text\n")
	writeFile(t, dir, "vars.yaml", "lang: hi-IN\n")
	// Sparse files: the sizes cost no disk. The byte past the limit of
	// vars.yaml is on line 2, which starts at byte 12.
	if err := os.Truncate(filepath.Join(dir, "data/big.csv"), manifest.MaxDataBytes+1); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "vars.yaml"), manifest.MaxManifestBytes+1); err != nil {
		t.Fatal(err)
	}
	got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{VarFiles: []string{"vars.yaml"}}))
	want := []string{
		"vars.yaml:2:4194293: error: -var-file vars.yaml is larger than 4,194,304 bytes (4 MiB), the limit for a -var-file" +
			"\nhint: split it into several files, or move long lists into a for_each data file",
		`voxform.yaml:7:18: error: for_each file "data/big.csv": larger than 16,777,216 bytes (16 MiB), the limit for a for_each data file`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestGlobMatchesBounded: every input pattern is matched against the files
// below its directory prefix, walked once per load; past
// MaxGlobMatches names matched in all, the pattern that crosses the limit
// is refused.
func TestGlobMatchesBounded(t *testing.T) {
	const files = 100
	if manifest.MaxGlobMatches != 2_000_000 {
		t.Fatalf("MaxGlobMatches = %d; the patterns below assume 2,000,000", manifest.MaxGlobMatches)
	}
	manifestOf := func(patterns int) string {
		var b strings.Builder
		b.WriteString("version: 1\ntranscriptions:\n  t:\n    api: batch\n    language_code: hi-IN\n    output_dir: out\n    inputs:\n")
		for i := range patterns {
			fmt.Fprintf(&b, "      - rec/**/n%d.wav\n", i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		patterns int
		want     []string
	}{
		{patterns: 20_000},
		{patterns: 20_001, want: []string{`voxform.yaml:20008:9: error: input pattern "rec/**/n20000.wav" brings the file names matched against input patterns over 2,000,000, the limit for one manifest` +
			"\nhint: list fewer patterns, or narrow their directory prefixes"}},
	} {
		t.Run(fmt.Sprint(tt.patterns), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", manifestOf(tt.patterns))
			for i := range files {
				writeFile(t, dir, fmt.Sprintf("rec/%03d.txt", i), "")
			}
			got := errorsOf(loadWithin(t, 30*time.Second, dir, manifest.LoadOptions{NoProbe: true}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWideMergesAccepted: a large manifest that shares its settings
// through anchors and nested merge keys, as a prompt library would, loads
// with every merge applied: its aliases reach 120,000 nodes (20 per
// synthesis), 60% of MaxAliasNodes.
func TestWideMergesAccepted(t *testing.T) {
	const n = 6000
	var b strings.Builder
	b.WriteString(`version: 1
x-telephony: &telephony { audio_config: { container: mulaw, sample_rate: 8000 } }
x-narrator: &narrator { voice: narrator }
x-prompt: &prompt { <<: [*telephony, *narrator], language: hi-IN }
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: en-IN }
  other: { model: tts-v2.5, voice: Deepak, language: en-IN }
syntheses:
`)
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&b, "  p%d: { <<: [*prompt, *telephony, *narrator], text: hello there, output: build/p%d.ulaw }\n", i, i)
		} else {
			fmt.Fprintf(&b, "  p%d: { <<: *prompt, voice: other, text: welcome back, output: build/p%d.ulaw }\n", i, i)
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	var m *manifest.Manifest
	var ds manifest.Diagnostics
	done := make(chan struct{})
	go func() { m, ds = manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{}); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("load still running after 30 s")
	}
	if len(ds) != 0 {
		t.Fatalf("%d diagnostics, the first: %s", len(ds), ds[0])
	}
	if len(m.Syntheses) != n {
		t.Fatalf("%d syntheses, want %d", len(m.Syntheses), n)
	}
	for _, s := range m.Syntheses {
		want := "narrator"
		if i, _ := strconv.Atoi(strings.TrimPrefix(s.Address, "synthesis.p")); i%2 == 1 {
			want = "other"
		}
		if s.Voice != want || s.Language != "hi-IN" || s.AudioConfig == nil || s.AudioConfig.Container != "mulaw" {
			t.Fatalf("%s: voice %s, language %s, audio config %+v; want voice %s, hi-IN, mulaw", s.Address, s.Voice, s.Language, s.AudioConfig, want)
		}
	}
}

// TestNamedPipeInputsRefused: a named pipe where a text_file, a lexicon or
// a for_each data file should be is refused at the field naming it; the
// load does not wait for a writer that never comes.
func TestNamedPipeInputsRefused(t *testing.T) {
	for _, c := range []struct{ name, field, pipe string }{
		{"text_file", `text_file: in/pipe.txt`, "in/pipe.txt"},
		{"lexicon", `text: "hello", lexicon: in/pipe.csv`, "in/pipe.csv"},
		{"for_each", `for_each: in/pipe.csv, text: "${each.value.text}"`, "in/pipe.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", `version: 1
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  s: { voice: v, `+c.field+`, output: "o/x.wav" }
`)
			if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(c.pipe)), 0o644); err != nil {
				t.Fatal(err)
			}
			got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{}))
			if len(got) != 1 || !strings.Contains(got[0], c.pipe) || !strings.Contains(got[0], "named pipe") {
				t.Errorf("errors %q, want one naming %s as a named pipe", got, c.pipe)
			}
		})
	}
}
