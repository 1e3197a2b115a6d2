package e2e_test

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// TestKill9Converges kills 'voxform apply' with SIGKILL at chosen points
// (SPEC section 4 and the reliability list of section 11) and applies
// again, round after round. The kills are aimed, not timed: a handler in
// front of the emulator kills voxform when it sees the nth request of one
// kind (killPoints: syntheses on every transport cut mid-answer, an
// embedding, a batch upload cut mid-body, a batch job created or started
// but not yet recorded, status polls, transcript downloads cut mid-body,
// older batch submissions and polls, REST transcriptions), so every phase
// is proved hit. Each round opens with a kill at its own phase (a fresh
// apply always reaches it), then kills at random phases until an apply
// finishes. Each round must converge to an empty plan with every output
// matching its recorded hash, no temporary file left, and no paid work
// repeated beyond what a kill can cost:
//   - a batch job is started exactly once; any other created job is an
//     orphan of a kill between its create call and its record (at most one
//     per kill: batch jobs of one block are created one after another),
//     never started, and found in the jobs listing and cancelled by a
//     later apply;
//   - an older batch submission starts work at once, so a kill between the
//     call and its record can repeat at most the one submission in flight;
//   - syntheses, embeddings and REST transcriptions are billed again only
//     when a kill landed between the service's answer and the record: at
//     most twice parallelism of them per kill (parallelism calls in flight,
//     and as many more writing and recording an answer they received: a
//     finished call does not hold its slot while its output is synced).
//
// conformance: BJ-056, BJ-071, BJ-074, BJ-085, BJ-087, OB-021, OB-031, VC-014
func TestKill9Converges(t *testing.T) { kill9Converges(t, false) }

// TestKill9ConvergesPG is TestKill9Converges with the state in PostgreSQL
// (each round's project in a database of its own): the same guarantees,
// the lock of each killed apply free within its lease. It runs in the
// live-profile pass only: the state backend is the same under either
// profile, whose requests TestKill9Converges kills under both.
//
// conformance: BJ-056, BJ-071, BJ-074, BJ-085, BJ-087, OB-021, OB-031, VC-014
func TestKill9ConvergesPG(t *testing.T) {
	onceAcrossProfiles(t)
	kill9Converges(t, true)
}

func kill9Converges(t *testing.T, pg bool) {
	t.Parallel()
	ffprobe(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 9))
	opts := func(round int) emulator.Options {
		return emulator.Options{Seed: seed + uint64(round), NoEspeak: true, Latency: 10 * time.Millisecond, TimeScale: 100}
	}
	newKillProject := func(e *emu) *bigProject {
		bp := newBigProject(t, e, killPerBlock, killBatchFiles, killLegacyFiles)
		bp.addCloneAndClips(killCloned, killClips)
		if pg {
			bp.usePG()
		}
		return bp
	}

	// An uninterrupted apply gives the figures of a run that pays exactly
	// once.
	e := startEmulator(t, opts(0))
	bp := newKillProject(e)
	if r := bp.apply(); r.code != 0 {
		t.Fatalf("%s", r)
	}
	base := e.stats(t)
	if base.BilledCharacters != bp.totalChars || base.BatchJobsCreated != 1 || base.BatchJobsStarted != 1 ||
		base.LegacyJobs != bp.legacyJobs() || base.EmbeddingsCreated != 1 {
		t.Fatalf("uninterrupted apply: %+v, want %d characters, 1 embedding, 1 batch job, %d older batch jobs", base, bp.totalChars, bp.legacyJobs())
	}
	points := killPoints(bp, killPerBlock, killCloned)

	hits := map[string]int{}
	var totalKills int
	var totalRebilled, totalBound, totalOrphans, totalLegacyRepeats int64
	for round, first := range points {
		k := &killer{}
		e := startEmulatorBehind(t, opts(round+1), k.wrap)
		bp := newKillProject(e)
		kills := 0
		for attempt := range killsPerRound {
			point := first
			if attempt > 0 {
				point = points[rnd.IntN(len(points))]
			}
			n := 1 + rnd.IntN(point.most)
			killed, r := bp.applyKilledAt(k, point, n)
			if !killed {
				if attempt == 0 {
					t.Fatalf("round %d: a fresh apply finished without reaching %s (request %d)", round, point.phase, n)
				}
				break // it finished first
			}
			kills++
			hits[point.phase]++
			// Whatever the phase, the journal, state and outputs a kill
			// leaves hold no key, nor did anything printed before it.
			scan := &secretScan{t: t, printed: []result{r}}
			scan.check(bp.dir, testKey)
		}
		converge(t, bp.project, 3)
		bp.verify()
		assertNoTemps(t, bp.project)
		checkSomeOutputs(t, bp.project, bp.outputs, func() bool { return rnd.IntN(20) == 0 })
		assertOneJobPerBlock(t, bp.project)

		s := e.stats(t)
		rebilled := s.BilledCharacters - bp.totalChars
		unrecorded := 2 * bp.parallelism // at most, at any instant (see above)
		bound := int64(kills*unrecorded) * bp.maxChars
		orphans := s.BatchJobsCreated - 1
		legacyRepeats := s.LegacyJobs - bp.legacyJobs()
		// Every file here lasts 1.2 s: REST transcriptions in flight and
		// the files of repeated older batch submissions are billed again.
		audioBound := 1.2*float64(kills*unrecorded+int(legacyRepeats)*10) + 0.01
		t.Logf("round %d (%s): %d kills; re-billed %d characters (bound %d), %.1f s of audio (bound %.1f); %d orphan batch job(s); %d repeated older batch submission(s)",
			round, first.phase, kills, rebilled, bound, s.BilledAudioSeconds-base.BilledAudioSeconds, audioBound, orphans, legacyRepeats)
		switch {
		case s.BatchJobsStarted != 1:
			t.Fatalf("round %d: %d batch jobs started, want exactly 1: %+v", round, s.BatchJobsStarted, s)
		case orphans < 0 || orphans > int64(kills):
			t.Fatalf("round %d: %d batch jobs created after %d kills", round, s.BatchJobsCreated, kills)
		case s.BatchJobsCancelled != orphans:
			t.Fatalf("round %d: %d orphan batch job(s), %d cancelled: the sweep must find and cancel each", round, orphans, s.BatchJobsCancelled)
		case legacyRepeats < 0 || legacyRepeats > int64(kills):
			t.Fatalf("round %d: %d older batch submissions after %d kills, want at most %d", round, s.LegacyJobs, kills, bp.legacyJobs()+int64(kills))
		case rebilled < 0 || rebilled > bound:
			t.Fatalf("round %d: billed %d characters for %d, %d more than the %d characters %d kills can cost", round, s.BilledCharacters, bp.totalChars, rebilled, bound, kills)
		case s.BilledAudioSeconds < base.BilledAudioSeconds-0.01 || s.BilledAudioSeconds-base.BilledAudioSeconds > audioBound:
			t.Fatalf("round %d: billed %.2f s of audio for %.2f, more than %d kills can cost", round, s.BilledAudioSeconds, base.BilledAudioSeconds, kills)
		case s.EmbeddingsCreated < 1 || s.EmbeddingsCreated > 1+int64(kills):
			t.Fatalf("round %d: %d embeddings created after %d kills", round, s.EmbeddingsCreated, kills)
		case s.PresignedWithKey != 0:
			t.Fatalf("round %d: %d presigned downloads carried the API key", round, s.PresignedWithKey)
		}
		totalKills += kills
		totalRebilled += rebilled
		totalBound += bound
		totalOrphans += orphans
		totalLegacyRepeats += legacyRepeats
	}
	t.Logf("%d kills in %d rounds: re-billed %d characters of a %d bound; %d orphan batch job(s), never started; %d repeated older batch submission(s); kills per phase %v",
		totalKills, len(points), totalRebilled, totalBound, totalOrphans, totalLegacyRepeats, hits)
	for _, p := range points {
		if hits[p.phase] == 0 {
			t.Errorf("no kill landed at %s", p.phase)
		}
	}
}

// The size of TestKill9Converges: each round applies, killed up to
// killsPerRound times, a project of 3*killPerBlock syntheses, killCloned
// syntheses in a cloned voice, a batch job, older batch jobs and
// killClips REST transcriptions.
const (
	killsPerRound   = 3
	killPerBlock    = 8
	killCloned      = 4
	killBatchFiles  = 8
	killLegacyFiles = 12
	killClips       = 3
)

// applyKilledAt starts 'voxform apply' with k aimed at the nth request of
// point. It reports whether the kill landed (false: the apply finished
// first, successfully) and what the process printed.
func (p *project) applyKilledAt(k *killer, point *killPoint, n int) (bool, result) {
	p.t.Helper()
	cmd, stdout, stderr := p.command("apply", "-auto-approve")
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	// voxform loads and plans before its first request: armed in time.
	k.arm(cmd.Process, point, n)
	err := cmd.Wait()
	aimed := k.disarm()
	r := result{args: []string{"apply"}, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL && aimed {
			r.code = -1
			return true, r
		}
	}
	if err != nil {
		p.t.Fatalf("apply ended on its own (%v) before its kill at %s:\n%s", err, point.phase, r)
	}
	return false, r
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
