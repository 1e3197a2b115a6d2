package e2e_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// TestInterruptResumes interrupts an apply while batch jobs run (SPEC
// section 6). One SIGINT: nothing new starts, syntheses in flight finish
// and are recorded. Two: calls in flight are cancelled, leaving no partial
// file. Either way apply exits 130 with the batch jobs recorded as pending,
// and the next apply resumes them (plan: resume) without creating or
// submitting any job again (SPEC section 4); everything then verifies.
// TestInterruptStages proves what each signal does to the calls in flight.
func TestInterruptResumes(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	for _, signals := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d SIGINT", signals), func(t *testing.T) {
			t.Parallel()
			bp := interrupt(t, signals, 4)
			resume(t, bp, signals)
		})
	}
	// destroy cancels what the interrupt left pending (SPEC section 6).
	// Its batch job runs at the service's own pace, so that it is still
	// running when destroy comes, however loaded the machine: at four
	// times that pace it could finish first (nothing left to cancel).
	t.Run("destroy", func(t *testing.T) {
		t.Parallel()
		bp := interrupt(t, 1, 1)
		calls := bp.e.stats(t)
		bp.mustRun("destroy", "-auto-approve")
		s := bp.e.stats(t)
		if s.BatchJobsCancelled != 1 || s.BatchJobsCreated != calls.BatchJobsCreated || s.LegacyJobs != calls.LegacyJobs {
			t.Fatalf("destroy after an interrupt: %d batch jobs cancelled (want the 1 pending), %d created, %d older submitted",
				s.BatchJobsCancelled, s.BatchJobsCreated, s.LegacyJobs)
		}
		if left := bp.filesUnder("build"); len(left) != 0 {
			t.Fatalf("destroy left %v", left)
		}
		if st := bp.readState(); len(st.Resources) != 0 {
			t.Fatalf("state still records %d resources", len(st.Resources))
		}
	})
}

// interruptedProject is a generated project whose apply was interrupted.
type interruptedProject struct {
	*bigProject
	e        *emu
	pending  int
	complete int
}

// interrupt applies a generated project and sends signals SIGINTs once
// its batch jobs run, then checks what the interrupted apply left. Batch
// jobs run timeScale times faster than the service's pace.
func interrupt(t *testing.T, signals int, timeScale float64) *interruptedProject {
	// Batch jobs take a few seconds here (at a time scale of 4, the older
	// batch job of three files about two), so the interrupt finds both
	// running; slow answers keep syntheses in flight.
	e := startEmulator(t, emulator.Options{Seed: 11, NoEspeak: true, Latency: time.Duration(signals) * 40 * time.Millisecond, TimeScale: timeScale})
	bp := newBigProject(t, e, 10, 6, 3)
	run := bp.start("apply", "-auto-approve")
	if !run.waitFor(func() bool { s := e.stats(t); return s.BatchJobsStarted == 1 && s.LegacyJobs == 1 }) {
		t.Fatalf("apply ended before its batch jobs started:\n%s", run.wait())
	}
	started := time.Now()
	for range signals {
		run.signal(syscall.SIGINT)
		time.Sleep(5 * time.Millisecond) // two separate signals, not one
	}
	r := run.wait()
	if r.code != 130 || !strings.Contains(r.stderr, "interrupted") {
		t.Fatalf("apply after %d SIGINT: want exit 130 saying interrupted:\n%s", signals, r)
	}
	t.Logf("apply stopped %v after the interrupt", time.Since(started).Round(time.Millisecond))
	assertNoTemps(t, bp.project)

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
	if signals == 1 && recordedChars != s.BilledCharacters {
		t.Fatalf("the service billed %d characters, the state records %d: in-flight work was lost", s.BilledCharacters, recordedChars)
	}
	if want := bp.batchFiles + bp.legacyFiles; pending != want {
		t.Fatalf("%d transcriptions recorded pending, want %d", pending, want)
	}
	if complete == bp.syntheses {
		t.Logf("every synthesis had finished before the interrupt")
	}
	bp.verify()
	return &interruptedProject{bigProject: bp, e: e, pending: pending, complete: complete}
}

// resume applies an interrupted project again: its pending jobs are
// followed, never created or submitted again.
func resume(t *testing.T, ip *interruptedProject, signals int) {
	bp, e, pending, complete := ip.bigProject, ip.e, ip.pending, ip.complete

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
	if signals == 1 && after.BilledCharacters != bp.totalChars {
		t.Fatalf("billed %d characters in all, want %d", after.BilledCharacters, bp.totalChars)
	}
	bp.assertNoChanges()
	n := 0
	checkSomeOutputs(t, bp.project, bp.outputs, func() bool { n++; return n%4 == 1 }) // ffprobe is slow
	bp.verify()
	assertNoTemps(t, bp.project)
}

// TestInterruptStages proves what each Ctrl-C does to calls in flight (SPEC
// section 6), with syntheses held by the emulator's latency, parallelism at
// a time, so that the requests it has seen are exactly those in flight.
//
// One SIGINT: nothing new starts (the emulator sees no request after the
// signal), and the calls in flight finish, are billed and are recorded.
// Two: the calls in flight are cancelled. apply exits 130 long before they
// could have finished (within half the latency), having recorded nothing
// and left no file, whole or partial, at any output path.
func TestInterruptStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		signals int
		latency time.Duration
	}{
		{1, 1500 * time.Millisecond},
		{2, 3 * time.Second},
	} {
		t.Run(fmt.Sprintf("%d SIGINT", tc.signals), func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, emulator.Options{Seed: 13, NoEspeak: true, Latency: tc.latency})
			bp := newBigProject(t, e, 4, 0, 0)
			run := bp.start("apply", "-auto-approve")
			if !run.waitFor(func() bool { return e.stats(t).calls() >= int64(bp.parallelism) }) {
				t.Fatalf("apply ended before its syntheses were in flight:\n%s", run.wait())
			}
			inFlight := time.Now()
			atSignal := e.stats(t).calls()
			if atSignal != int64(bp.parallelism) {
				t.Fatalf("%d calls in flight at once, want parallelism %d", atSignal, bp.parallelism)
			}
			run.signal(syscall.SIGINT)
			if tc.signals == 2 {
				time.Sleep(20 * time.Millisecond) // two separate signals, not one
				run.signal(syscall.SIGINT)
			}
			r := run.wait()
			stopped := time.Since(inFlight)
			if r.code != 130 || !strings.Contains(r.stderr, "interrupted") {
				t.Fatalf("apply after %d SIGINT: want exit 130 saying interrupted:\n%s", tc.signals, r)
			}
			s := e.stats(t)
			if s.calls() != atSignal {
				t.Fatalf("after the interrupt the service got %d new requests, want none: %v", s.calls()-atSignal, s.Requests)
			}
			assertNoTemps(t, bp.project)
			t.Logf("apply stopped %v after the calls in flight began (latency %v)", stopped.Round(time.Millisecond), tc.latency)
			complete, recorded := 0, int64(0)
			if bp.exists("voxform.state.json") {
				for addr, res := range bp.readState().Resources {
					if res.Status != "complete" {
						t.Errorf("%s: status %q after the interrupt", addr, res.Status)
					}
					complete++
					recorded += res.BilledCharacters
				}
			}
			switch tc.signals {
			case 1:
				// The drain: every call in flight finished and was recorded.
				if complete != bp.parallelism || recorded != s.BilledCharacters || s.Syntheses != int64(bp.parallelism) {
					t.Fatalf("%d syntheses recorded for %d characters; the service made %d and billed %d: want the %d in flight finished and recorded",
						complete, recorded, s.Syntheses, s.BilledCharacters, bp.parallelism)
				}
				checkOutputs(t, bp.project, bp.parallelism)
			case 2:
				if stopped > tc.latency/2 {
					t.Fatalf("apply took %v to stop after a second SIGINT, with calls in flight for %v: they were not cancelled", stopped, tc.latency)
				}
				if complete != 0 {
					t.Fatalf("%d cancelled syntheses recorded, want none", complete)
				}
				if files := bp.filesUnder("build"); len(files) != 0 {
					t.Fatalf("cancelled calls left %v", files)
				}
			}
		})
	}
}
