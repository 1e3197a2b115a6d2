package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/voxform/voxform/manifest"
)

// writeDiagnostics renders diagnostics for people:
//
//	voxform.yaml:12:5: error: unknown voice "narator"
//	hint: did you mean "narrator"?
func writeDiagnostics(w io.Writer, ds manifest.Diagnostics) {
	for _, d := range ds {
		fmt.Fprintln(w, d.String())
	}
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
