package manifest

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxValueNodes bounds the size of a converted value, so that an alias
// bomb (an anchor referenced many times, nested) fails instead of eating
// memory.
const maxValueNodes = 1_000_000

// ErrTooLarge is returned by ToJSON for a document that expands (through
// aliases) beyond a sane size.
var ErrTooLarge = errors.New("document too large after alias expansion")

// ToJSON converts a YAML node into the values encoding/json produces
// (map[string]any, []any, string, float64 or int64, bool, nil), resolving
// aliases and merge keys. It is what the JSON Schema validates.
func ToJSON(n *yaml.Node) (any, error) {
	budget := maxValueNodes
	return toJSON(n, &budget, 0)
}

func toJSON(n *yaml.Node, budget *int, depth int) (any, error) {
	n = deref(n)
	*budget--
	if *budget < 0 || depth > 500 {
		return nil, ErrTooLarge
	}
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		es := entries(n)
		m := make(map[string]any, len(es))
		for _, e := range es {
			v, err := toJSON(e.Val, budget, depth+1)
			if err != nil {
				return nil, err
			}
			m[e.Key.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toJSON(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		return scalarValue(n), nil
	}
	return nil, nil
}

// scalarValue types a scalar by its resolved YAML tag.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	return n.Value
}

// scalarString renders a scalar value as interpolation inserts it.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", true
	}
	return "", false
}

// typeName names a value's type for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64, int:
		return "integer"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	}
	return "value"
}

// asInt converts a value (possibly an interpolated string) to an integer.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// asFloat converts a value (possibly an interpolated string) to a number.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// asBool converts a value (possibly an interpolated string) to a boolean.
func asBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		return b, err == nil
	}
	return false, false
}
