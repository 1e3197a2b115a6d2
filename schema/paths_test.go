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
	_, ds := schema.Load(dir, manifest.LoadOptions{})
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
	_, ds := schema.Load(dir, manifest.LoadOptions{})
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
