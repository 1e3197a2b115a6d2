package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// An output whose directory is a symbolic link out of the manifest
// directory (or into .voxform/) is an error at the output's position; a
// link that stays inside is fine.
func TestOutputThroughSymlinkedDirectory(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, ".voxform"), filepath.Join(dir, "real")} {
		os.MkdirAll(d, 0o755)
	}
	for link, target := range map[string]string{"out": outside, "cache": ".voxform", "inside": "real"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(`version: 1
voices:
  n: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  a: { voice: n, text: "one", output: out/a.wav }
  b: { voice: n, text: "two", output: cache/b.wav }
  c: { voice: n, text: "three", output: inside/c.wav }
`), 0o644)
	_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	var errs []string
	for _, d := range ds {
		if d.Severity == manifest.SeverityError {
			errs = append(errs, d.String())
		}
	}
	got := strings.Join(errs, "\n")
	if len(errs) != 2 || !strings.Contains(got, `voxform.yaml:5:`) || !strings.Contains(got, "outside the manifest directory") ||
		!strings.Contains(got, `voxform.yaml:6:`) || !strings.Contains(got, ".voxform/") {
		t.Fatalf("diagnostics:\n%s", got)
	}
}

// Two outputs that are one file through a link inside the tree are one
// path: the second is an error, as a plain duplicate is.
func TestOutputsSameFileThroughLink(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(`version: 1
voices:
  n: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  a: { voice: n, text: "one", output: alias/x.wav }
  b: { voice: n, text: "two", output: real/x.wav }
`), 0o644)
	_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	var errs []string
	for _, d := range ds {
		if d.Severity == manifest.SeverityError {
			errs = append(errs, d.String())
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "is also written by synthesis.a") {
		t.Fatalf("diagnostics: %q", errs)
	}
}

// Cue files are outputs: each is checked as output: is, at its own
// position (inside the manifest directory, written by one resource, not
// an input, not under another output), and an unknown cue format is a
// schema error.
func TestCuePaths(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "chapter.txt"), []byte("एक कहानी।"), 0o644)
	os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(`version: 1
voices:
  n: { model: tts-v3.0, voice: Shivani, language: hi-IN }
syntheses:
  a: { voice: n, text: "one", output: out/a.wav, cues: { json: out/a.json, vtt: ../a.vtt } }
  b: { voice: n, text: "two", output: out/b.wav, cues: { json: out/a.json } }
  c: { voice: n, text: "three", output: out/c.wav, cues: { vtt: out/c.wav } }
  d: { voice: n, text_file: chapter.txt, output: out/d.wav, cues: { vtt: chapter.txt } }
  e: { voice: n, text: "five", output: out/e.wav, cues: { srt: out/e.srt } }
`), 0o644)
	_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	var errs []string
	for _, d := range ds {
		if d.Severity == manifest.SeverityError {
			errs = append(errs, d.String())
		}
	}
	got := strings.Join(errs, "\n")
	for _, want := range []string{
		`voxform.yaml:5:81: error: output "../a.vtt" is outside the manifest directory`,
		`voxform.yaml:6:64: error: output "out/a.json" of synthesis.b is also written by synthesis.a`,
		`voxform.yaml:7:65: error: output "out/c.wav" of synthesis.c is also written by synthesis.c`,
		`voxform.yaml:8:74: error: output "chapter.txt" of synthesis.d is also an input (a text_file or lexicon)`,
		`voxform.yaml:9:59: error: unknown field "srt" in syntheses.e.cues`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if len(errs) != 5 {
		t.Errorf("%d errors, want 5:\n%s", len(errs), got)
	}
}
