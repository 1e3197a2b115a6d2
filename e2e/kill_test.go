package e2e_test

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// TestKill9Converges kills 'voxform apply' with SIGKILL at random instants
// (planning, syntheses on every transport, batch uploads, polling,
// transcript downloads, recording) and applies again, round after round
// (SPEC section 4 and the reliability list of section 11). Each round must
// converge to an empty plan with every output matching its recorded hash,
// no temporary file left, and no paid work repeated beyond what a kill can
// cost:
//   - a batch job is started exactly once; any other created job is an
//     orphan of a kill between its create call and its record (at most one
//     per kill: batch jobs of one block are created one after another) and
//     is never started;
//   - an older batch submission starts work at once, so a kill between the
//     call and its record can repeat at most the one submission in flight;
//   - syntheses are re-billed only when a kill landed between the service's
//     answer and the record: at most parallelism syntheses per kill.
func TestKill9Converges(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 9))
	opts := func(round int) emulator.Options {
		return emulator.Options{Seed: seed + uint64(round), NoEspeak: true, Latency: 25 * time.Millisecond, TimeScale: 50}
	}

	// An uninterrupted apply sets the time scale of the kills and the
	// figures of a run that pays exactly once.
	e := startEmulator(t, opts(0))
	bp := newBigProject(t, e, killPerBlock, killBatchFiles, killLegacyFiles)
	start := time.Now()
	if r := bp.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	full := time.Since(start)
	base := e.stats(t)
	if base.BilledCharacters != bp.totalChars || base.BatchJobsCreated != 1 || base.BatchJobsStarted != 1 || base.LegacyJobs != bp.legacyJobs() {
		t.Fatalf("uninterrupted apply: %+v, want %d characters, 1 batch job, %d older batch jobs", base, bp.totalChars, bp.legacyJobs())
	}

	var totalKills int
	var totalRebilled, totalBound, totalOrphans, totalLegacyRepeats int64
	for round := 1; round <= killRounds; round++ {
		e := startEmulator(t, opts(round))
		bp := newBigProject(t, e, killPerBlock, killBatchFiles, killLegacyFiles)
		kills := 0
		for k := range killsPerRound {
			// Later applies have less left to do: aim earlier.
			window := int64(full) * 4 / int64(5+3*k)
			delay := time.Duration(rnd.Int64N(window)) + 10*time.Millisecond
			if killed, _ := bp.applyKilledAfter(delay); !killed {
				break // it finished first
			}
			kills++
		}
		converge(t, bp.project, 3)
		bp.verify()
		assertNoTemps(t, bp.project)
		checkSomeOutputs(t, bp.project, bp.outputs, func() bool { return rnd.IntN(20) == 0 })
		assertOneJobPerBlock(t, bp.project)

		s := e.stats(t)
		rebilled := s.BilledCharacters - bp.totalChars
		bound := int64(kills*bp.parallelism) * bp.maxChars
		orphans := s.BatchJobsCreated - 1
		legacyRepeats := s.LegacyJobs - bp.legacyJobs()
		t.Logf("round %d: %d kills; re-billed %d characters (bound %d); %d orphan batch job(s); %d repeated older batch submission(s)",
			round, kills, rebilled, bound, orphans, legacyRepeats)
		switch {
		case s.BatchJobsStarted != 1:
			t.Fatalf("round %d: %d batch jobs started, want exactly 1: %+v", round, s.BatchJobsStarted, s)
		case orphans < 0 || orphans > int64(kills):
			t.Fatalf("round %d: %d batch jobs created after %d kills", round, s.BatchJobsCreated, kills)
		case legacyRepeats < 0 || legacyRepeats > int64(kills):
			t.Fatalf("round %d: %d older batch submissions after %d kills, want at most %d", round, s.LegacyJobs, kills, bp.legacyJobs()+int64(kills))
		case rebilled < 0 || rebilled > bound:
			t.Fatalf("round %d: billed %d characters for %d, %d more than the %d characters %d kills can cost", round, s.BilledCharacters, bp.totalChars, rebilled, bound, kills)
		case s.PresignedWithKey != 0:
			t.Fatalf("round %d: %d presigned downloads carried the API key", round, s.PresignedWithKey)
		}
		totalKills += kills
		totalRebilled += rebilled
		totalBound += bound
		totalOrphans += orphans
		totalLegacyRepeats += legacyRepeats
	}
	t.Logf("%d kills in %d rounds (uninterrupted apply %v): re-billed %d characters of a %d bound; %d orphan batch job(s), never started; %d repeated older batch submission(s)",
		totalKills, killRounds, full.Round(time.Millisecond), totalRebilled, totalBound, totalOrphans, totalLegacyRepeats)
	if totalKills < killRounds {
		t.Fatalf("only %d applies were killed: the test proved little", totalKills)
	}
}

// The size of TestKill9Converges: rounds of up to killsPerRound kills on a
// project of 3*killPerBlock syntheses, a batch job and older batch jobs.
const (
	killRounds      = 5
	killsPerRound   = 4
	killPerBlock    = 20
	killBatchFiles  = 25
	killLegacyFiles = 12
)

// applyKilledAfter starts 'voxform apply' and kills it with SIGKILL after
// delay. It reports whether the kill happened (false: the apply finished
// first, successfully) and what the process printed.
func (p *project) applyKilledAfter(delay time.Duration) (bool, result) {
	p.t.Helper()
	cmd, stdout, stderr := p.command("apply", "-auto-approve")
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		r := result{args: []string{"apply"}, stdout: stdout.String(), stderr: stderr.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.code = ee.ExitCode()
		}
		if err != nil {
			p.t.Fatalf("apply ended before its kill:\n%s", r)
		}
		return false, r
	case <-time.After(delay):
		_ = cmd.Process.Kill()
		<-done
		return true, result{args: []string{"apply"}, stdout: stdout.String(), stderr: stderr.String(), code: -1}
	}
}

// assertOneJobPerBlock proves every transcription of a block came from one
// batch job (the project's blocks fit in one batch job each; the older
// batch block may take several).
func assertOneJobPerBlock(t testing.TB, p *project) {
	t.Helper()
	jobs := map[string]string{}
	for addr, r := range p.readState().Resources {
		if r.Kind != "transcription" || r.JobAPI != "batch" {
			continue
		}
		if r.JobID == "" {
			t.Fatalf("%s records no job id", addr)
		}
		jobs[r.JobID] = addr
	}
	if len(jobs) != 1 {
		t.Fatalf("batch transcriptions came from %d jobs, want 1: %v", len(jobs), jobs)
	}
}
