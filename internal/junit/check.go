package junit

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
)

// element is what junit-10.xsd allows of one element: its attributes, the
// required ones among them, its child elements, and whether it holds
// text.
type element struct {
	attrs, required, children []string
	text                      bool
}

// schema is junit-10.xsd (Jenkins xunit-plugin), element by element.
var schema = map[string]element{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
	"testsuite": {
		attrs:    []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		required: []string{"name", "tests", "failures", "errors"},
		children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"},
	},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
	"testcase": {
		attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"},
		children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"},
	},
	"failure":      {attrs: []string{"type", "message"}, text: true},
	"error":        {attrs: []string{"type", "message"}, text: true},
	"skipped":      {attrs: []string{"type", "message"}, text: true},
	"system-out":   {text: true},
	"system-err":   {text: true},
	"rerunFailure": {attrs: []string{"message", "type"}, required: []string{"type"}, text: true, children: []string{"stackTrace", "system-out", "system-err"}},
	"stackTrace":   {text: true},
}

func init() {
	for _, n := range []string{"rerunError", "flakyFailure", "flakyError"} {
		schema[n] = schema["rerunFailure"]
	}
}

// surefireTime is junit-10.xsd's SUREFIRE_TIME, the form of a time
// attribute of testsuites and testsuite.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// MaxCheckDepth bounds the nesting Check follows (suites may nest).
const MaxCheckDepth = 64

// Check reads a JUnit XML document from r and reports the first place it
// breaks junit-10.xsd: an element, an attribute or text where the schema
// has none, a required attribute missing, a malformed time. The root is
// <testsuites> or <testsuite>. Reading stops at the first error; the
// caller bounds r.
func Check(r io.Reader) error {
	d := xml.NewDecoder(r)
	var stack []string
	root := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if !root {
				return errors.New("junit: no root element")
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("junit: %w", err)
		}
		line, _ := d.InputPos()
		if err := checkToken(tok, &stack, &root); err != nil {
			return fmt.Errorf("junit: line %d: %w", line, err)
		}
	}
}

// checkToken checks one token against the schema, given the open
// elements.
func checkToken(tok xml.Token, stack *[]string, root *bool) error {
	switch t := tok.(type) {
	case xml.StartElement:
		name := t.Name.Local
		switch {
		case len(*stack) == 0 && *root:
			return fmt.Errorf("a second root element <%s>", name)
		case len(*stack) == 0 && name != "testsuites" && name != "testsuite":
			return fmt.Errorf("root element <%s>, want <testsuites> or <testsuite>", name)
		case len(*stack) > 0 && !slices.Contains(schema[(*stack)[len(*stack)-1]].children, name):
			return fmt.Errorf("<%s> inside <%s>", name, (*stack)[len(*stack)-1])
		case len(*stack) >= MaxCheckDepth:
			return fmt.Errorf("elements nested deeper than %d", MaxCheckDepth)
		}
		*root = true
		*stack = append(*stack, name)
		return checkAttrs(name, t.Attr)
	case xml.EndElement:
		*stack = (*stack)[:len(*stack)-1]
	case xml.CharData:
		if len(*stack) > 0 && !schema[(*stack)[len(*stack)-1]].text && !isSpace(t) {
			return fmt.Errorf("text inside <%s>", (*stack)[len(*stack)-1])
		}
	}
	return nil
}

// checkAttrs checks the attributes of an element name.
func checkAttrs(name string, attrs []xml.Attr) error {
	el := schema[name]
	seen := map[string]bool{}
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue // xmlns and the like
		}
		if !slices.Contains(el.attrs, a.Name.Local) {
			return fmt.Errorf("<%s> has attribute %q, which the schema does not allow", name, a.Name.Local)
		}
		if a.Name.Local == "time" && (name == "testsuite" || name == "testsuites") && !surefireTime.MatchString(a.Value) {
			return fmt.Errorf("<%s time=%q> is not a time in seconds", name, a.Value)
		}
		seen[a.Name.Local] = true
	}
	for _, r := range el.required {
		if !seen[r] {
			return fmt.Errorf("<%s> lacks the attribute %q", name, r)
		}
	}
	return nil
}

// isSpace reports whether b is only XML white space.
func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// MaxSniffBytes is how much of a file IsReport reads to find its root.
const MaxSniffBytes = 64 << 10

// IsReport reports whether r begins as a JUnit XML document: its root
// element, within the first MaxSniffBytes bytes, is <testsuites> or
// <testsuite>. It reads no further, so it answers fast for a file of any
// size; Check checks a whole document.
func IsReport(r io.Reader) bool {
	d := xml.NewDecoder(io.LimitReader(r, MaxSniffBytes))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if el, ok := tok.(xml.StartElement); ok {
			return el.Name.Space == "" && (el.Name.Local == "testsuites" || el.Name.Local == "testsuite")
		}
	}
}
