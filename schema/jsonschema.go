package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/voxform/voxform/manifest"
)

// JSON is the manifest's JSON Schema, as published for editors
// (# yaml-language-server: $schema=...).
//
//go:embed manifest.schema.json
var JSON []byte

const schemaURL = "https://voxform.dev/schema/manifest.schema.json"

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	schemaDoc   map[string]any
	compileErr  error
)

// compile compiles the embedded schema once.
func compile() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(schemaURL, bytes.NewReader(JSON)); err != nil {
			compileErr = fmt.Errorf("load manifest schema: %w", err)
			return
		}
		compiled, compileErr = c.Compile(schemaURL)
		if compileErr == nil {
			compileErr = json.Unmarshal(JSON, &schemaDoc)
		}
	})
	return compiled, compileErr
}

// ValidateRaw checks every document of every file against the JSON Schema.
// Errors are mapped from JSON pointers back to YAML positions, and the
// blocks they fall in are marked broken so that expansion skips them.
// Value errors (enum, ranges) are left to the semantic rules, which also
// see interpolated values and name the value in their messages.
func (Validator) ValidateRaw(raw *manifest.Raw) manifest.Diagnostics {
	var ds manifest.Diagnostics
	s, err := compile()
	if err != nil {
		ds.Errorf(manifest.Pos{}, "%v", err)
		return ds
	}
	for _, f := range raw.Files {
		for _, doc := range f.Docs {
			v, err := manifest.ToJSON(doc)
			if err != nil {
				ds.Errorf(manifest.Pos{File: f.Name, Line: 1, Col: 1}, "%v", err)
				raw.MarkBroken("")
				continue
			}
			err = s.Validate(v)
			var ve *jsonschema.ValidationError
			if errors.As(err, &ve) {
				loc := manifest.NewLocator(doc)
				for _, leaf := range leaves(ve) {
					mapError(raw, f, loc, v, leaf, &ds)
				}
			} else if err != nil {
				ds.Errorf(manifest.Pos{File: f.Name}, "validate: %v", err)
			}
		}
	}
	return ds
}

// leaves returns the innermost errors of a validation error tree.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

var (
	reAdditional = regexp.MustCompile(`'([^']*)'`)
	reType       = regexp.MustCompile(`expected ([a-z, ]+), but got ([a-z]+)`)
)

// keyword returns the last keyword of a keyword location.
func keyword(loc string) string {
	return loc[strings.LastIndexByte(loc, '/')+1:]
}

// mapError turns one schema error about doc (v is its JSON value) into a
// positioned diagnostic.
func mapError(raw *manifest.Raw, f *manifest.File, loc *manifest.Locator, v any, ve *jsonschema.ValidationError, ds *manifest.Diagnostics) {
	kw := keyword(ve.KeywordLocation)
	val, key, _ := loc.At(ve.InstanceLocation)
	if isInterpolated(val) {
		return // checked after interpolation
	}
	switch kw {
	case "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if !strings.Contains(ve.KeywordLocation, "propertyNames") {
			return // the semantic rules check values, interpolated or not
		}
	}
	raw.MarkBroken(ve.InstanceLocation)
	what := describe(ve.InstanceLocation)
	pos := posOf(f.Name, val, key)
	switch kw {
	case "additionalProperties":
		props := schemaProperties(ve.AbsoluteKeywordLocation)
		// The names come from the value, not from the message, which
		// quotes them with ' (a name may hold one) in map order.
		for _, name := range additional(jsonAt(v, ve.InstanceLocation), ve.AbsoluteKeywordLocation) {
			_, kn, _ := loc.At(ve.InstanceLocation + "/" + escapePointer(name))
			d := ds.Errorf(posOf(f.Name, nil, kn), "unknown field %q in %s", name, what)
			if s := manifest.Suggest(name, props); s != "" {
				d.WithHint("did you mean %q?", s)
			} else if len(props) > 0 {
				d.WithHint("known fields: %s", strings.Join(props, ", "))
			}
		}
	case "type":
		got := "a value"
		want := ve.Message
		if m := reType.FindStringSubmatch(ve.Message); m != nil {
			want, got = m[1], m[2]
		}
		ds.Errorf(pos, "%s: want %s, not %s%s", what, article(want), article(got), shown(val))
	case "required":
		for _, m := range reAdditional.FindAllStringSubmatch(ve.Message, -1) {
			ds.Errorf(pos, "%s is missing required field %q", what, m[1])
		}
	case "pattern":
		ds.Errorf(pos, "invalid name%s in %s", shown(val), what).
			WithHint("names start with a letter or _ and hold letters, digits, _ and -")
	case "enum", "const":
		// Only propertyNames reach here: an unknown key of a map whose
		// keys are a fixed set (service.paths, catalog.recognition_languages).
		_, kn, _ := loc.At(ve.InstanceLocation)
		toks := manifest.SplitPointer(ve.InstanceLocation)
		name := toks[len(toks)-1]
		allowed := schemaEnum(ve.AbsoluteKeywordLocation)
		d := ds.Errorf(posOf(f.Name, nil, kn), "unknown name %q in %s", name, describe(strings.Join(toks[:len(toks)-1], "/")))
		if s := manifest.Suggest(name, allowed); s != "" {
			d.WithHint("did you mean %q?", s)
		} else if len(allowed) > 0 {
			d.WithHint("names: %s", strings.Join(allowed, ", "))
		}
	default:
		ds.Errorf(pos, "%s: %s", what, ve.Message)
	}
}

// isInterpolated reports whether n is a string holding a ${...} reference.
func isInterpolated(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" &&
		strings.Contains(strings.ReplaceAll(n.Value, "$${", ""), "${")
}

func posOf(file string, val, key *yaml.Node) manifest.Pos {
	n := val
	if n == nil || (n.Kind != yaml.ScalarNode && key != nil) {
		n = key
	}
	if n == nil {
		return manifest.Pos{File: file, Line: 1, Col: 1}
	}
	return manifest.Pos{File: file, Line: n.Line, Col: n.Column}
}

func shown(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.ScalarNode {
		return fmt.Sprintf(" (%q)", n.Value)
	}
	return ""
}

func article(t string) string {
	t = strings.TrimSpace(t)
	switch {
	case strings.Contains(t, ","), strings.Contains(t, " or "):
		return t
	case t == "null":
		return "null"
	case strings.HasPrefix(t, "a"), strings.HasPrefix(t, "i"), strings.HasPrefix(t, "o"):
		return "an " + t
	}
	return "a " + t
}

// describe names the place of a JSON pointer for messages:
// "/syntheses/menu/audio_config" -> `syntheses.menu.audio_config`.
func describe(ptr string) string {
	if ptr == "" {
		return "the manifest"
	}
	return strings.Join(manifest.SplitPointer(ptr), ".")
}

// pointerEscaper escapes a JSON pointer token; built once, as building a
// Replacer costs more than using it.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string { return pointerEscaper.Replace(s) }

// schemaAt returns the schema value at the fragment of an absolute
// keyword location.
func schemaAt(absLoc string) any {
	_, frag, _ := strings.Cut(absLoc, "#")
	var cur any = schemaDoc
	for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if t == "" {
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[t]
	}
	return cur
}

// schemaEnum lists the string values of the enum at a keyword location.
func schemaEnum(absLoc string) []string {
	l, _ := schemaAt(absLoc).([]any)
	var out []string
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// jsonAt returns the part of a JSON value at a JSON pointer, or nil.
func jsonAt(v any, pointer string) any {
	if pointer == "" {
		return v
	}
	for _, t := range manifest.SplitPointer(pointer) {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// additional lists, sorted, the names of an object that the schema object
// holding an additionalProperties keyword neither declares nor matches
// with a pattern.
func additional(obj any, absLoc string) []string {
	m, _ := obj.(map[string]any)
	sch, _ := schemaAt(strings.TrimSuffix(absLoc, "/additionalProperties")).(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	patterns, _ := sch["patternProperties"].(map[string]any)
	var out []string
	for name := range m {
		if _, ok := props[name]; ok {
			continue
		}
		matched := false
		for p := range patterns {
			if re, err := regexp.Compile(p); err == nil && re.MatchString(name) {
				matched = true
			}
		}
		if !matched {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// schemaProperties lists the property names of the schema object that
// holds the keyword at an absolute keyword location.
func schemaProperties(absLoc string) []string {
	m, _ := schemaAt(strings.TrimSuffix(absLoc, "/additionalProperties")).(map[string]any)
	props, _ := m["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
