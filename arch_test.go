package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers is the house drawn from imports: a package may import only the
// project packages of lower layers (the standard library and modules
// aside). The emulator is a second implementation of the service on
// purpose: it shares audio and nothing of voxform's idea of the contract.
var layers = [][]string{
	{"internal/numfmt", "internal/junit", "internal/clock", "internal/heaptest", "internal/fieldtest", "internal/rare"},
	{"listen", "deliver"},
	{"audio/internal/mp3", "audio/internal/kaiser", "audio/ogg", "internal/untrusted", "redact"},
	{"audio", "transcript", "owned", "narration", "internal/servers", "internal/cdp", "redact/corpus"},
	{"audio/loudness", "audio/join", "audio/encode", "audio/mute", "audio/internal/audiotest", "contract", "internal/miniotest", "internal/pgtest", "provenance"},
	{"state", "cache", "emulator/internal/emu", "audio/master"},
	{"manifest", "speechapi", "emulator/internal/recog", "emulator/internal/synth"},
	{"schema", "planner", "emulator"},
	{"executor", "cli/planview", "report"},
	{"workspace"},
	{"cli"},
	{""}, // main
}

const module = "github.com/voxform/voxform"

func layerOf(pkg string) int {
	for i, l := range layers {
		if slices.Contains(l, pkg) {
			return i
		}
	}
	return -1
}

// TestImportLayers: no package imports one of its own layer or above (no
// upward arrow, so no circle), and every package has a layer.
func TestImportLayers(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if base := d.Name(); path != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "e2e" || base == "bench" || base == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = ""
		}
		from := layerOf(pkg)
		if from < 0 {
			t.Errorf("package %q has no layer", pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			imported := strings.TrimPrefix(p, module+"/")
			if strings.HasPrefix(pkg, "emulator") && imported != "audio" && !strings.HasPrefix(imported, "audio/") && !strings.HasPrefix(imported, "emulator/") {
				t.Errorf("%s imports %s: the emulator is an independent implementation (audio and its subpackages only)", path, p)
			}
			to := layerOf(imported)
			if to < 0 || to >= from {
				t.Errorf("%s imports %s: an arrow up or across the layers", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// loaderSteps are the steps of manifest.Load, which no other package
// takes one by one: a manifest is read where it is loaded, and the
// validator is reached through the manifest.Validator Load is given.
var loaderSteps = []string{"Parse", "ParseSources", "Expand"}

// TestManifestLoadsItself: outside package manifest, no source file calls
// the loader's steps (tests aside: they may look between them).
func TestManifestLoadsItself(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || path == "manifest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := importName(f, module+"/manifest")
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(loaderSteps, sel.Sel.Name) {
					t.Errorf("%s: manifest.%s: read a manifest with manifest.Load", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// importName is the name f gives the package imported from path, or "".
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if strings.Trim(imp.Path.Value, `"`) != path {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return path[strings.LastIndexByte(path, '/')+1:]
	}
	return ""
}
