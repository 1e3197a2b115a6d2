package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/owned"
)

// stepSummaryVar names the file GitHub Actions gives each step for its
// Markdown job summary: plan and verify append theirs to it when it is
// set.
const stepSummaryVar = "GITHUB_STEP_SUMMARY"

// appendStepSummary appends what write writes (a Markdown summary of at
// most planview.JobSummaryBytes) to the job summary file, when the
// environment names one. The file must exist and be a regular file (the
// runner makes it); a summary that cannot be written is a warning, never
// a failure of the command that made it.
func appendStepSummary(env *Env, cmd string, write func(w io.Writer) error) {
	path := env.Getenv(stepSummaryVar)
	if path == "" {
		return
	}
	var b bytes.Buffer
	err := write(&b)
	if err == nil {
		b.WriteString("\n")
		err = owned.AppendTo(path, b.Bytes())
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s: job summary (%s): %s\n", cmd, stepSummaryVar, untrusted.Lines(err.Error()))
	}
}
