package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// audioPackages are the packages whose exported names
// TestAudioExportsAreUsed checks.
var audioPackages = []string{"audio", "audio/loudness", "audio/join", "audio/ogg"}

// exportedUnused are the exported names of audioPackages that no other
// package names, and why they stay exported.
var exportedUnused = map[string]string{
	"audio.MinSampleRate": "Format's lower bound, beside MaxSampleRate, which others use",
	"audio.ErrInvalid":    "what ValidateRawAt's and ValidateReader's errors wrap",
	"audio.Validate":      "ValidateRawAt's and ValidateReader's sibling for a path",
	"audio.ContainerAAC":  "a value of Info.Container",
	"audio.ContainerM4A":  "a value of Info.Container",
	"audio.ContainerAMR":  "a value of Info.Container",
	"audio.Decoded":       "the result of Decode",
	"audio.Resampler":     "the result of NewResampler",
	"audio.SampleReader":  "the result of NewSampleReader",
	"audio.SampleWriter":  "the result of NewSampleWriter",
	"audio.ALawDecode":    "one of the four G.711 functions, beside MuLawDecode",
	"join.Joiner":         "the result of NewJoiner",
	"ogg.MaxPageSize":     "the bound package ogg promises a page keeps to",
}

// TestAudioExportsAreUsed: every exported top-level name of the audio
// packages is named by another package (or its tests), or is in
// exportedUnused with its reason: a name only its own package and its own
// tests use is unexported, and the tests reach it through export_test.go.
func TestAudioExportsAreUsed(t *testing.T) {
	exported := map[string]bool{} // "audio/join.NewJoiner"
	used := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if slices.Contains(audioPackages, pkg) && !strings.HasSuffix(path, "_test.go") {
			for _, name := range topLevelExported(f) {
				exported[pkg+"."+name] = true
			}
		}
		for _, imp := range audioPackages {
			name := importName(f, module+"/"+imp)
			if name == "" || imp == pkg {
				continue // not imported, or a file of the package or of its own tests
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
						used[imp+"."+sel.Sel.Name] = true
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(exported)) {
		short := strings.TrimPrefix(name, "audio/")
		if !used[name] && exportedUnused[short] == "" {
			t.Errorf("%s is exported, and no other package uses it: unexport it", short)
		}
	}
}

// topLevelExported lists the exported functions, types, variables and
// constants f declares.
func topLevelExported(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}
