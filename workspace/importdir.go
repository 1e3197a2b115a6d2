package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// MaxImportFiles bounds the files one 'voxform import -dir' adopts.
const MaxImportFiles = 100_000

// MatchPattern is a compiled -match PATTERN of 'voxform import -dir': a
// file name with "{key}" once (a for_each key, or the name of a block
// without for_each) and optionally "{block}" once (the block's name);
// every other character stands for itself.
type MatchPattern struct {
	re       *regexp.Regexp
	keyGroup int
	blockGrp int // 0: no {block}
}

// CompileMatch compiles pattern (see MatchPattern).
func CompileMatch(pattern string) (*MatchPattern, error) {
	if strings.Count(pattern, "{key}") != 1 || strings.Count(pattern, "{block}") > 1 {
		return nil, fmt.Errorf("-match %q: want {key} once (and {block} at most once), as in {key}.wav or menu_{key}.wav", pattern)
	}
	if strings.ContainsAny(pattern, `/\`) {
		return nil, fmt.Errorf("-match %q: a file name, without a directory", pattern)
	}
	mp := &MatchPattern{}
	var expr strings.Builder
	expr.WriteString("^")
	group := 0
	for rest := pattern; rest != ""; {
		i := strings.IndexByte(rest, '{')
		switch {
		case strings.HasPrefix(rest, "{key}"):
			group++
			mp.keyGroup = group
			expr.WriteString("(.+?)")
			rest = rest[len("{key}"):]
		case strings.HasPrefix(rest, "{block}"):
			group++
			mp.blockGrp = group
			expr.WriteString("([A-Za-z_][A-Za-z0-9_-]*)")
			rest = rest[len("{block}"):]
		case i < 0:
			expr.WriteString(regexp.QuoteMeta(rest))
			rest = ""
		case i == 0:
			expr.WriteString(regexp.QuoteMeta("{"))
			rest = rest[1:]
		default:
			expr.WriteString(regexp.QuoteMeta(rest[:i]))
			rest = rest[i:]
		}
	}
	expr.WriteString("$")
	mp.re = regexp.MustCompile(expr.String())
	return mp, nil
}

// match returns the key and block ("" without {block}) name holds.
func (mp *MatchPattern) match(name string) (key, block string, ok bool) {
	m := mp.re.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	if mp.blockGrp > 0 {
		block = m[mp.blockGrp]
	}
	return m[mp.keyGroup], block, true
}

// MatchDir maps the files of dir whose names match mp to the declared
// syntheses of m (see MatchPattern), sorted by file name. Entries that do
// not match are left alone; a matching one that is not a regular file (a
// symbolic link included, which could lead anywhere), that names no
// declared synthesis or more than one, or more than MaxImportFiles
// matching, is an error.
func MatchDir(m *manifest.Manifest, dir string, mp *MatchPattern) ([]ImportFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("import -dir: %w", err)
	}
	byKey := map[string][]string{}
	for _, s := range m.Syntheses {
		a, err := state.ParseAddress(s.Address)
		if err != nil {
			continue
		}
		key := a.Name
		if a.HasKey {
			key = a.Key
		}
		byKey[key] = append(byKey[key], s.Address)
	}
	var out []ImportFile
	var errs []error
	for _, e := range entries {
		key, block, ok := mp.match(e.Name())
		if !ok {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			errs = append(errs, fmt.Errorf("%s: not a regular file", p))
			continue
		}
		addr, err := pickAddress(byKey[key], block)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		if out = append(out, ImportFile{Address: addr, Path: p}); len(out) > MaxImportFiles {
			return nil, fmt.Errorf("import -dir %s: more than %d files match, the limit of one import (MaxImportFiles)", dir, MaxImportFiles)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("import -dir %s: %w", dir, errors.Join(errs...))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("import -dir %s: no file matches", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// pickAddress is the one address of addrs in block ("": any).
func pickAddress(addrs []string, block string) (string, error) {
	var found []string
	for _, a := range addrs {
		if p, _ := state.ParseAddress(a); block == "" || p.Name == block {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 0:
		return "", errors.New("names no declared synthesis")
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("names %s and %s: put {block} in the pattern", found[0], found[1])
}

// ImportDir is Import of the files MatchDir finds.
func (s *Session) ImportDir(ctx context.Context, m *manifest.Manifest, dir string, mp *MatchPattern, opts ImportOptions) ([]Imported, error) {
	files, err := MatchDir(m, dir, mp)
	if err != nil {
		return nil, err
	}
	return s.Import(ctx, m, files, opts)
}
