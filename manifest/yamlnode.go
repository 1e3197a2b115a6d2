package manifest

import (
	"net/url"

	"go.yaml.in/yaml/v3"
)

// entry is one key/value pair of a YAML mapping after aliases and merge
// keys are resolved.
type entry struct {
	Key *yaml.Node
	Val *yaml.Node
}

// maxMergeDepth bounds merge-key nesting so that a hostile document cannot
// make resolution loop or explode.
const maxMergeDepth = 32

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxMergeDepth; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return deref(n.Content[0])
	}
	return n
}

// entries returns the pairs of a mapping node in document order, with merge
// keys (<<) resolved as YAML defines them: keys of the mapping itself win
// over merged ones, and earlier merged mappings win over later ones.
func entries(n *yaml.Node) []entry {
	return entriesDepth(deref(n), 0)
}

func entriesDepth(n *yaml.Node, depth int) []entry {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxMergeDepth {
		return nil
	}
	var own, merged []entry
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			v = deref(v)
			if v == nil {
				continue
			}
			switch v.Kind {
			case yaml.MappingNode:
				merged = append(merged, entriesDepth(v, depth+1)...)
			case yaml.SequenceNode:
				for _, m := range v.Content {
					merged = append(merged, entriesDepth(deref(m), depth+1)...)
				}
			}
			continue
		}
		own = append(own, entry{k, v})
	}
	if len(merged) == 0 {
		return own
	}
	seen := make(map[string]bool, len(own)+len(merged))
	out := make([]entry, 0, len(own)+len(merged))
	for _, e := range own {
		seen[e.Key.Value] = true
		out = append(out, e)
	}
	for _, e := range merged {
		if !seen[e.Key.Value] {
			seen[e.Key.Value] = true
			out = append(out, e)
		}
	}
	return out
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "" || k.Style == 0)
}

// lookup returns the value of key in mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for _, e := range entries(n) {
		if e.Key.Value == key {
			return deref(e.Val)
		}
	}
	return nil
}

// isNull reports whether n is absent or a YAML null.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// NodeAt resolves a JSON pointer (as the JSON Schema validator reports
// instance locations) against a YAML tree. It returns the deepest node
// found, its key node when the last step was a mapping key, and whether
// the whole pointer resolved.
func NodeAt(root *yaml.Node, pointer string) (val, key *yaml.Node, ok bool) {
	return (&Locator{root: root}).At(pointer)
}

// Locator resolves many JSON pointers against one YAML tree, as NodeAt
// does, indexing each mapping's keys (merge keys resolved) the first time a
// pointer passes through it. One schema error per unknown field of a large
// mapping then costs a map lookup each, not a scan of the mapping each.
type Locator struct {
	root *yaml.Node
	keys map[*yaml.Node]map[string]entry // nil: scan, as NodeAt does
}

// NewLocator returns a Locator over root.
func NewLocator(root *yaml.Node) *Locator {
	return &Locator{root: root, keys: map[*yaml.Node]map[string]entry{}}
}

// At is NodeAt(root, pointer).
func (l *Locator) At(pointer string) (val, key *yaml.Node, ok bool) {
	n := deref(l.root)
	if pointer == "" || pointer == "/" {
		return n, nil, n != nil
	}
	for _, tok := range SplitPointer(pointer) {
		if n == nil {
			return nil, key, false
		}
		switch n.Kind {
		case yaml.MappingNode:
			e, found := l.lookup(n, tok)
			if !found {
				return n, key, false
			}
			n, key = deref(e.Val), e.Key
		case yaml.SequenceNode:
			i, err := atoiStrict(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n, key, false
			}
			n, key = deref(n.Content[i]), nil
		default:
			return n, key, false
		}
	}
	return n, key, true
}

// lookup finds the entry of key tok in mapping n.
func (l *Locator) lookup(n *yaml.Node, tok string) (entry, bool) {
	if l.keys == nil {
		for _, e := range entries(n) {
			if e.Key.Value == tok {
				return e, true
			}
		}
		return entry{}, false
	}
	idx, ok := l.keys[n]
	if !ok {
		es := entries(n)
		idx = make(map[string]entry, len(es))
		for _, e := range es {
			if _, dup := idx[e.Key.Value]; !dup {
				idx[e.Key.Value] = e
			}
		}
		l.keys[n] = idx
	}
	e, found := idx[tok]
	return e, found
}

// SplitPointer splits a JSON pointer into unescaped tokens (the schema
// validator also URL-escapes them).
func SplitPointer(p string) []string {
	if len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			tok := p[start:i]
			if u, err := url.PathUnescape(tok); err == nil {
				tok = u
			}
			out = append(out, unescapePointer(tok))
			start = i + 1
		}
	}
	return out
}

func unescapePointer(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && i+1 < len(s) {
			switch s[i+1] {
			case '0':
				b = append(b, '~')
				i++
				continue
			case '1':
				b = append(b, '/')
				i++
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

func atoiStrict(s string) (int, error) {
	if s == "" || len(s) > 9 {
		return 0, errNotIndex
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errNotIndex
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
