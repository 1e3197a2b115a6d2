package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
)

// maxSimilarWarnings is how many warnings of one kind (manifest.Diagnostic
// Kind: the same check, other values) a command prints before it folds
// the rest into one line; validate and -json list them all.
const maxSimilarWarnings = 3

// writeDiagnostics renders every diagnostic for people (validate):
//
//	voxform.yaml:12:5: error: unknown voice "narator"
//	hint: did you mean "narrator"?
func writeDiagnostics(w io.Writer, ds manifest.Diagnostics) {
	for _, d := range ds {
		writeDiagnostic(w, d)
	}
}

// writeFoldedDiagnostics renders diagnostics for people, as a command
// that loads the manifest shows them before its own output (plan,
// apply): every error, and at most maxSimilarWarnings warnings of a
// kind; after the last one shown, a line counts the rest:
//
//	warning: and 997 more similar warnings elsewhere ('voxform validate' lists them)
//
// A data file of a thousand prompts with a digit each would otherwise
// bury the plan under two thousand lines.
func writeFoldedDiagnostics(w io.Writer, ds manifest.Diagnostics) {
	total := map[string]int{}
	for _, d := range ds {
		if d.Severity == manifest.SeverityWarning {
			total[kindOf(d)]++
		}
	}
	shown := map[string]int{}
	for _, d := range ds {
		if d.Severity != manifest.SeverityWarning {
			writeDiagnostic(w, d)
			continue
		}
		k := kindOf(d)
		if shown[k]++; shown[k] > maxSimilarWarnings {
			continue
		}
		writeDiagnostic(w, d)
		if n := total[k] - maxSimilarWarnings; shown[k] == maxSimilarWarnings && n > 0 {
			fmt.Fprintf(w, "warning: and %d more similar warning%s elsewhere ('voxform validate' lists them)\n", n, pluralS(n))
		}
	}
}

// kindOf is the kind of d, its message when it has none.
func kindOf(d manifest.Diagnostic) string {
	if d.Kind == "" {
		return d.Message
	}
	return d.Kind
}

// writeDiagnostic writes one diagnostic and its hint. A diagnostic may
// quote a manifest, a data file or a file name: nothing in it acts on the
// terminal.
func writeDiagnostic(w io.Writer, d manifest.Diagnostic) {
	fmt.Fprintln(w, untrusted.Lines(d.String()))
}

// jsonDiagnostic is the -json form of a diagnostic.
type jsonDiagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

// writeDiagnosticsJSON renders diagnostics as JSON objects, one per line.
func writeDiagnosticsJSON(w io.Writer, ds manifest.Diagnostics) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range ds {
		j := jsonDiagnostic{File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Severity: string(d.Severity), Message: d.Message, Hint: d.Hint}
		if err := enc.Encode(j); err != nil {
			return fmt.Errorf("write diagnostics: %w", err)
		}
	}
	return nil
}
