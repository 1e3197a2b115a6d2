package manifest

import (
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// value is a variable or for_each value with the position it came from.
type value struct {
	V     any
	Pos   Pos
	Exact bool // the source holds a string value verbatim at Pos
}

// eachValue is the current for_each element of an instance.
type eachValue struct {
	Key   value
	Value value
	// Fields holds the fields when Value is an inline map; data file rows
	// use Cols (shared by all rows of a file) and Row instead.
	Fields map[string]value
	Cols   map[string]int
	Row    []value
}

// isMap reports whether the element's value has fields.
func (e *eachValue) isMap() bool { return e.Fields != nil || e.Cols != nil }

// field returns one field of the element's value.
func (e *eachValue) field(name string) (value, bool) {
	if e.Cols != nil {
		i, ok := e.Cols[name]
		if !ok || i >= len(e.Row) {
			return value{}, false
		}
		return e.Row[i], true
	}
	v, ok := e.Fields[name]
	return v, ok
}

// fieldNames lists the element's fields, sorted.
func (e *eachValue) fieldNames() []string {
	if e.Cols != nil {
		return mapKeys(e.Cols)
	}
	return mapKeys(e.Fields)
}

// scope is what ${...} references resolve against.
type scope struct {
	vars map[string]value
	each *eachValue // nil outside for_each blocks
	// eachErrs de-duplicates "field not in the data" errors across the
	// thousands of instances of one block.
	eachErrs map[string]bool
}

// interpolator evaluates string values of one file.
type interpolator struct {
	files map[string]*File
	lines map[string][]int
}

// interpolate evaluates the ${...} references of a scalar. A string that
// is exactly one reference keeps the referenced value's type (so that
// `speed: "${var.speed}"` can be a number); otherwise the result is a
// string. spans say where each part of a string came from.
func (ip *interpolator) interpolate(file string, n *yaml.Node, sc *scope, ds *Diagnostics) (any, []Span, bool) {
	return ip.interpolateSpans(file, n, sc, ds, true)
}

// interpolateSpans is interpolate; spans are computed only when wantSpans.
func (ip *interpolator) interpolateSpans(file string, n *yaml.Node, sc *scope, ds *Diagnostics, wantSpans bool) (any, []Span, bool) {
	n = deref(n)
	if n == nil {
		return nil, nil, true
	}
	if n.Kind != yaml.ScalarNode {
		v, err := ToJSON(n)
		if err != nil {
			ds.Errorf(nodePos(file, n), "%v", err)
			return nil, nil, false
		}
		return v, nil, true
	}
	if n.ShortTag() != "!!str" {
		return scalarValue(n), []Span{{Pos: nodePos(file, n)}}, true
	}
	s := n.Value
	if !strings.Contains(s, "${") {
		if !wantSpans {
			return s, nil, true
		}
		return s, ip.literalSpans(file, n, 0, s, 0), true
	}
	if strings.HasPrefix(s, "${") && strings.IndexByte(s, '}') == len(s)-1 && strings.Count(s, "${") == 1 {
		// The common case "${each.value.text}": one reference, nothing else.
		ref := strings.TrimSpace(s[2 : len(s)-1])
		v, ok := sc.resolve(ref, ip.posIn(file, n, 0), ds)
		if !ok {
			return nil, nil, false
		}
		if _, isScalar := scalarString(v.V); !isScalar {
			ds.Errorf(ip.posIn(file, n, 0), "${%s} is a %s and cannot be inserted into a string", ref, typeName(v.V)).
				WithHint("refer to one of its fields, like ${%s.FIELD}", ref)
			return nil, nil, false
		}
		return v.V, []Span{{Pos: v.Pos, Exact: v.Exact}}, true
	}
	var b strings.Builder
	var spans []Span
	ok := true
	lit := 0 // start of pending literal in s
	flushLit := func(end int) {
		if end > lit {
			if wantSpans {
				spans = append(spans, ip.literalSpans(file, n, b.Len(), s[lit:end], lit)...)
			}
			b.WriteString(s[lit:end])
		}
	}
	var whole any
	refs := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			break
		}
		j += i
		if j > 0 && s[j-1] == '$' { // $${ is a literal ${
			flushLit(j - 1)
			if wantSpans {
				spans = append(spans, ip.literalSpans(file, n, b.Len(), "${", j)...)
			}
			b.WriteString("${")
			i, lit = j+2, j+2
			continue
		}
		end := strings.IndexByte(s[j:], '}')
		pos := ip.posIn(file, n, j)
		if end < 0 {
			ds.Errorf(pos, "unterminated reference %q", s[j:]).WithHint("close it with }, or write $${ for a literal ${")
			return nil, nil, false
		}
		end += j
		ref := strings.TrimSpace(s[j+2 : end])
		v, ok1 := sc.resolve(ref, pos, ds)
		flushLit(j)
		i, lit = end+1, end+1
		refs++
		if !ok1 {
			ok = false
			continue
		}
		str, isScalar := scalarString(v.V)
		if !isScalar {
			ds.Errorf(pos, "${%s} is a %s and cannot be inserted into a string", ref, typeName(v.V)).
				WithHint("refer to one of its fields, like ${%s.FIELD}", ref)
			ok = false
			continue
		}
		whole = v.V
		if wantSpans {
			spans = append(spans, Span{Offset: b.Len(), Pos: v.Pos, Exact: v.Exact})
		}
		b.WriteString(str)
	}
	if !ok {
		return nil, nil, false
	}
	if refs == 1 && lit == len(s) && strings.HasPrefix(s, "${") {
		if _, isStr := whole.(string); !isStr {
			return whole, spans, true
		}
	}
	flushLit(len(s))
	return b.String(), spans, true
}

// resolve evaluates one reference: var.NAME, each.key, each.value or
// each.value.FIELD.
func (sc *scope) resolve(ref string, pos Pos, ds *Diagnostics) (value, bool) {
	var buf [4]string
	parts := splitRef(ref, buf[:0])
	switch {
	case parts[0] == "var" && len(parts) == 2:
		v, ok := sc.vars[parts[1]]
		if !ok {
			d := ds.Errorf(pos, "unknown variable %q in ${%s}", parts[1], ref)
			if s := Suggest(parts[1], mapKeys(sc.vars)); s != "" {
				d.WithHint("did you mean %q?", s)
			} else {
				d.WithHint("declare it under variables:, or pass -var %s=VALUE", parts[1])
			}
			return value{}, false
		}
		return v, true
	case parts[0] == "each" && len(parts) >= 2 && len(parts) <= 3:
		if sc.each == nil {
			ds.Errorf(pos, "${%s} is only available in a block with for_each", ref)
			return value{}, false
		}
		return sc.resolveEach(ref, parts[1:], pos, ds)
	}
	ds.Errorf(pos, "unknown reference ${%s}", ref).
		WithHint("references are ${var.NAME}, ${each.key}, ${each.value} and ${each.value.FIELD}; write $${ for a literal ${")
	return value{}, false
}

func (sc *scope) resolveEach(ref string, parts []string, pos Pos, ds *Diagnostics) (value, bool) {
	e := sc.each
	switch {
	case parts[0] == "key" && len(parts) == 1:
		return e.Key, true
	case parts[0] == "value" && len(parts) == 1:
		return e.Value, true
	case parts[0] == "value" && len(parts) == 2:
		if !e.isMap() {
			ds.Errorf(pos, "${%s}: each.value is a %s, not a map with fields", ref, typeName(e.Value.V)).
				WithHint("use ${each.value}")
			return value{}, false
		}
		v, ok := e.field(parts[1])
		if !ok {
			names := e.fieldNames()
			key := pos.String() + "|" + parts[1] + "|" + strings.Join(names, ",")
			if !sc.eachErrs[key] {
				sc.eachErrs[key] = true
				d := ds.Errorf(pos, "each.value has no field %q (key %q)", parts[1], e.Key.V)
				if s := Suggest(parts[1], names); s != "" {
					d.WithHint("did you mean %q?", s)
				} else {
					d.WithHint("fields are: %s", strings.Join(names, ", "))
				}
			}
			return value{}, false
		}
		return v, true
	}
	ds.Errorf(pos, "unknown reference ${%s}", ref).
		WithHint("inside for_each use ${each.key}, ${each.value} or ${each.value.FIELD}")
	return value{}, false
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// literalSpans describes literal text copied from scalar n at byte offset
// srcOff of its value, placed at offset dst of the result. Block scalars
// get one span per line, since their lines are indented in the source.
func (ip *interpolator) literalSpans(file string, n *yaml.Node, dst int, text string, srcOff int) []Span {
	exact := n.Style&(yaml.DoubleQuotedStyle) == 0 || !strings.Contains(n.Value, "\\")
	spans := []Span{{Offset: dst, Pos: ip.posIn(file, n, srcOff), Exact: exact}}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return spans
	}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			spans = append(spans, Span{Offset: dst + i + 1, Pos: ip.posIn(file, n, srcOff+i+1), Exact: exact})
		}
	}
	return spans
}

// posIn returns the source position of byte offset off of scalar n's value.
func (ip *interpolator) posIn(file string, n *yaml.Node, off int) Pos {
	p := nodePos(file, n)
	if off > len(n.Value) {
		off = len(n.Value)
	}
	before := n.Value[:off]
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		line := n.Line + 1 + strings.Count(before, "\n")
		lineStart := strings.LastIndexByte(before, '\n') + 1
		col := utf8.RuneCountInString(before[lineStart:])
		// The source line is indented by the block's indentation plus
		// the value line's own leading spaces.
		own := len(n.Value[lineStart:]) - len(strings.TrimLeft(n.Value[lineStart:], " "))
		return Pos{File: file, Line: line, Col: ip.indent(file, line) - own + col + 1}
	case strings.Contains(before, "\n"):
		// A multi-line flow scalar: the line is right, the column is not
		// reliable after folding; point at the line's start.
		return Pos{File: file, Line: n.Line + strings.Count(before, "\n"), Col: 1}
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		p.Col++
	}
	p.Col += utf8.RuneCountInString(before)
	return p
}

// indent returns the number of leading spaces of a line of a file.
func (ip *interpolator) indent(file string, line int) int {
	f := ip.files[file]
	if f == nil {
		return 0
	}
	starts, ok := ip.lines[file]
	if !ok {
		starts = []int{0}
		for i, c := range f.Src {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		ip.lines[file] = starts
	}
	if line < 1 || line > len(starts) {
		return 0
	}
	n := 0
	for i := starts[line-1]; i < len(f.Src) && f.Src[i] == ' '; i++ {
		n++
	}
	return n
}

// splitRef splits a reference at dots into parts appended to buf (at most
// four; a longer reference keeps its tail in the last part, which no rule
// accepts), without allocating for the usual short references.
func splitRef(ref string, buf []string) []string {
	for len(buf) < 3 {
		i := strings.IndexByte(ref, '.')
		if i < 0 {
			break
		}
		buf = append(buf, ref[:i])
		ref = ref[i+1:]
	}
	return append(buf, ref)
}
