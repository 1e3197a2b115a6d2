package e2e_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// wrongKey is a key the emulator refuses (403 FORBIDDEN): it must not leak
// either, not even in the error that reports it was refused.
const wrongKey = "vxk-E2E-WRONG-51c3a9e07f"

// secretScan collects everything voxform printed, then checks it and every
// file it wrote for a key.
type secretScan struct {
	t       *testing.T
	printed []result
}

func (s *secretScan) run(p *project, args ...string) result {
	s.t.Helper()
	r := p.run(args...)
	s.printed = append(s.printed, r)
	if slices.Contains(args, "-json") {
		assertJSONLines(s.t, r)
	}
	return r
}

// assertJSONLines proves -json output is newline-delimited JSON and nothing
// else (SPEC section 6: nothing decorative in -json), failures included.
func assertJSONLines(t testing.TB, r result) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Fatalf("-json output holds a line that is not JSON: %q\n%s", line, r)
		}
	}
}

// forms are the ways a key could be written: as is, base64 (headers, JSON
// of bytes) and URL-escaped.
func forms(key string) [][]byte {
	return [][]byte{
		[]byte(key),
		[]byte(base64.StdEncoding.EncodeToString([]byte(key))),
		[]byte(base64.RawURLEncoding.EncodeToString([]byte(key))),
		[]byte(url.QueryEscape(key)),
	}
}

// check fails the test if any form of a key is in any printed output or in
// any file below root.
func (s *secretScan) check(root string, keys ...string) {
	s.t.Helper()
	files := 0
	for _, key := range keys {
		for _, f := range forms(key) {
			for _, r := range s.printed {
				if bytes.Contains([]byte(r.stdout+r.stderr), f) {
					s.t.Fatalf("voxform printed the API key (%q):\n%s", f, r)
				}
			}
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, key := range keys {
			for _, f := range forms(key) {
				if bytes.Contains(b, f) {
					s.t.Fatalf("%s holds the API key (%q)", path, f)
				}
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("no key in %d printed outputs and %d files", len(s.printed), files)
}

// TestAPIKeyNeverWritten runs every command that touches the service or
// the state, with faults that make resources fail, a kill that leaves a
// journal, saved plans, JSON output and a key the service refuses, then
// searches everything voxform printed and every file it wrote (state,
// journal, lock, hash cache, plan files, outputs) for the key (SPEC
// section 7: the key never appears in logs, errors, state, plans or
// outputs).
func TestAPIKeyNeverWritten(t *testing.T) {
	t.Parallel()
	s := &secretScan{t: t}
	faulty := emulator.Options{Seed: 5, NoEspeak: true, FailRate: 0.4, RateLimit: 0.2, DropRate: 0.2, Latency: 10 * time.Millisecond}

	// Faults severe enough that resources exhaust their retries and their
	// errors are printed.
	e := startEmulator(t, faulty)
	ivr := newProject(t, "ivr-prompts", e)
	s.run(ivr, "plan")
	s.run(ivr, "plan", "-json")
	s.run(ivr, "plan", "-out", "saved.plan")
	s.run(ivr, "show", "saved.plan")
	s.run(ivr, "apply", "saved.plan")
	s.run(ivr, "apply", "-auto-approve", "-json")
	s.run(ivr, "apply", "-auto-approve")
	s.run(ivr, "verify")
	s.run(ivr, "verify", "-json")
	s.run(ivr, "state", "list")
	s.run(ivr, "destroy", "-auto-approve", "-json")

	// Every transport and batch API, killed mid-apply (leaving a journal and
	// pending jobs), then finished under faults.
	big := newBigProject(t, e, 4, 4, 3)
	run := big.start("apply", "-auto-approve")
	if !run.waitFor(func() bool { return big.journalRecords() >= 3 }) {
		t.Fatalf("apply ended before journaling its work:\n%s", run.wait())
	}
	run.signal(syscall.SIGKILL)
	s.printed = append(s.printed, run.wait())
	s.check(filepath.Dir(big.dir), testKey)
	for range 3 {
		s.run(big.project, "apply", "-auto-approve", "-json")
	}
	s.run(big.project, "apply", "-auto-approve")
	s.run(big.project, "destroy", "-auto-approve")

	// A key the service refuses, on every API: the refusal is reported as
	// FORBIDDEN, and the refused key is not echoed either.
	// conformance: ERR-003, ERR-012
	other := startEmulator(t, emulator.Options{Seed: 6, NoEspeak: true})
	for _, name := range []string{"ivr-prompts", "cloned-voice", "call-transcripts", "short-clips", "hindi-narration"} {
		p := newProject(t, name, other)
		p.env = append(p.env, "VOXFORM_API_KEY="+wrongKey)
		for _, args := range [][]string{{"apply", "-auto-approve"}, {"apply", "-auto-approve", "-json"}} {
			r := s.run(p, args...)
			if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "FORBIDDEN") {
				t.Fatalf("apply with a refused key should fail naming FORBIDDEN:\n%s", r)
			}
		}
	}
	s.check(filepath.Dir(ivr.dir), testKey, wrongKey)
}
