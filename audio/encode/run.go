package encode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// job is one run of ffmpeg or ffprobe.
type job struct {
	what    string // "encode mp3", for errors
	path    string
	args    []string
	stdin   io.Reader // nil: none
	stdout  io.Writer // nil: discarded
	stderr  *capped   // nil: kept up to MaxStderr for the error
	timeout time.Duration
}

// env is the whole environment of every run: nothing of voxform's (its
// API key, storage credentials) reaches ffmpeg, and no FFREPORT or
// AV_LOG_FORCE_* changes what it writes.
var env = []string{"LC_ALL=C"}

// run runs j bound by ctx and j.timeout, with standard error kept up to
// MaxStderr bytes for the error message.
func run(parent context.Context, j job) error {
	ctx, cancel := context.WithTimeout(parent, j.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, j.path, j.args...)
	cmd.Env = env
	cmd.Stdin = j.stdin
	cmd.Stdout = j.stdout
	stderr := j.stderr
	if stderr == nil {
		stderr = &capped{max: MaxStderr}
	}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	switch {
	case err == nil:
		return nil
	case parent.Err() != nil:
		return fmt.Errorf("%s: %s stopped: %w", j.what, tool(j.path), parent.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %s did not finish within the %v timeout", j.what, tool(j.path), j.timeout)
	}
	return failed(j, err, stderr)
}

// failed is the error of a run that exited badly, with the first
// MaxStderr bytes of its standard error.
func failed(j job, err error, stderr *capped) error {
	msg, cut := stderr.b, stderr.cut
	if len(msg) > MaxStderr { // a probe keeps more, to read it
		msg, cut = msg[:MaxStderr], true
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(msg), ""))
	if cut {
		text += " ..."
	}
	if text == "" {
		return fmt.Errorf("%s: %s failed: %w", j.what, tool(j.path), err)
	}
	return fmt.Errorf("%s: %s failed (%v): %s", j.what, tool(j.path), err, text)
}

func tool(path string) string {
	if strings.HasSuffix(path, "ffprobe") {
		return "ffprobe"
	}
	return "ffmpeg"
}

// query runs a short ffmpeg command (-version, -encoders) and returns its
// standard output, at most maxQueryOutput bytes.
func (t *Tool) query(ctx context.Context, args ...string) ([]byte, error) {
	out := &capped{max: maxQueryOutput}
	err := run(ctx, job{what: "run ffmpeg " + strings.Join(args, " "), path: t.Path,
		args: append([]string{"-hide_banner", "-nostdin"}, args...), stdout: out, timeout: QueryTimeout})
	if err == nil && out.cut {
		err = fmt.Errorf("run ffmpeg %s: output over %d bytes", strings.Join(args, " "), maxQueryOutput)
	}
	return out.b, err
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	b   []byte
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := min(c.max-len(c.b), len(p))
	if room < len(p) {
		c.cut = true
	}
	c.b = append(c.b, p[:room]...)
	return len(p), nil
}

// removeOnError removes out when *err is set: a failed, stopped or timed
// out run leaves no partial file behind.
func removeOnError(out string, err *error) {
	if *err != nil {
		if rerr := os.Remove(out); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			*err = fmt.Errorf("%w (and remove %s: %v)", *err, out, rerr)
		}
	}
}
