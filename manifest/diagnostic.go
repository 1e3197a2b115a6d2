package manifest

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Severity tells whether a diagnostic fails validation.
type Severity string

// The two severities. Warnings never fail validation; errors do.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in a manifest, with the position of the
// offending value. Message names the value; Hint, when set, says what to do.
type Diagnostic struct {
	Pos      Pos      `json:"-"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
	// Kind names the check that found the problem, so that many alike can
	// be told apart from many different: Errorf and Warnf set it to their
	// format ("digits %s in text are mispronounced by the service"), or
	// to the message when the format is only a verb ("%s").
	Kind string `json:"-"`
}

// String renders the diagnostic as "file.yaml:LINE:COL: error: message",
// followed by a "hint: ..." line when there is a hint.
func (d Diagnostic) String() string {
	var b strings.Builder
	if p := d.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	b.WriteString(string(d.Severity))
	b.WriteString(": ")
	b.WriteString(d.Message)
	if d.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(d.Hint)
	}
	return b.String()
}

// Diagnostics is a list of diagnostics. Sort orders it by position.
type Diagnostics []Diagnostic

// Errorf appends an error at pos.
func (ds *Diagnostics) Errorf(pos Pos, format string, a ...any) *Diagnostic {
	return ds.add(pos, SeverityError, format, fmt.Sprintf(format, a...))
}

// Warnf appends a warning at pos.
func (ds *Diagnostics) Warnf(pos Pos, format string, a ...any) *Diagnostic {
	return ds.add(pos, SeverityWarning, format, fmt.Sprintf(format, a...))
}

// add appends a diagnostic of the kind format and returns a pointer to it
// so that a hint can be attached; the pointer is valid until the next
// append.
func (ds *Diagnostics) add(pos Pos, sev Severity, format, msg string) *Diagnostic {
	kind := format
	if format == "%s" || format == "%v" {
		kind = msg
	}
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: sev, Message: msg, Kind: kind})
	return &(*ds)[len(*ds)-1]
}

// WithHint sets the hint of d and returns d; nil-safe.
func (d *Diagnostic) WithHint(format string, a ...any) *Diagnostic {
	if d != nil {
		d.Hint = fmt.Sprintf(format, a...)
	}
	return d
}

// Append adds all of other.
func (ds *Diagnostics) Append(other Diagnostics) { *ds = append(*ds, other...) }

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors counts the errors and warnings.
func (ds Diagnostics) Count() (errs, warnings int) {
	for _, d := range ds {
		if d.Severity == SeverityError {
			errs++
		} else {
			warnings++
		}
	}
	return errs, warnings
}

// Sort orders the diagnostics by file, line, column, then severity (errors
// first) and message, and drops exact duplicates.
func (ds *Diagnostics) Sort() {
	s := *ds
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Severity != b.Severity {
			return a.Severity == SeverityError
		}
		return a.Message < b.Message
	})
	out := s[:0]
	for i, d := range s {
		if i > 0 && d == s[i-1] {
			continue
		}
		out = append(out, d)
	}
	*ds = out
}

// Err returns nil when there are no errors, else an error summarising them
// (the first error's text and a count).
func (ds Diagnostics) Err() error {
	errs, _ := ds.Count()
	if errs == 0 {
		return nil
	}
	for _, d := range ds {
		if d.Severity == SeverityError {
			if errs == 1 {
				return errors.New(d.Pos.String() + ": " + d.Message)
			}
			return fmt.Errorf("%s: %s (and %d more errors)", d.Pos, d.Message, errs-1)
		}
	}
	return nil
}
