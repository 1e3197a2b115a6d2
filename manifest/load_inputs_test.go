package manifest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
)

// secretLine is what a file outside the project holds in these tests: a
// line no diagnostic may quote.
const secretLine = "SECRET_OUTSIDE_7f3a9c"

// outsideFile writes a file outside the project dir (beside it) holding
// content, and returns its path.
func outsideFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestInputLinkOutsideRefused: every input read as text or data that is a
// symbolic link leading out of the manifest directory is refused at the
// field (or -var-file) naming it, before it is read: nothing of the file
// outside appears in any diagnostic.
func TestInputLinkOutsideRefused(t *testing.T) {
	const head = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }\n"
	for _, c := range []struct {
		name, manifest, link, content string
		varFile                       bool
		at                            string // where the refusal is
	}{
		{"text_file", head + "syntheses:\n  s: { voice: v, text_file: in/t.txt, output: o/x.wav }\n",
			"in/t.txt", secretLine + "\n", false, "voxform.yaml:5:"},
		{"lexicon", head + "syntheses:\n  s: { voice: v, text: hello, lexicon: in/l.csv, output: o/x.wav }\n",
			"in/l.csv", "term,spoken\nhello," + secretLine + "\n", false, "voxform.yaml:5:"},
		{"for_each", head + "syntheses:\n  s: { voice: v, for_each: in/d.csv, text: \"${each.value.text}\", output: \"o/${each.key}.wav\" }\n",
			"in/d.csv", secretLine + ",text\na,hello\n", false, "voxform.yaml:5:"},
		{"var-file", "version: 1\nvariables:\n  lang: en-IN\n" +
			"voices:\n  v: { model: tts-v2.5, voice: Kaveri, language: \"${var.lang}\" }\n" +
			"syntheses:\n  s: { voice: v, text: hello, output: o/x.wav }\n",
			"vars.json", "{\"lang\": \"" + secretLine + "\"}\n", true, "vars.json:"},
		{"embedding_file", "version: 1\nvoices:\n  v: { model: vc-v1, embedding_file: in/e.json }\n" +
			"syntheses:\n  s: { voice: v, text: hello, output: o/x.wav }\n",
			"in/e.json", "{\"" + secretLine + "\": 1}\n", false, "voxform.yaml:3:"},
		{"reference_audio", "version: 1\nembeddings:\n  e: { reference_audio: in/r.wav, output: o/e.json }\n",
			"in/r.wav", secretLine, false, "voxform.yaml:3:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", c.manifest)
			symlink(t, outsideFile(t, filepath.Base(c.link), c.content), filepath.Join(dir, c.link))
			var opts manifest.LoadOptions
			if c.varFile {
				opts.VarFiles = []string{c.link}
			}
			ds := loadWithin(t, 10*time.Second, dir, opts)
			refused := false
			for _, d := range ds {
				if strings.Contains(d, secretLine) {
					t.Errorf("a diagnostic quotes the file outside: %s", d)
				}
				if strings.HasPrefix(d, c.at) && strings.Contains(d, "error: ") && strings.Contains(d, c.link) &&
					strings.Contains(d, "leads outside the manifest directory through a symbolic link") {
					refused = true
				}
			}
			if !refused {
				t.Errorf("diagnostics %q; want an error at %s refusing %s as a link out of the manifest directory", ds, c.at, c.link)
			}
		})
	}
}

// TestInputLinkInsideRead: a link to a file inside the manifest directory
// (relative or absolute) is read as the file it names, and a file outside
// named explicitly (an absolute path, or one through ..) is read as named.
func TestInputLinkInsideRead(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "project")
	writeFile(t, base, "shared/prompts.csv", "key,text\nb,goodbye\n")
	writeFile(t, dir, "texts/real.txt", "hello from the text file\n")
	symlink(t, "real.txt", filepath.Join(dir, "texts/rel.txt"))
	symlink(t, filepath.Join(dir, "texts/real.txt"), filepath.Join(dir, "texts/abs.txt"))
	writeFile(t, dir, "voxform.yaml", fmt.Sprintf(`version: 1
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  rel: { voice: v, text_file: texts/rel.txt, output: o/rel.wav }
  abs: { voice: v, text_file: texts/abs.txt, output: o/abs.wav }
  shared: { voice: v, for_each: %s, text: "${each.value.text}", output: "o/s-${each.key}.wav" }
  dotdot: { voice: v, for_each: ../shared/prompts.csv, text: "${each.value.text}", output: "o/d-${each.key}.wav" }
`, filepath.Join(base, "shared/prompts.csv")))
	if ds := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{})); len(ds) != 0 {
		t.Errorf("errors: %q", ds)
	}
}

// TestSpecialInputsRefused: an input that is not a regular file is refused
// without being read, even when named explicitly: a device (/dev/zero was
// read up to the limit), a procfs file (/proc/self/environ is the process
// environment, the API key included) and a directory.
func TestSpecialInputsRefused(t *testing.T) {
	for _, c := range []struct{ varFile, want string }{
		{"/dev/zero", "is a device, not a regular file"},
		{"/proc/self/environ", "is a file of the kernel's proc file system, not a regular file"},
		{"/proc/self/status", "is a file of the kernel's proc file system, not a regular file"},
		{"sub", "is a directory, not a regular file"},
	} {
		t.Run(c.varFile, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", "version: 1\nvariables:\n  x: a\n")
			writeFile(t, dir, "sub/f.txt", "")
			got := errorsOf(loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{VarFiles: []string{c.varFile}}))
			want := fmt.Sprintf("%s: error: read -var-file %s: %s", c.varFile, c.varFile, c.want)
			if len(got) != 1 || got[0] != want {
				t.Errorf("errors %q; want [%q]", got, want)
			}
		})
	}
}

// TestManifestLinkNotRead: a *.yaml in the manifest directory that is a
// symbolic link is not read as a manifest (to a file outside or inside):
// a positioned error, and nothing of the file it points to is quoted. A
// *.yaml link named as data is read as data.
func TestManifestLinkNotRead(t *testing.T) {
	const main = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }\n"
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", main+"syntheses:\n  s: { voice: v, for_each: data.yaml, text: \"${each.value}\", output: \"o/${each.key}.wav\" }\n")
	writeFile(t, dir, "data/real.yaml", "a: hello\n")
	symlink(t, "data/real.yaml", filepath.Join(dir, "data.yaml"))
	symlink(t, outsideFile(t, "x.yaml", secretLine+": [unclosed\n"), filepath.Join(dir, "outside.yaml"))
	symlink(t, "voxform.yaml", filepath.Join(dir, "twice.yaml"))
	got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{})
	want := []string{
		"outside.yaml: error: manifest file outside.yaml is a symbolic link; voxform reads only regular files as manifests",
		"twice.yaml: error: manifest file twice.yaml is a symbolic link; voxform reads only regular files as manifests",
	}
	errs := errorsOf(got)
	if len(errs) != len(want) {
		t.Fatalf("errors %q; want %q", errs, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i], w) {
			t.Errorf("error %q; want %q", errs[i], w)
		}
	}
	for _, d := range got {
		if strings.Contains(d, secretLine) {
			t.Errorf("a diagnostic quotes the file outside: %s", d)
		}
	}
}

// TestLexiconYAMLIsNotAManifest: a lexicon named *.yaml beside the
// manifests is read as the lexicon it is, not as a manifest.
func TestLexiconYAMLIsNotAManifest(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }
defaults:
  synthesis: { lexicon: common.yaml }
syntheses:
  s: { voice: v, text: "Call Dr. Rao", lexicon: words.yaml, output: o/x.wav }
  t: { voice: v, text: "Call Dr. Rao", output: o/y.wav }
`)
	writeFile(t, dir, "words.yaml", "- { term: Dr., spoken: Doctor }\n")
	writeFile(t, dir, "common.yaml", "- { term: Rao, spoken: Raow }\n")
	if got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{}); len(got) != 0 {
		t.Errorf("diagnostics %q; want none", got)
	}
}

// TestLexiconExpansionBounded: a text with its lexicon applied is bounded
// per synthesis (MaxSpokenTextBytes) and, all syntheses together, in what
// lexicons add (MaxLexiconAddedBytes); either is refused at the lexicon
// field, naming the limit, without making the long text (a one-line
// lexicon made a 4 MiB text 1 GB, and validate took 17 s and 4 GB).
func TestLexiconExpansionBounded(t *testing.T) {
	spoken := strings.Repeat("x", 500)
	for _, c := range []struct {
		name, block string
		words       int
		want        string
	}{
		{"one text", "s: { voice: v, text_file: t.txt, lexicon: l.csv, output: o/x.wav }", 17_000,
			"voxform.yaml:5:45: error: lexicon l.csv makes the text of synthesis.s longer than 8,388,608 bytes (8 MiB), the limit for a text with its lexicon applied (MaxSpokenTextBytes)"},
		{"all texts", "s: { voice: v, for_each: [a, b, c, d, e, f, g, h, i, j, k, l, m, n], text_file: t.txt, lexicon: l.csv, output: \"o/${each.key}.wav\" }", 10_000,
			"voxform.yaml:5:99: error: lexicon l.csv brings the bytes lexicons add to the texts of this manifest over 67,108,864 (64 MiB), the limit for one manifest (MaxLexiconAddedBytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Kaveri, language: en-IN }\nsyntheses:\n  "+c.block+"\n")
			writeFile(t, dir, "t.txt", strings.Repeat("a ", c.words))
			writeFile(t, dir, "l.csv", "term,spoken\na,"+spoken+"\n")
			start := time.Now()
			got := errorsOf(loadWithin(t, 20*time.Second, dir, manifest.LoadOptions{}))
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("errors %q; want one starting %q", got, c.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("load took %v", d)
			}
		})
	}
	if manifest.MaxSpokenTextBytes != 8<<20 || manifest.MaxLexiconAddedBytes != 64<<20 {
		t.Fatalf("limits %d, %d; the messages above say 8 MiB and 64 MiB", manifest.MaxSpokenTextBytes, manifest.MaxLexiconAddedBytes)
	}
}
