package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/pgtest"
)

// voxformBin is the voxform binary under test, built once by TestMain;
// with VOXFORM_E2E_RACE=1 it is built with the race detector (several
// times slower: the executor's own tests run under -race anyway).
var voxformBin string

// testKey is the API key the tests hand to voxform: distinctive, so that
// any copy of it in a file or an output is found (see secret_test.go).
const testKey = "vxk-E2E-7d1f0c9a4b2e-SECRET"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "voxform-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	voxformBin = filepath.Join(dir, "voxform")
	args := []string{"build", "-o", voxformBin}
	if os.Getenv("VOXFORM_E2E_RACE") == "1" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/voxform/voxform")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build voxform:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := pgtest.Main(m) // stops the PostgreSQL server the pg tests started
	os.RemoveAll(dir)
	os.Exit(code)
}

// emu is an emulator serving on a loopback port for one test. It outlives
// every voxform process the test starts (and kills).
type emu struct {
	*emulator.Server
	// URL is the base URL voxform is pointed at.
	URL string
}

// profile is the service profile the whole suite runs against:
// VOXFORM_E2E_PROFILE (live or documented; default live, as for users).
// scripts/test.sh runs the suite once with each.
var profile = func() string {
	if p := os.Getenv("VOXFORM_E2E_PROFILE"); p != "" {
		return p
	}
	return "live"
}()

// onceAcrossProfiles runs a test in the suite's first pass only (the
// live profile, the default): for tests of what is voxform's own and the
// same under either profile (the state backends, kill and resume where a
// twin test covers the profile, the output cache, delivery and mastering,
// listening checks, approvals, edits, the report page, path safety), whose
// requests are the same but for the spellings the profile passes on, and
// which the tests of the wire, the examples, faults and kills cover under
// both. scripts/test.sh runs the suite again against the documented
// profile.
func onceAcrossProfiles(t *testing.T) {
	t.Helper()
	if profile != "live" {
		t.Skipf("runs in the live-profile pass of the suite, the same under either profile (this pass: %s)", profile)
	}
}

// startEmulator starts an emulator with opts, behaving as the suite's
// profile's service; batch jobs run a thousand times faster than the real
// service unless opts says otherwise.
func startEmulator(t testing.TB, opts emulator.Options) *emu {
	t.Helper()
	return startEmulatorBehind(t, opts, nil)
}

// startEmulatorBehind is startEmulator with the emulator served behind
// wrap, when not nil: a test's own handler that sees every request first.
func startEmulatorBehind(t testing.TB, opts emulator.Options, wrap func(http.Handler) http.Handler) *emu {
	t.Helper()
	if opts.TimeScale == 0 {
		opts.TimeScale = 1000
	}
	if opts.Profile == "" && !opts.LiveQuirks {
		opts.Profile = profile
	}
	if opts.Keys == nil {
		opts.Keys = []string{testKey}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := emulator.New(opts)
	var h http.Handler = s
	if wrap != nil {
		h = wrap(s)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		s.Close()
	})
	return &emu{Server: s, URL: "http://" + ln.Addr().String()}
}

// stats is GET /_emulator/stats (SPEC section 8).
type stats struct {
	Requests           map[string]int64 `json:"requests"`
	FaultsInjected     map[string]int64 `json:"faults_injected"`
	BilledCharacters   int64            `json:"billed_characters"`
	BilledAudioSeconds float64          `json:"billed_audio_seconds"`
	EmbeddingsCreated  int64            `json:"embeddings_created"`
	BatchJobsCreated   int64            `json:"batch_jobs_created"`
	BatchJobsStarted   int64            `json:"batch_jobs_started"`
	BatchJobsCancelled int64            `json:"batch_jobs_cancelled"`
	LegacyJobs         int64            `json:"legacy_jobs_submitted"`
	FilesTranscribed   int64            `json:"files_transcribed"`
	PresignedDownloads int64            `json:"presigned_downloads"`
	PresignedWithKey   int64            `json:"presigned_downloads_with_api_key"`
	Syntheses          int64            `json:"syntheses"`
}

// calls is every request the emulator answered: API routes and presigned
// transcript downloads.
func (s stats) calls() int64 {
	var n int64 // presigned downloads are among the requests, as GET /_storage/transcripts/{token}
	for _, c := range s.Requests {
		n += c
	}
	return n
}

func (e *emu) stats(t testing.TB) stats {
	t.Helper()
	var s stats
	if err := json.Unmarshal(e.StatsJSON(), &s); err != nil {
		t.Fatalf("emulator stats: %v", err)
	}
	return s
}

// project is a manifest directory of one test and the environment voxform
// runs with: pointed at the test's emulator, with the test key.
type project struct {
	t   testing.TB
	dir string
	env []string
	// vars are -var flags every plan and apply of the project passes.
	vars []string
	// from, when set, is the working directory voxform runs in, with
	// -chdir naming the project (as the README's first command does).
	from string
	// pg, when set, is the connection string of the PostgreSQL database
	// holding the project's state (see usePG).
	pg string
}

// newProject copies examples/manifests/NAME (or nothing when name is "")
// into a fresh directory.
func newProject(t testing.TB, name string, e *emu) *project {
	t.Helper()
	dir := t.TempDir()
	if name != "" {
		copyTree(t, filepath.Join("..", "examples", "manifests", name), dir)
	}
	p := &project{t: t, dir: dir}
	p.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_CACHE_HOME=" + t.TempDir(), // the output cache, one per project
		"VOXFORM_API_KEY=" + testKey,
		"VOXFORM_PROFILE=" + profile,
	}
	if e != nil {
		p.env = append(p.env, "VOXFORM_BASE_URL="+e.URL)
	}
	return p
}

// copyTree copies an example's own files: not what an apply of it left
// there (the README's first command applies ivr-prompts in place), so that
// a test always starts from the example as committed.
func copyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if top, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); top == "build" || top == ".voxform" || strings.HasPrefix(top, "voxform.state.json") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// result is what one voxform process did.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("voxform %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// command returns the voxform process for args, not yet started.
func (p *project) command(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(voxformBin, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	if p.from != "" {
		cmd = exec.Command(voxformBin, append([]string{"-chdir", p.dir}, args...)...)
		cmd.Dir, cmd.Env = p.from, p.env
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// run runs voxform to its end. A data race reported by a race-enabled
// binary fails the test whatever the exit code.
func (p *project) run(args ...string) result {
	p.t.Helper()
	cmd, stdout, stderr := p.command(args...)
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		p.t.Fatalf("run voxform: %v", err)
	}
	if strings.Contains(r.stderr, "DATA RACE") || strings.Contains(r.stderr, "panic:") {
		p.t.Fatalf("voxform crashed or raced:\n%s", r)
	}
	return r
}

// mustRun runs voxform and fails the test unless it exits 0.
func (p *project) mustRun(args ...string) result {
	p.t.Helper()
	r := p.run(args...)
	if r.code != 0 {
		p.t.Fatalf("%s", r)
	}
	return r
}

// path returns the absolute path of a manifest-relative path.
func (p *project) path(rel string) string { return filepath.Join(p.dir, filepath.FromSlash(rel)) }

// plannedChange and changeSummary are the -json plan messages (SPEC
// section 5) the tests read.
type plannedChange struct {
	Type    string   `json:"type"`
	Address string   `json:"address"`
	Action  string   `json:"action"`
	Reasons []string `json:"reasons"`
	// RenderFrom names the intact JSON transcript a free repair renders
	// the other formats from.
	RenderFrom string `json:"render_from"`
	// RestoreFrom is where a restore takes its outputs from: "local" or
	// the remote cache's URL.
	RestoreFrom string `json:"restore_from"`
	// Refused says why apply will not run it (a file voxform did not make
	// is at one of its paths).
	Refused string `json:"refused"`
	Cost    struct {
		Characters int64 `json:"characters"`
	} `json:"cost"`
}

type changeSummary struct {
	Add, Replace, Repair, Restore, Move, Resume, Destroy int
	NoOp                                                 int `json:"no_op"`
	Cost                                                 struct {
		Characters   int64   `json:"characters"`
		AudioSeconds float64 `json:"audio_seconds"`
	} `json:"cost"`
}

func (s changeSummary) changes() int {
	return s.Add + s.Replace + s.Repair + s.Restore + s.Move + s.Resume + s.Destroy
}

// plan runs 'voxform plan -json' and returns its changes and summary.
func (p *project) plan(args ...string) ([]plannedChange, changeSummary) {
	p.t.Helper()
	r := p.mustRun(append(append([]string{"plan", "-json"}, p.vars...), args...)...)
	var changes []plannedChange
	var sum changeSummary
	found := false
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var head struct{ Type string }
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			p.t.Fatalf("plan -json: line %q: %v", line, err)
		}
		switch head.Type {
		case "planned_change":
			var c plannedChange
			_ = json.Unmarshal([]byte(line), &c)
			changes = append(changes, c)
		case "change_summary":
			_ = json.Unmarshal([]byte(line), &sum)
			found = true
		}
	}
	if !found {
		p.t.Fatalf("plan -json gave no change_summary:\n%s", r)
	}
	return changes, sum
}

// assertNoChanges proves the plan is empty both ways: -detailed-exitcode
// exits 0 and the JSON summary counts nothing.
func (p *project) assertNoChanges() {
	p.t.Helper()
	if r := p.run(append([]string{"plan", "-detailed-exitcode"}, p.vars...)...); r.code != 0 {
		p.t.Fatalf("plan after apply should show no changes:\n%s", r)
	}
	if _, s := p.plan(); s.changes() != 0 {
		p.t.Fatalf("plan after apply: %+v, want no changes", s)
	}
}

// apply runs 'voxform apply -auto-approve' with args.
func (p *project) apply(args ...string) result {
	p.t.Helper()
	return p.run(append(append([]string{"apply", "-auto-approve"}, p.vars...), args...)...)
}

// verify runs 'voxform verify' and fails the test on any drift.
func (p *project) verify() {
	p.t.Helper()
	p.mustRun("verify")
}

// stateOutput and stateResource are the parts of voxform.state.json the
// tests read (SPEC section 4).
type stateOutput struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

type stateResource struct {
	Kind             string          `json:"kind"`
	Status           string          `json:"status"`
	JobID            string          `json:"job_id"`
	JobAPI           string          `json:"job_api"`
	BilledCharacters int64           `json:"billed_characters"`
	BilledAudioSecs  float64         `json:"billed_audio_seconds"`
	Outputs          []stateOutput   `json:"outputs"`
	Request          json.RawMessage `json:"request"`
}

type stateFile struct {
	Serial    int64                     `json:"serial"`
	Resources map[string]*stateResource `json:"resources"`
}

// readState reads the state file (not the journal: call it after an apply
// that ended normally), or with the pg backend what 'voxform state pull'
// prints.
func (p *project) readState() *stateFile {
	p.t.Helper()
	var b []byte
	var err error
	if p.pg != "" {
		b = []byte(p.mustRun("state", "pull").stdout)
	} else {
		b, err = os.ReadFile(p.path("voxform.state.json"))
	}
	if err != nil {
		p.t.Fatalf("read state: %v", err)
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		p.t.Fatalf("parse state: %v", err)
	}
	return &st
}

// outputs lists every output path the state records.
func (st *stateFile) outputs() []string {
	var out []string
	for _, r := range st.Resources {
		for _, o := range r.Outputs {
			out = append(out, o.Path)
		}
	}
	return out
}

// filesUnder lists the regular files below rel (slash paths relative to the
// project), hidden ones included.
func (p *project) filesUnder(rel string) []string {
	p.t.Helper()
	var out []string
	root := p.path(rel)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			r, _ := filepath.Rel(p.dir, path)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}
