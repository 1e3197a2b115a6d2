package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
)

// result is one row of the table: a target of SPEC section 11 with the
// figure measured on this machine.
type result struct {
	ID, What, Target string
	Figure           string
	// Verdict is "met", "MISSED", or why there is none (e.g. a quick run
	// at reduced sizes).
	Verdict string
	Details []string
}

// sizes are the sizes of one run: SPEC section 11's, or reduced (-quick).
type sizes struct {
	quick         bool
	syntheses     int           // P1, P2, P4, P7, P8
	applied       int           // P3
	latency       time.Duration // P3
	parallelism   int           // P3
	audioSecs     float64       // P5
	recordings    int           // P6
	batchFiles    int           // B1 to B6
	runs          int           // repetitions of each timed plan/validate
	pgResources   int           // G1, G2
	chapterChars  int           // N1 to N4
	leanSyntheses int           // L1 to L6
	sideBySide    int           // T1, T2
}

var fullSizes = sizes{syntheses: 10_000, applied: 1_000, latency: 50 * time.Millisecond, parallelism: 16,
	audioSecs: 3600, recordings: 1_000, batchFiles: 10_000, runs: 3, pgResources: 100_000, chapterChars: 100_000,
	leanSyntheses: 100_000, sideBySide: 1_000}

var quickSizes = sizes{quick: true, syntheses: 2_000, applied: 400, latency: 50 * time.Millisecond, parallelism: 16,
	audioSecs: 600, recordings: 200, batchFiles: 1_000, runs: 1, pgResources: 10_000, chapterChars: 20_000,
	leanSyntheses: 10_000, sideBySide: 200}

// harness runs the measurements and collects their results.
type harness struct {
	sz sizes
	r  *runner
	// work holds every generated project until the end of the run: a
	// project deleted between measurements would make the next one's file
	// creations slower (see the order of steps in main.go).
	work string
	log  func(format string, args ...any)

	results []result
}

func (h *harness) add(r result) {
	h.log("%s: %s (%s)", r.ID, r.Figure, r.Verdict)
	h.results = append(h.results, r)
}

// verdict compares a figure with its target; a quick run's reduced sizes
// do not compare with targets set for full sizes.
func (h *harness) verdict(ok, sizeDependent bool) string {
	switch {
	case h.sz.quick && sizeDependent:
		return "n/a (quick: reduced size)"
	case ok:
		return "met"
	default:
		return "MISSED"
	}
}

// timed runs voxform h.sz.runs times (before each, prepare, if set) and
// returns the median run.
func (h *harness) timed(ctx context.Context, want int, dir string, prepare func() error, args ...string) (measured, []time.Duration, error) {
	return h.timedAt(ctx, want, dir, "", prepare, args...)
}

// timedAt is timed with voxform pointed at the service at base.
func (h *harness) timedAt(ctx context.Context, want int, dir, base string, prepare func() error, args ...string) (measured, []time.Duration, error) {
	all, err := h.runs(ctx, want, dir, base, prepare, args...)
	if err != nil {
		return measured{}, nil, err
	}
	walls := make([]time.Duration, len(all))
	for i, m := range all {
		walls[i] = m.Wall
	}
	return median(all), walls, nil
}

// runs runs voxform h.sz.runs times (prepare before each) and returns
// every run's figures, in order.
func (h *harness) runs(ctx context.Context, want int, dir, base string, prepare func() error, args ...string) ([]measured, error) {
	var all []measured
	for range h.sz.runs {
		if prepare != nil {
			if err := prepare(); err != nil {
				return nil, err
			}
		}
		m, err := h.r.mustExit(ctx, want, dir, base, args...)
		if err != nil {
			return nil, err
		}
		all = append(all, m)
	}
	return all, nil
}

// largeProject measures P8, P4, P7, P2 and P1 on one generated project of
// h.sz.syntheses syntheses: validate it, apply it, apply it again, then plan
// it without and with the hash cache.
func (h *harness) largeProject(ctx context.Context) error {
	n := h.sz.syntheses
	dir := filepath.Join(h.work, "syntheses")
	if err := writeSyntheses(dir, n, 4); err != nil {
		return fmt.Errorf("generate %d syntheses: %w", n, err)
	}
	if err := h.validate(ctx, dir, n); err != nil {
		return err
	}
	e, err := startEmulator(emulator.Options{})
	if err != nil {
		return err
	}
	defer e.stop()
	if err := h.applyLarge(ctx, e, dir, n); err != nil {
		return err
	}
	if err := h.applyAgain(ctx, e, dir, n); err != nil {
		return err
	}
	if err := h.planLarge(ctx, dir, n); err != nil {
		return err
	}
	return h.applyDefault(ctx, e, dir, n)
}

// validate is P8.
func (h *harness) validate(ctx context.Context, dir string, n int) error {
	m, walls, err := h.timed(ctx, 0, dir, nil, "validate")
	if err != nil {
		return err
	}
	h.add(result{ID: "P8", What: fmt.Sprintf("validate a %s-row for_each", numfmt.Thousands(n)), Target: "<= 0.3 s",
		Figure:  fmt.Sprintf("%s s", secs(m.Wall)),
		Verdict: h.verdict(m.Wall <= 300*time.Millisecond, true),
		Details: []string{fmt.Sprintf("`voxform validate`, whole process, median of %s; %s; peak RSS %s", runsOf(walls), cpuOf(m), mib(m.MaxRSS))},
	})
	return nil
}

// applyLarge is P4. The target names no parallelism: it runs at 16, as
// P3 does; applyDefault adds a run at the default.
func (h *harness) applyLarge(ctx context.Context, e *emu, dir string, n int) error {
	m, line, err := h.applyAll(ctx, e, dir, n, "-parallelism=16")
	if err != nil {
		return err
	}
	h.add(result{ID: "P4", What: fmt.Sprintf("apply %s syntheses, emulator latency 0, parallelism 16", numfmt.Thousands(n)), Target: "<= 15 s in all",
		Figure:  fmt.Sprintf("%s s", secs(m.Wall)),
		Verdict: h.verdict(m.Wall <= 15*time.Second, true),
		Details: []string{line},
	})
	// Issue 18 sets this apply a target of its own.
	h.add(result{ID: "S0", What: fmt.Sprintf("apply %s syntheses, emulator latency 0 (P4's run)", numfmt.Thousands(n)), Target: "< 5 s",
		Figure:  fmt.Sprintf("%s s", secs(m.Wall)),
		Verdict: h.verdict(m.Wall < 5*time.Second, true),
		Details: []string{"the same run as P4: " + cpuNote(m)},
	})
	return nil
}

// applyDefault applies the P4 project again from nothing at the default
// parallelism (4), as a detail of P4.
func (h *harness) applyDefault(ctx context.Context, e *emu, dir string, n int) error {
	for _, p := range []string{"build", ".voxform", "voxform.state.json"} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			return err
		}
	}
	_, line, err := h.applyAll(ctx, e, dir, n)
	if err != nil {
		return err
	}
	for i := range h.results {
		if h.results[i].ID == "P4" {
			h.results[i].Details = append(h.results[i].Details, line)
		}
	}
	return nil
}

// applyAll applies every synthesis of an empty project and checks that
// each was synthesized once and written.
func (h *harness) applyAll(ctx context.Context, e *emu, dir string, n int, flags ...string) (measured, string, error) {
	var m measured
	st, err := e.during(ctx, func() (err error) {
		m, err = h.r.mustExit(ctx, 0, dir, e.URL(), append([]string{"apply", "-auto-approve"}, flags...)...)
		return err
	})
	if err != nil {
		return m, "", err
	}
	files, bytes, err := countFiles(filepath.Join(dir, "build"))
	if err != nil {
		return m, "", err
	}
	if files != n || st.total() != int64(n) {
		return m, "", fmt.Errorf("apply of %d syntheses wrote %d files with %d requests: see %s", n, files, st.total(), m.LogPath)
	}
	cmd := "`" + strings.Join(append([]string{"voxform apply -auto-approve"}, flags...), " ") + "`"
	if len(flags) == 0 {
		cmd += " (default parallelism 4)"
	}
	line := fmt.Sprintf("%s, whole process: %s s wall, %s; peak RSS %s; %s files, %s in all (%s a file); %s; API requests: %s",
		cmd, secs(m.Wall), cpuNote(m), mib(m.MaxRSS), numfmt.Thousands(files), mib(bytes), kb(bytes/int64(max(files, 1))), opTimes(m.LogPath), st.describe())
	return m, line, nil
}

// applyAgain is P7: a second apply with nothing changed calls nothing.
func (h *harness) applyAgain(ctx context.Context, e *emu, dir string, n int) error {
	var m measured
	st, err := e.during(ctx, func() (err error) {
		m, err = h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve")
		return err
	})
	if err != nil {
		return err
	}
	calls := st.total()
	h.add(result{ID: "P7", What: "API calls of a second apply with nothing changed", Target: "0",
		Figure:  fmt.Sprint(calls),
		Verdict: h.verdict(calls == 0, false),
		Details: []string{fmt.Sprintf("second `voxform apply -auto-approve` of the %s syntheses of P4: %d requests (GET /_emulator/stats before and after); "+
			"%s s wall, %s; peak RSS %s (compare P1, a plan of the same project with a warm hash cache)",
			numfmt.Thousands(n), calls, secs(m.Wall), cpuOf(m), mib(m.MaxRSS))},
	})
	return nil
}

// planLarge is P2 (no hash cache) then P1 (warm hash cache). Both use
// -detailed-exitcode and require exit 0: nothing to change.
func (h *harness) planLarge(ctx context.Context, dir string, n int) error {
	noCache := func() error { return os.RemoveAll(filepath.Join(dir, ".voxform")) }
	cold, coldWalls, err := h.timed(ctx, 0, dir, noCache, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	files, bytes, err := countFiles(filepath.Join(dir, "build"))
	if err != nil {
		return err
	}
	h.add(result{ID: "P2", What: fmt.Sprintf("plan, %s syntheses, fresh clone (no hash cache, %s outputs of ~%s)", numfmt.Thousands(n), numfmt.Thousands(files), kb(bytes/int64(max(files, 1)))),
		Target: "<= 3 s", Figure: fmt.Sprintf("%s s", secs(cold.Wall)),
		Verdict: h.verdict(cold.Wall <= 3*time.Second, true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0: no changes) after removing .voxform/, median of %s; %s; peak RSS %s; "+
			"%s hashed; the files are in the OS page cache (written by P4), as after a checkout", runsOf(coldWalls), cpuOf(cold), mib(cold.MaxRSS), mib(bytes))},
	})
	warm, warmWalls, err := h.timed(ctx, 0, dir, nil, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	h.add(result{ID: "P1", What: fmt.Sprintf("plan, %s syntheses, nothing changed, warm hash cache", numfmt.Thousands(n)), Target: "<= 0.5 s",
		Figure:  fmt.Sprintf("%s s", secs(warm.Wall)),
		Verdict: h.verdict(warm.Wall <= 500*time.Millisecond, true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0), median of %s; %s; peak RSS %s", runsOf(warmWalls), cpuOf(warm), mib(warm.MaxRSS))},
	})
	return nil
}

// latencyApply is P3: apply with emulator latency at parallelism 16,
// against the ideal n*latency/parallelism.
func (h *harness) latencyApply(ctx context.Context) error {
	n, lat, par := h.sz.applied, h.sz.latency, h.sz.parallelism
	dir := filepath.Join(h.work, "latency")
	if err := writeSyntheses(dir, n, 4); err != nil {
		return err
	}
	e, err := startEmulator(emulator.Options{Latency: lat})
	if err != nil {
		return err
	}
	defer e.stop()
	plan, err := h.r.mustExit(ctx, 2, dir, "", "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	m, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", par))
	if err != nil {
		return err
	}
	st, err := e.stats(ctx)
	if err != nil {
		return err
	}
	ideal := time.Duration(n) * lat / time.Duration(par)
	ratio := float64(m.Wall) / float64(ideal)
	h.add(result{ID: "P3", What: fmt.Sprintf("apply %s syntheses, emulator latency %v, parallelism %d", numfmt.Thousands(n), lat, par),
		Target: "<= 1.15 x ideal", Figure: fmt.Sprintf("%.2f x (%s s; ideal %s s)", ratio, secs(m.Wall), secs(ideal)),
		Verdict: h.verdict(ratio <= 1.15, true),
		Details: []string{fmt.Sprintf("ideal = %d x %v / %d = %s s; `voxform apply -auto-approve -parallelism=%d`, whole process (loading, planning and state included): %s s wall, %s; peak RSS %s; "+
			"a plan alone of the same project takes %s s; %s; API requests: %s",
			n, lat, par, secs(ideal), par, secs(m.Wall), cpuNote(m), mib(m.MaxRSS), secs(plan.Wall), opTimes(m.LogPath), st.describe())},
	})
	return nil
}

// cpuOf is the CPU time of a voxform run.
func cpuOf(m measured) string {
	return fmt.Sprintf("CPU %s s, %s s of it in the kernel", secs(m.CPU), secs(m.Sys))
}

// cpuNote describes where the CPU time of a run went, and what it means for
// the wall time on this machine's CPUs with nothing else running.
func cpuNote(m measured) string {
	floor := (m.CPU + m.HarnessCPU) / time.Duration(runtime.NumCPU())
	return fmt.Sprintf("CPU: voxform %s s (%s s of it in the kernel), emulator %s s (both together need at least %s s on %d idle CPUs)",
		secs(m.CPU), secs(m.Sys), secs(m.HarnessCPU), secs(floor), runtime.NumCPU())
}

// opTime matches the elapsed time of one operation in apply's plain
// progress lines: "synthesis.x: created (51.2 kB, 65ms)".
var opTime = regexp.MustCompile(`: \w+ \([^,()]+, ([0-9.]+(?:µs|ms|s))\)$`)

// opTimes summarises the per-operation times apply printed.
func opTimes(log string) string {
	b, err := os.ReadFile(log)
	if err != nil {
		return "operation times unknown"
	}
	var ds []time.Duration
	for _, line := range strings.Split(string(b), "\n") {
		if sm := opTime.FindStringSubmatch(line); sm != nil {
			if d, err := time.ParseDuration(sm[1]); err == nil {
				ds = append(ds, d)
			}
		}
	}
	if len(ds) == 0 {
		return "operation times not found in the output"
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	q := func(f float64) time.Duration { return ds[min(len(ds)-1, int(f*float64(len(ds))))] }
	return fmt.Sprintf("one synthesis (request to recorded state) took %v on average (median %v, 90th percentile %v, max %v)",
		(sum / time.Duration(len(ds))).Round(100*time.Microsecond), q(0.5), q(0.9), ds[len(ds)-1])
}
