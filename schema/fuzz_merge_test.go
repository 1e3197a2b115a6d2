package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// mergeDataFiles are where FuzzMergedLoad writes its data bytes: the same
// bytes in every for_each format, so that a seed's manifest picks one.
var mergeDataFiles = []string{"data/prompts.csv", "data/prompts.tsv", "data/prompts.json", "data/prompts.yaml"}

// FuzzMergedLoad feeds two manifest files, a for_each data file and a
// -var-file to the whole loader: blocks, defaults and variables declared in
// one file and used in the other, duplicates across files, data files in
// every format, variables from a file. Nothing may panic; every diagnostic
// names a file and a non-empty message, and a line within that file when
// the file is one of the inputs; loading twice gives the same diagnostics
// (no map order leaks into messages).
func FuzzMergedLoad(f *testing.F) {
	addMergeSeeds(f)
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		f.Fatal(err)
	}
	// Files are written only when their bytes change: a mutation usually
	// touches one argument, and file writes cost more than a load.
	var lastData, lastVars []byte
	written := false
	f.Fuzz(func(t *testing.T, a, b, data, vars []byte) {
		if !written || !bytes.Equal(data, lastData) {
			for _, name := range mergeDataFiles {
				writeFresh(t, filepath.Join(dir, name), data)
			}
			lastData = slices.Clone(data)
		}
		if !written || !bytes.Equal(vars, lastVars) {
			writeFresh(t, filepath.Join(dir, "vars.yaml"), vars)
			lastVars = slices.Clone(vars)
		}
		written = true
		timer := time.AfterFunc(10*time.Second, func() { panic("load takes over 10 s") })
		defer timer.Stop()
		srcs := map[string][]byte{"a.yaml": a, "b.yaml": b, "vars.yaml": vars}
		for _, name := range mergeDataFiles {
			srcs[name] = data
		}
		load := func() []string {
			m, ds := manifest.LoadSources(dir, []string{"a.yaml", "b.yaml"}, [][]byte{a, b},
				manifest.LoadOptions{NoProbe: true, VarFiles: []string{"vars.yaml"}, Environ: []string{"VOXFORM_VAR_lang=ta-IN"}}, schema.Validator{})
			if m == nil {
				t.Fatal("nil manifest from LoadSources")
			}
			var out []string
			for _, d := range ds {
				checkDiagnostic(t, d, srcs)
				out = append(out, d.String())
			}
			return out
		}
		first, second := load(), load()
		if !slices.Equal(first, second) {
			t.Errorf("two loads differ:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(second, "\n"))
		}
	})
}

// writeFresh writes a new file at path. Removing the old one first spares
// each fuzz run the flush ext4 forces when a truncated file is closed.
func writeFresh(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkDiagnostic holds a diagnostic to FuzzMergedLoad's invariants.
func checkDiagnostic(t *testing.T, d manifest.Diagnostic, srcs map[string][]byte) {
	t.Helper()
	if d.Pos.File == "" {
		t.Errorf("diagnostic without a file: %s", d)
	}
	if strings.TrimSpace(d.Message) == "" {
		t.Errorf("empty message at %s", d.Pos)
	}
	if src, ok := srcs[d.Pos.File]; ok && d.Pos.Line > bytes.Count(src, []byte("\n"))+1 {
		t.Errorf("line %d is past the end of %s (%d lines): %s", d.Pos.Line, d.Pos.File, bytes.Count(src, []byte("\n"))+1, d)
	}
}

// addMergeSeeds: pairs of files from the corpus, every one-file corpus
// manifest split in two at a top-level key, and hand-written splits.
func addMergeSeeds(f *testing.F) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	vars := []byte("lang: hi-IN\ndir: out\n")
	forms := "testdata/valid/foreach-forms/"
	for _, data := range []string{"prompts.csv", "prompts.tsv", "prompts.json", "prompts.yaml"} {
		f.Add(read(forms+"a.yaml"), read(forms+"b.yml"), read(forms+"data/"+data), vars)
	}
	dup := "testdata/invalid/duplicate-across-files/"
	f.Add(read(dup+"a.yaml"), read(dup+"b.yaml"), []byte{}, read("testdata/invalid/vars/vars.yaml"))
	singles, _ := filepath.Glob("testdata/*/*/voxform.yaml")
	for _, s := range singles {
		a, b := splitTopLevel(read(s))
		f.Add(a, b, []byte("key,text\na,hello\n"), vars)
	}
	f.Add([]byte("version: 1\nvariables:\n  lang: hi-IN\n  dir: build\ndefaults:\n  synthesis: { voice: v, output: \"${var.dir}/${each.key}.wav\" }\n"),
		[]byte("voices:\n  v: { model: tts-v2.5, voice: Kaveri, language: \"${var.lang}\" }\nsyntheses:\n  s: { for_each: data/prompts.json, text: \"${each.value.text}\" }\n"),
		[]byte(`[{"key": "a", "text": "hi"}, {"key": "a", "text": "again"}, {"text": "no key"}]`), []byte("lang: bn-IN\nunknown: 1\n"))
	f.Add([]byte("syntheses:\n  s: { for_each: data/prompts.yaml, voice: v, text: \"${each.value}\", output: \"o/${each.key}.wav\" }\n"),
		[]byte("syntheses:\n  s: { text: twice }\nvoices:\n  v: { model: vc-v1, embedding: e }\n"),
		[]byte("a: [1, 2]\nb: {x: &x y, z: *x}\n"), []byte("- not a map\n"))
	// The merge bomb in a manifest split in two, in the data file and in
	// the -var-file.
	bomb := mergeBomb()
	f.Add(bomb[:300], bomb[300:], bomb, bomb)
}

// splitTopLevel splits a manifest before its middle top-level key.
func splitTopLevel(src []byte) ([]byte, []byte) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	var starts []int
	for i, l := range lines {
		if len(l) > 0 && l[0] != ' ' && l[0] != '#' && l[0] != '\n' && i > 0 {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return src, nil
	}
	cut := starts[len(starts)/2]
	return bytes.Join(lines[:cut], nil), bytes.Join(lines[cut:], nil)
}
