package manifest

import (
	"sort"
	"strings"

	"github.com/voxform/voxform/internal/numfmt"
	"go.yaml.in/yaml/v3"
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
	// varNames lists the variables, for "did you mean"; sg answers it.
	varNames []string
	sg       *Suggester
	each     *eachValue // nil outside for_each blocks
	// eachErrs de-duplicates errors (a field not in the data, an unknown
	// variable or voice) across the thousands of instances of one block.
	eachErrs map[string]bool
}

// interpolator evaluates string values of one file.
type interpolator struct {
	files map[string]*File
	lines map[string][]int
	// literals holds the spans of string scalars without references: a
	// default, or a field of a for_each block, is evaluated once per
	// instance, and its spans are the same each time. Resources share
	// them; they are read-only.
	literals map[*yaml.Node][]Span
	// expanded counts the bytes of the string values evaluated (see
	// MaxExpandedBytes); over is set once the limit has been reported,
	// and every later evaluation fails without a message.
	expanded int
	over     bool
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
	if ip.over {
		return nil, nil, false
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
		if !ip.spend(len(s), "", valuePos(file, n), ds) {
			return nil, nil, false
		}
		if !wantSpans {
			return s, nil, true
		}
		return s, ip.literalSpansOf(file, n), true
	}
	if strings.HasPrefix(s, "${") && strings.IndexByte(s, '}') == len(s)-1 && strings.Count(s, "${") == 1 {
		// The common case "${each.value.text}": one reference, nothing else.
		ref := strings.TrimSpace(s[2 : len(s)-1])
		pos := ip.posIn(file, n, 0)
		v, ok := sc.resolve(ref, pos, ds)
		if !ok {
			return nil, nil, false
		}
		str, isScalar := scalarString(v.V)
		if !isScalar {
			ds.Errorf(pos, "${%s} is a %s and cannot be inserted into a string", ref, typeName(v.V)).
				WithHint("refer to one of its fields, like ${%s.FIELD}", ref)
			return nil, nil, false
		}
		if !ip.spend(len(str), ref, pos, ds) {
			return nil, nil, false
		}
		return v.V, []Span{{Pos: v.Pos, Exact: v.Exact}}, true
	}
	return ip.interpolateParts(file, n, sc, ds, wantSpans)
}

// interpolateParts evaluates a string of several parts: literal text and
// references. Positions inside the scalar are found in one pass over it.
func (ip *interpolator) interpolateParts(file string, n *yaml.Node, sc *scope, ds *Diagnostics, wantSpans bool) (any, []Span, bool) {
	s := n.Value
	src := newScalarPos(ip, file, n)
	var b pieces
	var spans []Span
	ok := true
	lit := 0 // start of pending literal in s
	flushLit := func(end int) bool {
		if end <= lit {
			return true
		}
		if !ip.spend(end-lit, "", src.at(lit), ds) {
			return false
		}
		if wantSpans {
			spans = ip.literalSpans(spans, src, b.Len(), s[lit:end], lit)
		}
		b.WriteString(s[lit:end])
		return true
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
			if !flushLit(j-1) || !ip.spend(2, "", src.at(j), ds) {
				return nil, nil, false
			}
			if wantSpans {
				spans = ip.literalSpans(spans, src, b.Len(), "${", j)
			}
			b.WriteString("${")
			i, lit = j+2, j+2
			continue
		}
		end := strings.IndexByte(s[j:], '}')
		if !flushLit(j) {
			return nil, nil, false
		}
		pos := src.at(j)
		if end < 0 {
			ds.Errorf(pos, "unterminated reference %q", s[j:]).WithHint("close it with }, or write $${ for a literal ${")
			return nil, nil, false
		}
		end += j
		ref := strings.TrimSpace(s[j+2 : end])
		v, ok1 := sc.resolve(ref, pos, ds)
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
		if !ip.spend(len(str), ref, pos, ds) {
			return nil, nil, false
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
	if !flushLit(len(s)) {
		return nil, nil, false
	}
	return b.String(), spans, true
}

// pieces is a string written in parts, joined once at the end into a
// string of its exact length: a strings.Builder grows (and copies) as a
// path like "build/${each.value.group}/${each.key}.wav" is written, some
// three allocations for each of 100,000 instances.
type pieces struct {
	first [8]string // the first parts (on the stack)
	k     int       // how many of first are set
	more  []string  // the parts past them
	n     int
}

// WriteString appends s.
func (p *pieces) WriteString(s string) {
	if p.k < len(p.first) {
		p.first[p.k] = s
		p.k++
	} else {
		p.more = append(p.more, s)
	}
	p.n += len(s)
}

// Len is the length of the string written so far.
func (p *pieces) Len() int { return p.n }

// String is the parts joined.
func (p *pieces) String() string {
	if p.k == 1 {
		return p.first[0]
	}
	var b strings.Builder
	b.Grow(p.n)
	for _, s := range p.first[:p.k] {
		b.WriteString(s)
	}
	for _, s := range p.more {
		b.WriteString(s)
	}
	return b.String()
}

// spend counts n bytes of an evaluated value against MaxExpandedBytes. The
// value that crosses the limit is refused at pos (ref names the reference
// that inserts it, or is empty for text written in place); every later
// evaluation fails without a message.
func (ip *interpolator) spend(n int, ref string, pos Pos, ds *Diagnostics) bool {
	ip.expanded += n
	if ip.expanded <= MaxExpandedBytes {
		return true
	}
	ip.over = true
	what := "this value"
	if ref != "" {
		what = "${" + ref + "}"
	}
	ds.Errorf(pos, "%s brings the values expanded into resources over %s bytes (%s), the limit for one manifest",
		what, numfmt.Thousands(MaxExpandedBytes), mib(MaxExpandedBytes)).
		WithHint("each instance of a for_each, and each synthesis a default applies to, gets its own copy: shorten long values, or use them in fewer places")
	return false
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
			key := "var|" + pos.String() + "|" + ref
			if sc.eachErrs[key] {
				return value{}, false
			}
			sc.eachErrs[key] = true
			d := ds.Errorf(pos, "unknown variable %q in ${%s}", parts[1], ref)
			if s := sc.sg.Suggest(parts[1], sc.varNames); s != "" {
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
				if s := sc.sg.Suggest(parts[1], names); s != "" {
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
