package manifest

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// field is one field of a block: where it is written and its value node.
type field struct {
	Name string
	File string
	Key  *yaml.Node
	Val  *yaml.Node
}

// Pos is the position of the field's value.
func (f *field) Pos() Pos { return nodePos(f.File, deref(f.Val)) }

// fieldsOf returns the fields of a mapping block, by name.
func fieldsOf(file string, n *yaml.Node) map[string]*field {
	es := entries(n)
	m := make(map[string]*field, len(es))
	for _, e := range es {
		m[e.Key.Value] = &field{Name: e.Key.Value, File: file, Key: e.Key, Val: e.Val}
	}
	return m
}

// eval interpolates a field's value.
func (x *expander) eval(f *field, sc *scope) (any, []Span, bool) {
	if f == nil || isNull(f.Val) {
		return nil, nil, false
	}
	// Only a text needs to know where each of its parts came from.
	v, spans, ok := x.ip.interpolateSpans(f.File, f.Val, sc, &x.ds, f.Name == "text")
	if !ok {
		x.failed = true
	}
	return v, spans, ok
}

// str evaluates a string field; present is false when the field is
// absent or invalid (an invalid one has been reported).
func (x *expander) str(f *field, sc *scope) (s string, spans []Span, present bool) {
	v, spans, ok := x.eval(f, sc)
	if !ok {
		return "", nil, false
	}
	s, isScalar := scalarString(v)
	if !isScalar {
		x.failed = true
		x.ds.Errorf(f.Pos(), "%s: want a string, not a %s", f.Name, typeName(v))
		return "", nil, false
	}
	return s, spans, true
}

// integer evaluates an integer field.
func (x *expander) integer(f *field, sc *scope) (int64, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0, false
	}
	i, ok := asInt(v)
	if !ok {
		x.failed = true
		x.ds.Errorf(f.Pos(), "%s: want an integer, not %s", f.Name, quoteValue(v))
		return 0, false
	}
	return i, true
}

// number evaluates a numeric field.
func (x *expander) number(f *field, sc *scope) (float64, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0, false
	}
	n, ok := asFloat(v)
	if !ok {
		x.failed = true
		x.ds.Errorf(f.Pos(), "%s: want a number, not %s", f.Name, quoteValue(v))
		return 0, false
	}
	return n, true
}

// boolean evaluates a boolean field.
func (x *expander) boolean(f *field, sc *scope) (bool, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return false, false
	}
	b, ok := asBool(v)
	if !ok {
		x.failed = true
		x.ds.Errorf(f.Pos(), "%s: want true or false, not %s", f.Name, quoteValue(v))
		return false, false
	}
	return b, true
}

// strList evaluates a list of strings; each item is interpolated.
func (x *expander) strList(f *field, sc *scope) ([]string, []Pos, bool) {
	if f == nil || isNull(f.Val) {
		return nil, nil, false
	}
	n := deref(f.Val)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var out []string
	var pos []Pos
	for _, it := range items {
		v, _, ok := x.ip.interpolate(f.File, it, sc, &x.ds)
		if !ok {
			x.failed = true
			continue
		}
		s, isScalar := scalarString(v)
		if !isScalar {
			x.ds.Errorf(nodePos(f.File, deref(it)), "%s: want a list of strings", f.Name)
			continue
		}
		out = append(out, s)
		pos = append(pos, valuePos(f.File, it))
	}
	return out, pos, true
}

// duration evaluates a duration: a Go duration string ("60s", "2m") or a
// number of seconds.
func (x *expander) duration(f *field, sc *scope) (time.Duration, bool) {
	v, _, ok := x.eval(f, sc)
	if !ok {
		return 0, false
	}
	if s, isStr := v.(string); isStr {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err == nil && d > 0 {
			return d, true
		}
		if n, ok := asFloat(s); ok && n > 0 {
			return time.Duration(n * float64(time.Second)), true
		}
	} else if n, ok := asFloat(v); ok && n > 0 && n < 1e9 {
		return time.Duration(n * float64(time.Second)), true
	}
	x.failed = true
	x.ds.Errorf(f.Pos(), "%s: want a positive duration like \"60s\" or \"2m\", not %s", f.Name, quoteValue(v))
	return 0, false
}

// quoteValue renders a value for a message.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return `"` + s + `"`
	}
	if s, ok := scalarString(v); ok {
		return s
	}
	return "a " + typeName(v)
}
