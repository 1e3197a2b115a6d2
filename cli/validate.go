package cli

import (
	"context"
	"fmt"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/workspace"
)

const validateUsage = `
Usage: voxform validate [-json] [-var NAME=VALUE] [-var-file FILE]

Checks the manifest files of the working directory against the JSON Schema
and every rule of the service documents, and reports all problems at once,
sorted by position. Warnings do not fail validation; errors exit 1.

Flags:
`

// validateOptions are the flags of validate.
type validateOptions struct {
	json bool
	vars varFlags
}

func init() {
	register(&command{name: "validate", synopsis: "check the manifest and report every problem", run: runValidateCmd})
}

func runValidateCmd(ctx context.Context, env *Env, args []string) error {
	var o validateOptions
	fs := newFlagSet(env, "validate", validateUsage)
	fs.BoolVar(&o.json, "json", false, "print diagnostics as JSON objects, one per line, on stdout")
	o.vars.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("validate takes no arguments, got %q", fs.Arg(0))
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
	fmt.Fprintln(env.Stdout, summary(m, ds))
	return nil
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
