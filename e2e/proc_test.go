package e2e_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"time"
)

// running is a voxform process the test signals while it works.
type running struct {
	p              *project
	cmd            *exec.Cmd
	args           []string
	stdout, stderr *bytes.Buffer
	done           chan struct{}
	err            error
}

// start starts voxform with args without waiting for it.
func (p *project) start(args ...string) *running {
	p.t.Helper()
	cmd, stdout, stderr := p.command(args...)
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	r := &running{p: p, cmd: cmd, args: args, stdout: stdout, stderr: stderr, done: make(chan struct{})}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	return r
}

// waitFor polls cond until it holds (true) or the process ends (false).
func (r *running) waitFor(cond func() bool) bool {
	for {
		if cond() {
			return true
		}
		select {
		case <-r.done:
			return false
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// signal sends sig to the process, unless it has ended.
func (r *running) signal(sig os.Signal) {
	select {
	case <-r.done:
	default:
		_ = r.cmd.Process.Signal(sig)
	}
}

// wait waits for the process to end and returns what it did (a process
// killed by a signal has code -1).
func (r *running) wait() result {
	<-r.done
	res := result{args: r.args, stdout: r.stdout.String(), stderr: r.stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(r.err, &ee):
		res.code = ee.ExitCode()
	case r.err != nil:
		r.p.t.Fatalf("voxform %v: %v", r.args, r.err)
	}
	return res
}

// exists reports whether a manifest-relative path exists.
func (p *project) exists(rel string) bool {
	_, err := os.Stat(p.path(rel))
	return err == nil
}

// journalRecords counts the records of the state journal (0 when there is
// none): the begin record, then one per recorded operation.
func (p *project) journalRecords() int {
	b, _ := os.ReadFile(p.path("voxform.state.json.journal"))
	return bytes.Count(b, []byte("\n"))
}
