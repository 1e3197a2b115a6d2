package e2e_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/pgtest"
)

// pgLease is the lease of the tests' pg states: short, so that a test
// does not wait long for the lock of a process it killed.
const pgLease = time.Second

// usePG puts the project's state in a new database of the shared
// PostgreSQL server (VOXFORM_BACKEND=pg and VOXFORM_PG, as a CI job would
// set them; the lease in a manifest file of its own).
func (p *project) usePG() {
	p.t.Helper()
	p.pg = pgtest.Database(p.t)
	p.env = append(p.env, "VOXFORM_BACKEND=pg", "VOXFORM_PG="+p.pg)
	p.writeFile("backend.yaml", "backend:\n  lease: "+pgLease.String()+"\n")
}

// Two applies on one pg state: the second is refused at once, naming the
// first. After a kill -9 of the first while its batch job is pending, a
// new apply gets the lock within the lease and resumes the job without
// creating another. Nothing is written beside the manifests but outputs.
func TestPGSecondApplyRefusedAndKilledJobResumed(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	// The batch job runs at the service's own pace (seconds), so that it
	// is still pending when the first apply is killed, however loaded the
	// machine: at four times that pace it could finish first.
	e := startEmulator(t, emulator.Options{TimeScale: 1, NoEspeak: true})
	p := newProject(t, "call-transcripts", e)
	p.usePG()
	// A lease the new apply surely starts within after the kill, however
	// loaded the machine, so that it finds the lease still running.
	const lease = 3 * time.Second
	p.writeFile("backend.yaml", "backend:\n  lease: "+lease.String()+"\n")

	first := p.start("apply", "-auto-approve")
	if !first.waitFor(func() bool { return e.stats(t).BatchJobsStarted == 1 }) {
		t.Fatalf("the batch job was never started:\n%s", first.wait())
	}
	start := time.Now()
	r := p.run("apply", "-auto-approve")
	if r.code == 0 || !strings.Contains(r.stderr, "state is locked by pid "+strconv.Itoa(first.cmd.Process.Pid)) || !strings.Contains(r.stderr, "operation apply") {
		t.Fatalf("second apply: %s", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refused after %v, want at once", d)
	}
	pending := p.readState()
	jobs := 0
	for _, res := range pending.Resources {
		if res.Status == "pending" && res.JobID != "" {
			jobs++
		}
	}
	if jobs == 0 {
		t.Fatalf("no pending batch job recorded while the first apply runs: %+v", pending)
	}
	first.signal(syscall.SIGKILL)
	first.wait()
	killed := time.Now()

	r = p.mustRun("apply", "-auto-approve")
	if !strings.Contains(r.stderr, "is gone; waiting for its lease") {
		t.Errorf("the new apply did not say what it waited for:\n%s", r)
	}
	if d := time.Since(killed); d > lease+30*time.Second {
		t.Errorf("apply took %v after the kill", d)
	}
	s := e.stats(t)
	if s.BatchJobsCreated != 1 || s.BatchJobsStarted != 1 {
		t.Fatalf("after the kill: %d batch jobs created, %d started, want the one resumed", s.BatchJobsCreated, s.BatchJobsStarted)
	}
	p.assertNoChanges()
	if p.exists("voxform.state.json") || p.exists("voxform.state.json.journal") || p.exists("voxform.state.json.lock") {
		t.Errorf("a local state file was written beside the manifests: %v", p.filesUnder("."))
	}
}

// A PostgreSQL restart in the middle of an apply stops it cleanly: the
// work recorded before stays recorded, nothing is paid twice, and the
// next apply converges.
func TestPGRestartMidApply(t *testing.T) {
	onceAcrossProfiles(t)
	e := startEmulator(t, emulator.Options{NoEspeak: true, Latency: 40 * time.Millisecond})
	bp := newBigProject(t, e, 40, 0, 0)
	bp.usePG()
	run := bp.start("apply", "-auto-approve", "-parallelism", "2")
	if !run.waitFor(func() bool { return e.stats(t).BilledCharacters > 0 }) {
		t.Fatalf("apply made no call:\n%s", run.wait())
	}
	time.Sleep(300 * time.Millisecond)
	srv := pgtest.Shared(t)
	srv.Stop()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	r := run.wait()
	if r.code == 0 {
		t.Logf("the apply finished before it noticed the restart:\n%s", r)
	} else if !strings.Contains(r.stderr, "apply stopped") && !strings.Contains(r.stderr, "lock") {
		t.Fatalf("apply after the restart: %s", r)
	}
	if strings.Contains(r.stderr+r.stdout, srv.Password) {
		t.Fatalf("the database password was printed:\n%s", r)
	}
	recorded := len(bp.readState().Resources)
	converge(t, bp.project, 3)
	bp.verify()
	assertNoTemps(t, bp.project)
	if s := e.stats(t); s.BilledCharacters > bp.totalChars+int64(2*2)*bp.maxChars {
		t.Fatalf("billed %d characters for %d: more than the calls in flight at the restart", s.BilledCharacters, bp.totalChars)
	}
	t.Logf("%d resources recorded when the apply stopped; converged after; it printed:\n%s", recorded, r.stderr)
}

// state migrate -to pg and back through the command line: the local file
// comes back byte for byte, commands refuse the copy left behind, state
// pull prints the state from pg, and no password is ever printed.
func TestPGMigrateByCommand(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{NoEspeak: true})
	p := newProject(t, "ivr-prompts", e)
	p.mustRun("apply", "-auto-approve")
	original := p.readFile("voxform.state.json")

	url := pgtest.Database(t)
	p.env = append(p.env, "VOXFORM_PG="+url)
	r := p.mustRun("state", "migrate", "-to", "pg")
	if !strings.Contains(r.stdout, "VOXFORM_BACKEND=pg") {
		t.Errorf("migrate did not say how to use the new backend:\n%s", r)
	}
	if r := p.run("plan"); r.code == 0 || !strings.Contains(r.stderr, "was migrated to pg") {
		t.Fatalf("plan on the local copy left behind: %s", r)
	}
	local := p.env
	p.env = append(append([]string(nil), local...), "VOXFORM_BACKEND=pg")
	p.pg = url
	pulled := p.mustRun("state", "pull").stdout
	if pulled != original {
		t.Fatalf("state pull from pg:\n%s\nwant:\n%s", pulled, original)
	}
	p.assertNoChanges()
	// A saved plan made and applied against the pg state.
	addr := strings.Fields(p.mustRun("state", "list").stdout)[0]
	before := e.stats(t).BilledCharacters
	p.mustRun("plan", "-replace", addr, "-out", "replace.plan")
	p.mustRun("apply", "replace.plan")
	if e.stats(t).BilledCharacters == before {
		t.Fatalf("the saved plan replacing %s billed nothing", addr)
	}
	p.assertNoChanges()
	original = p.mustRun("state", "pull").stdout
	p.mustRun("state", "migrate", "-to", "local")
	if back := p.readFile("voxform.state.json"); back != original {
		t.Fatalf("round trip:\n%s\nwant:\n%s", back, original)
	}
	if r := p.run("plan"); r.code == 0 || !strings.Contains(r.stderr, "was migrated to local") {
		t.Fatalf("plan on the pg copy left behind: %s", r)
	}
	p.env, p.pg = local, ""
	p.assertNoChanges()

	// A wrong password: the error names the variable and the database,
	// never the password.
	srv := pgtest.Shared(t)
	bad := strings.Replace(url, srv.Password, "Wr0ng-Secret-9", 1)
	p.env = append(append([]string(nil), local...), "VOXFORM_BACKEND=pg", "VOXFORM_PG="+bad)
	r = p.run("plan")
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, "Wr0ng-Secret-9") || !strings.Contains(r.stderr, "password authentication failed") {
		t.Fatalf("plan with a wrong password: %s", r)
	}
	p.env = nil
	for _, kv := range local {
		if !strings.HasPrefix(kv, "VOXFORM_PG=") {
			p.env = append(p.env, kv)
		}
	}
	p.env = append(p.env, "VOXFORM_BACKEND=pg")
	if r := p.run("plan"); r.code == 0 || !strings.Contains(r.stderr, "VOXFORM_PG is not set") {
		t.Fatalf("plan without a connection string: %s", r)
	}
	if b, _ := os.ReadFile(p.path("voxform.state.json")); bytes.Contains(b, []byte(srv.Password)) {
		t.Fatal("the password reached the state")
	}
}
