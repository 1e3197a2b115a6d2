package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
)

// rateRun is one apply against an emulator with a rate limit of its own.
type rateRun struct {
	id          string
	rps         float64
	n           int // syntheses, one request each when none is refused
	parallelism int
}

// rateRuns are R1 to R5: the service's rate at 5, 20 and 100 requests a
// second at parallelism 16, and at 20 with parallelism 1 and 64. At 5 a
// second 2,000 requests take 400 s, so R1 applies 500 (100 s); quick runs
// apply fewer.
func (h *harness) rateRuns() []rateRun {
	if h.sz.quick {
		return []rateRun{{"R1", 5, 100, 16}, {"R2", 20, 400, 16}, {"R3", 100, 1000, 16}, {"R4", 20, 400, 1}, {"R5", 20, 400, 64}}
	}
	return []rateRun{{"R1", 5, 500, 16}, {"R2", 20, 2000, 16}, {"R3", 100, 2000, 16}, {"R4", 20, 2000, 1}, {"R5", 20, 2000, 64}}
}

// rateLimit measures R1 to R5: apply against the emulator's -rps, the
// achieved rate of admitted requests as a fraction of R (whole process,
// start-up and the learning of the rate included) and the share of
// requests answered 429.
func (h *harness) rateLimit(ctx context.Context) error {
	for _, rr := range h.rateRuns() {
		if err := h.rateApply(ctx, rr); err != nil {
			return fmt.Errorf("%s: %w", rr.id, err)
		}
	}
	return nil
}

func (h *harness) rateApply(ctx context.Context, rr rateRun) error {
	dir := filepath.Join(h.work, "rate-"+rr.id)
	if err := writeSyntheses(dir, rr.n, rr.parallelism); err != nil {
		return err
	}
	// The bucket's size is set here, as the emulator's -rps-burst would,
	// so that the figures can name it.
	burst := max(2, int((rr.rps+9)/10))
	e, err := startEmulator(emulator.Options{RPS: rr.rps, Burst: burst})
	if err != nil {
		return err
	}
	defer e.stop()
	m, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", rr.parallelism))
	if err != nil {
		return err
	}
	st, err := e.rateStats(ctx)
	if err != nil {
		return err
	}
	files, _, err := countFiles(filepath.Join(dir, "build"))
	if err != nil {
		return err
	}
	var requests int64
	for _, c := range st.Requests {
		requests += c
	}
	admitted := requests - st.RateLimited
	if files != rr.n || st.Syntheses != int64(rr.n) || admitted != int64(rr.n) {
		return fmt.Errorf("%d syntheses: %d files, %d synthesized, %d requests admitted: see %s", rr.n, files, st.Syntheses, admitted, m.LogPath)
	}
	achieved := float64(admitted) / m.Wall.Seconds() / rr.rps
	share := float64(st.RateLimited) / float64(max(requests, 1))
	h.add(result{ID: rr.id, What: fmt.Sprintf("apply against a service limited to %g requests/s, parallelism %d", rr.rps, rr.parallelism),
		Target: ">= 95% of R, <= 2% answered 429",
		Figure: fmt.Sprintf("%.1f%% of R, %.2f%% 429", 100*achieved, 100*share),
		// The target is for 2,000 requests: a quick run's fewer spend
		// a larger part learning the rate.
		Verdict: h.verdict(achieved >= 0.95 && share <= 0.02, true),
		Details: []string{fmt.Sprintf("emulator -rps %g (bucket of %d), latency 0; `voxform apply -auto-approve -parallelism=%d` of %s syntheses, whole process: %s s wall "+
			"(%s s at R exactly), %d requests admitted, %d answered 429 (rate_limited), each synthesized once; %s",
			rr.rps, burst, rr.parallelism, numfmt.Thousands(rr.n), secs(m.Wall), secsF(float64(rr.n)/rr.rps), admitted, st.RateLimited, cpuOf(m))},
	})
	return nil
}

// rateStats is the part of GET /_emulator/stats the rate runs read.
type rateStats struct {
	Requests    map[string]int64 `json:"requests"`
	RateLimited int64            `json:"rate_limited"`
	Syntheses   int64            `json:"syntheses"`
}

func (e *emu) rateStats(ctx context.Context) (rateStats, error) {
	var s rateStats
	err := e.statsInto(ctx, &s)
	return s, err
}

// secsF formats seconds as secs does a duration.
func secsF(s float64) string { return fmt.Sprintf("%.1f", s) }
