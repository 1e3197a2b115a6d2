package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

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
// runner makes it), named by an absolute path, and not one of voxform's
// own files; a summary that cannot be written is a warning, never a
// failure of the command that made it.
func appendStepSummary(env *Env, cmd string, write func(w io.Writer) error) {
	path := env.Getenv(stepSummaryVar)
	if path == "" {
		return
	}
	var b bytes.Buffer
	err := checkSummaryPath(env.Dir, path)
	if err == nil {
		err = write(&b)
	}
	if err == nil {
		b.WriteString("\n")
		err = owned.AppendTo(path, b.Bytes())
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "voxform: warning: %s: job summary (%s): %s\n", cmd, stepSummaryVar, untrusted.Lines(err.Error()))
	}
}

// checkSummaryPath refuses a job summary file inside the manifest
// directory that voxform may not write: its state, journal and lock,
// .voxform/, version control.
func checkSummaryPath(dir, path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%s is not an absolute path", path)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return owned.CheckRel(filepath.ToSlash(rel))
}
