package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestFaultsConverge applies every example against an emulator that
// answers 500/503, rate-limits (429, Retry-After 0) and cuts connections
// mid-body, all at once (SPEC section 11, reliability). Apply retries what
// it can; a resource that exhausted its retries fails alone and the next
// apply does only what is left. Within three applies every example must
// converge: empty plan, valid outputs, verify clean, nothing left pending.
func TestFaultsConverge(t *testing.T) {
	t.Parallel()
	ffprobe(t)
	tests := []struct {
		name    string
		outputs int
	}{
		{"ivr-prompts", 18}, // each prompt and its telephony WAV
		{"hindi-narration", 2},
		{"cloned-voice", 3},
		{"call-transcripts", 12},
		{"short-clips", 7},
		{"url-batch", 6},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var faults int64
			for round := range faultRounds {
				e := startEmulator(t, emulator.Options{
					Seed: uint64(100*i + round), NoEspeak: true,
					FailRate: 0.15, RateLimit: 0.1, RetryAfter: 0, DropRate: 0.1,
				})
				p := newProject(t, tc.name, e)
				if tc.name == "url-batch" {
					srv := httptest.NewServer(http.FileServer(http.Dir(p.path("served"))))
					t.Cleanup(srv.Close)
					p.vars = []string{"-var", "recordings=" + srv.URL}
				}
				applies := converge(t, p, 3)
				checkOutputs(t, p, tc.outputs)
				p.verify()
				assertNoTemps(t, p)
				s := e.stats(t)
				t.Logf("round %d converged in %d apply(s); faults injected %v", round, applies, s.FaultsInjected)
				for _, n := range s.FaultsInjected {
					faults += n
				}
			}
			if faults == 0 {
				t.Fatalf("no fault was injected in %d rounds: the test proved nothing", faultRounds)
			}
		})
	}
}

// faultRounds is how many times each example is applied under faults, each
// time with another seed: the examples are small, and one round may draw
// no fault at all.
const faultRounds = 4

// converge applies until an apply succeeds and the plan is empty, at most
// max times, and returns how many applies it took.
func converge(t testing.TB, p *project, max int) int {
	t.Helper()
	var last result
	for n := 1; n <= max; n++ {
		last = p.apply()
		if last.code == 0 {
			if _, sum := p.plan(); sum.changes() == 0 {
				return n
			}
			continue
		}
		if last.code != 1 {
			t.Fatalf("apply %d: %s", n, last)
		}
		t.Logf("apply %d failed (a new apply does what is left):\n%s", n, last)
	}
	t.Fatalf("%s", fmt.Sprintf("no convergence within %d applies; last:\n%s", max, last))
	return 0
}
