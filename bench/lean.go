package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
)

// The 100,000-synthesis targets of issue 26 (a resource of one shape from
// plan to state), measured as the issue measured them: one for_each of raw
// 8 kHz prompts applied from nothing at parallelism 16 against the
// emulator without espeak, then planned at once, as a CI job plans right
// after an apply.
const (
	leanRSS       = scaleRSS                // L2 to L4: peak RSS of apply and of every plan, bytes
	leanPlan      = 1500 * time.Millisecond // L3, L4
	leanStateList = time.Second             // L5
)

// leanScale measures L1 to L6 on a project of h.sz.leanSyntheses raw 8 kHz
// syntheses: validate it, apply it, plan it at once and again, list its
// state, and weigh its state file.
func (h *harness) leanScale(ctx context.Context) error {
	n := h.sz.leanSyntheses
	dir := filepath.Join(h.work, "lean")
	if err := writeSynthesesAs(dir, raw8k, 0, n, 16); err != nil {
		return fmt.Errorf("generate %d syntheses: %w", n, err)
	}
	what := func(s string) string { return fmt.Sprintf(s, numfmt.Thousands(n)) }
	m, walls, err := h.timed(ctx, 0, dir, nil, "validate")
	if err != nil {
		return err
	}
	h.add(result{ID: "L1", What: what("validate a %s-row for_each of raw 8 kHz prompts"), Target: "< " + secs(scaleValidate) + " s (S1's)",
		Figure: fmt.Sprintf("%s s, %s", secs(m.Wall), mib(m.MaxRSS)), Verdict: h.verdict(m.Wall <= scaleValidate, true),
		Details: []string{fmt.Sprintf("`voxform validate`, median of %s; %s; peak RSS %s", runsOf(walls), cpuOf(m), mib(m.MaxRSS))}})
	if err := h.leanApply(ctx, dir, n); err != nil {
		return err
	}
	if err := h.leanPlans(ctx, dir, n); err != nil {
		return err
	}
	return h.leanState(ctx, dir, n)
}

// leanApply is L2: the apply from nothing, its wall time, CPU and peak RSS.
func (h *harness) leanApply(ctx context.Context, dir string, n int) error {
	e, err := startEmulator(emulator.Options{})
	if err != nil {
		return err
	}
	defer e.stop()
	m, line, err := h.applyAll(ctx, e, dir, n, "-parallelism=16")
	if err != nil {
		return err
	}
	h.add(result{ID: "L2", What: fmt.Sprintf("apply %s raw 8 kHz syntheses from nothing, parallelism 16: wall, CPU, peak RSS", numfmt.Thousands(n)),
		Target: "peak RSS < " + mib(leanRSS),
		Figure: fmt.Sprintf("%s s wall, %s s CPU, %s", secs(m.Wall), secs(m.CPU), mib(m.MaxRSS)), Verdict: h.verdict(m.MaxRSS <= leanRSS, true),
		Details: []string{line, fmt.Sprintf("voxform's CPU per synthesis %s ms (compare T1)", perItem(m.CPU, n))}})
	return nil
}

// leanPlans is L3 (the first plan after the apply, one run: only one
// plan is the first) and L4 (the plans after it). Both must find nothing
// to change.
func (h *harness) leanPlans(ctx context.Context, dir string, n int) error {
	first, err := h.r.mustExit(ctx, 0, dir, "", "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	target := fmt.Sprintf("< %s s and < %s", secs(leanPlan), mib(leanRSS))
	ok := func(m measured) bool { return m.Wall <= leanPlan && m.MaxRSS <= leanRSS }
	h.add(result{ID: "L3", What: fmt.Sprintf("the first plan right after that apply, %s syntheses, nothing changed", numfmt.Thousands(n)),
		Target: target, Figure: fmt.Sprintf("%s s, %s", secs(first.Wall), mib(first.MaxRSS)), Verdict: h.verdict(ok(first), true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0) with the hash cache and the state snapshot as the apply left them, one run; %s; peak RSS %s",
			cpuOf(first), mib(first.MaxRSS))}})
	all, err := h.runs(ctx, 0, dir, "", nil, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	// Every plan after the apply is held to the target: the wall time is
	// the median run's, the peak RSS the highest of the runs (it moves by
	// tens of MiB from run to run, with where the collector's cycles fall).
	m := median(all)
	walls, rss := make([]time.Duration, len(all)), make([]string, len(all))
	for i, r := range all {
		walls[i], rss[i] = r.Wall, mib(r.MaxRSS)
		m.MaxRSS = max(m.MaxRSS, r.MaxRSS)
	}
	h.add(result{ID: "L4", What: fmt.Sprintf("the plans after it, %s syntheses, nothing changed", numfmt.Thousands(n)),
		Target: target, Figure: fmt.Sprintf("%s s, %s", secs(m.Wall), mib(m.MaxRSS)), Verdict: h.verdict(ok(m), true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0) after L3's, median of %s; %s; peak RSS %s, the highest of the runs' (%s)",
			runsOf(walls), cpuOf(m), mib(m.MaxRSS), strings.Join(rss, ", "))}})
	return nil
}

// leanState is L5 (`state list` after the plans) and L6 (the state
// file's size).
func (h *harness) leanState(ctx context.Context, dir string, n int) error {
	m, walls, err := h.timed(ctx, 0, dir, nil, "state", "list")
	if err != nil {
		return err
	}
	h.add(result{ID: "L5", What: fmt.Sprintf("`state list` of %s syntheses", numfmt.Thousands(n)), Target: "< " + secs(leanStateList) + " s",
		Figure: secs(m.Wall) + " s", Verdict: h.verdict(m.Wall <= leanStateList, true),
		Details: []string{fmt.Sprintf("`voxform state list` after L4's plans (with the snapshot they leave), whole process, median of %s; %s; peak RSS %s",
			runsOf(walls), cpuOf(m), mib(m.MaxRSS))}})
	st, err := os.Stat(filepath.Join(dir, "voxform.state.json"))
	if err != nil {
		return err
	}
	files, bytes, err := countFiles(filepath.Join(dir, "build"))
	if err != nil {
		return err
	}
	h.add(result{ID: "L6", What: fmt.Sprintf("the state file of %s syntheses", numfmt.Thousands(n)), Target: "reported",
		Figure: fmt.Sprintf("%s (%s B a synthesis)", mib(st.Size()), numfmt.Thousands(int(st.Size()/int64(n)))), Verdict: h.verdict(true, false),
		Details: []string{fmt.Sprintf("voxform.state.json after L2's apply; the outputs: %s files, %s in all", numfmt.Thousands(files), mib(bytes))}})
	return nil
}

// perItem is d shared among n, in milliseconds: "1.05".
func perItem(d time.Duration, n int) string {
	return ms(d / time.Duration(max(n, 1)))
}
