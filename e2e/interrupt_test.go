package e2e_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// TestInterruptResumes sends one SIGINT while batch jobs run (SPEC
// section 6, first Ctrl-C): nothing new starts, syntheses in flight finish
// and are recorded, apply exits 130, and the batch jobs stay recorded as
// pending. The next apply resumes them (plan: resume) without creating or
// submitting any job again (SPEC section 4), and everything verifies.
func TestInterruptResumes(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	// Batch jobs take a few seconds here, so the interrupt finds them running.
	e := startEmulator(t, emulator.Options{Seed: 11, NoEspeak: true, Latency: 20 * time.Millisecond, TimeScale: 8})
	bp := newBigProject(t, e, 10, 6, 3)
	run := bp.start("apply", "-auto-approve")
	if !run.waitFor(func() bool { s := e.stats(t); return s.BatchJobsStarted == 1 && s.LegacyJobs == 1 }) {
		t.Fatalf("apply ended before its batch jobs started:\n%s", run.wait())
	}
	started := time.Now()
	run.signal(syscall.SIGINT)
	r := run.wait()
	if r.code != 130 || !strings.Contains(r.stderr, "interrupted") {
		t.Fatalf("apply after one SIGINT: want exit 130 saying interrupted:\n%s", r)
	}
	t.Logf("apply stopped %v after the interrupt", time.Since(started).Round(time.Millisecond))

	// Every synthesis the service billed was recorded: none was cut off.
	s := e.stats(t)
	st := bp.readState()
	var recordedChars int64
	pending, complete := 0, 0
	for addr, res := range st.Resources {
		switch {
		case res.Kind == "synthesis" && res.Status == "complete":
			recordedChars += res.BilledCharacters
			complete++
		case res.Kind == "transcription" && res.Status == "pending" && res.JobID != "":
			pending++
		default:
			t.Errorf("%s: %s %s job %q after the interrupt", addr, res.Kind, res.Status, res.JobID)
		}
	}
	if recordedChars != s.BilledCharacters {
		t.Fatalf("the service billed %d characters, the state records %d: in-flight work was lost", s.BilledCharacters, recordedChars)
	}
	if want := bp.batchFiles + bp.legacyFiles; pending != want {
		t.Fatalf("%d transcriptions recorded pending, want %d", pending, want)
	}
	if complete == bp.syntheses {
		t.Logf("every synthesis had finished before the interrupt")
	}
	bp.verify()

	_, sum := bp.plan()
	if sum.Resume != pending || sum.Add != bp.syntheses-complete || sum.changes() != sum.Resume+sum.Add {
		t.Fatalf("plan after the interrupt: %+v, want %d to resume and %d to add", sum, pending, bp.syntheses-complete)
	}
	if r := bp.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	after := e.stats(t)
	if after.BatchJobsCreated != 1 || after.BatchJobsStarted != 1 || after.LegacyJobs != 1 {
		t.Fatalf("resuming created or started jobs again: %d batch jobs created, %d started, %d older batch jobs submitted",
			after.BatchJobsCreated, after.BatchJobsStarted, after.LegacyJobs)
	}
	if after.BilledCharacters != bp.totalChars {
		t.Fatalf("billed %d characters in all, want %d", after.BilledCharacters, bp.totalChars)
	}
	bp.assertNoChanges()
	checkSomeOutputs(t, bp.project, bp.outputs, func() bool { return true })
	bp.verify()
	assertNoTemps(t, bp.project)
}
