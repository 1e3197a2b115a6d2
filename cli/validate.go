package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/workspace"
)

const validateUsage = `
Usage: voxform validate [-json | -explain] [-var NAME=VALUE] [-var-file FILE]

Checks the manifest files of the working directory against the JSON Schema
and every rule of the service documents, and reports all problems at once,
sorted by position. Warnings do not fail validation; errors exit 1.

With -explain, a valid manifest's pronunciation lexicons are shown at work:
for each synthesis with a lexicon, where each entry applied in its text
(file:line:col of the text as written, and the entry's line), and how many
digit runs no entry covers (the warnings list them).

Flags:
`

// validateOptions are the flags of validate.
type validateOptions struct {
	json    bool
	explain bool
	vars    varFlags
}

func init() {
	register(&command{name: "validate", synopsis: "check the manifest and report every problem", run: runValidateCmd})
}

func runValidateCmd(ctx context.Context, env *Env, args []string) error {
	var o validateOptions
	fs := newFlagSet(env, "validate", validateUsage)
	fs.BoolVar(&o.json, "json", false, "print diagnostics as JSON objects, one per line, on stdout")
	fs.BoolVar(&o.explain, "explain", false, "show where each lexicon entry applies")
	o.vars.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("validate takes no arguments, got %q", fs.Arg(0))
	}
	if o.json && o.explain {
		return usageErrorf("-explain prints for people and does not combine with -json")
	}
	return runValidate(env, o)
}

// runValidate loads the manifest and reports its diagnostics.
func runValidate(env *Env, o validateOptions) error {
	m, ds := workspace.New(env.Dir).Load(o.vars.options(env))
	if o.json {
		if err := writeDiagnosticsJSON(env.Stdout, ds); err != nil {
			return err
		}
		if ds.HasErrors() {
			return exitCode(ExitError, nil)
		}
		return nil
	}
	writeDiagnostics(env.Stderr, ds)
	if err := diagnosticsError(ds); err != nil {
		return err
	}
	if o.explain {
		writeExplanation(env.Stdout, schema.ExplainLexicons(m))
	}
	fmt.Fprintln(env.Stdout, summary(m, ds))
	return nil
}

// writeExplanation renders what each lexicon does, a synthesis at a time:
//
//	synthesis.chapter1: lexicon lexicon.csv, 3 replacements
//	  chapter1.txt:12:40: "1947" is sent as "उन्नीस सौ सैंतालीस" (lexicon.csv:3)
//	  ... and 1 more
//	  1 digit run no entry covers (see the warnings)
func writeExplanation(w io.Writer, list []schema.LexiconExplanation) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no synthesis uses a lexicon")
		return
	}
	for _, e := range list {
		fmt.Fprintf(w, "%s: lexicon %s, %s\n", e.Address, e.Lexicon, count(e.Total, "replacement", "replacements"))
		for _, u := range e.Uses {
			fmt.Fprintf(w, "  %s: %q is sent as %q (%s:%d)\n", u.Pos, u.Term, u.Spoken, u.Entry.File, u.Entry.Line)
		}
		if more := e.Total - len(e.Uses); more > 0 {
			fmt.Fprintf(w, "  ... and %d more (at most %d are listed per synthesis, %d in all)\n", more, schema.MaxExplainPerSynthesis, schema.MaxExplainTotal)
		}
		if e.Uncovered > 0 {
			fmt.Fprintf(w, "  %s no entry covers (see the warnings)\n", count(e.Uncovered, "digit run", "digit runs"))
		}
	}
}

// summary is validate's last line: what the manifest declares, and how
// many warnings it has.
func summary(m *manifest.Manifest, ds manifest.Diagnostics) string {
	_, warns := ds.Count()
	s := fmt.Sprintf("the manifest is valid: %s, %s, %s, %s",
		count(len(m.Voices), "voice", "voices"), count(len(m.Embeddings), "embedding", "embeddings"),
		count(len(m.Syntheses), "synthesis", "syntheses"), count(len(m.Transcriptions), "transcription", "transcriptions"))
	if warns > 0 {
		s += fmt.Sprintf(" (%s)", count(warns, "warning", "warnings"))
	}
	return s
}

// count is "1 voice", "0 voices", "2 voices".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
