package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxform/voxform/internal/numfmt"
)

// The 100,000-synthesis targets (issue 18), measured on the project the pg
// step applies with the file backend before moving its state into
// PostgreSQL: one for_each of h.sz.pgResources rows, applied at latency 0.
const (
	scaleValidate  = 1500 * time.Millisecond // S1
	scaleApply     = 60 * time.Second        // S2
	scaleRSS       = 256 << 20               // S3, bytes
	scalePlan      = 2 * time.Second         // S4
	scaleStateLoad = time.Second             // S5
)

// scaleFigures measures S1 to S6 in dir, a project of n syntheses that
// applied (the measurement of that apply) made against the emulator at
// base.
func (h *harness) scaleFigures(ctx context.Context, dir, base string, n int, applied measured) error {
	what := func(s string) string { return fmt.Sprintf(s, numfmt.Thousands(n)) }
	m, walls, err := h.timed(ctx, 0, dir, nil, "validate")
	if err != nil {
		return err
	}
	h.add(result{ID: "S1", What: what("validate a %s-row for_each"), Target: "< " + secs(scaleValidate) + " s",
		Figure: secs(m.Wall) + " s", Verdict: h.verdict(m.Wall <= scaleValidate, true),
		Details: []string{fmt.Sprintf("`voxform validate`, median of %s; %s; peak RSS %s", runsOf(walls), cpuOf(m), mib(m.MaxRSS))}})

	h.add(result{ID: "S2", What: what("apply %s syntheses from nothing, emulator latency 0"), Target: "< " + secs(scaleApply) + " s",
		Figure: secs(applied.Wall) + " s", Verdict: h.verdict(applied.Wall <= scaleApply, true),
		Details: []string{fmt.Sprintf("`voxform apply -auto-approve` (parallelism 16, the local output cache on, every output's loudness measured), one run; %s; the emulator's CPU %s s",
			cpuOf(applied), secs(applied.HarnessCPU))}})
	h.add(result{ID: "S3", What: what("peak RSS of that apply of %s syntheses"), Target: "< " + mib(scaleRSS),
		Figure: mib(applied.MaxRSS), Verdict: h.verdict(applied.MaxRSS <= scaleRSS, true),
		Details: []string{"GNU time's maximum resident set size of the voxform process"}})

	if _, err := h.r.mustExit(ctx, 0, dir, "", "plan", "-detailed-exitcode"); err != nil { // warms the hash cache and the decoded-state snapshot
		return err
	}
	m, walls, err = h.timed(ctx, 0, dir, nil, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	h.add(result{ID: "S4", What: what("plan with nothing changed, %s syntheses, warm"), Target: "< " + secs(scalePlan) + " s",
		Figure: secs(m.Wall) + " s", Verdict: h.verdict(m.Wall <= scalePlan, true),
		Details: []string{fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0) after a first plan, median of %s; %s; peak RSS %s",
			runsOf(walls), cpuOf(m), mib(m.MaxRSS))}})

	statePath := filepath.Join(dir, "voxform.state.json")
	st, err := os.Stat(statePath)
	if err != nil {
		return err
	}
	dropSnapshot := func() error { return removeIfExists(filepath.Join(dir, ".voxform", "state.snapshot")) }
	m, walls, err = h.timed(ctx, 0, dir, dropSnapshot, "state", "list")
	if err != nil {
		return err
	}
	h.add(result{ID: "S5", What: what("load the state file of %s syntheses"), Target: "< " + secs(scaleStateLoad) + " s",
		Figure: secs(m.Wall) + " s", Verdict: h.verdict(m.Wall <= scaleStateLoad, true),
		Details: []string{fmt.Sprintf("`voxform state list` with no decoded-state snapshot (the JSON decoded, as on a fresh clone), whole process, median of %s; %s; peak RSS %s; the file is %s",
			runsOf(walls), cpuOf(m), mib(m.MaxRSS), mib(st.Size()))}})

	diff, err := h.oneRowChange(ctx, dir, base, statePath)
	if err != nil {
		return err
	}
	h.add(result{ID: "S6", What: what("the state file of %s syntheses, and a one-row change"), Target: "reported",
		Figure: fmt.Sprintf("%s; %s", mib(st.Size()), diff), Verdict: h.verdict(true, false),
		Details: []string{"one row's text changed in the CSV, then `voxform apply`; the state files before and after compared with `git diff --no-index --numstat`"}})
	return nil
}

// oneRowChange changes the text of one row of dir's prompts, applies it,
// and describes the change of the state file as git diff counts it.
func (h *harness) oneRowChange(ctx context.Context, dir, base, statePath string) (string, error) {
	before := statePath + ".before"
	data, err := os.ReadFile(statePath)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(before, data, 0o644); err != nil {
		return "", err
	}
	defer os.Remove(before)
	csv := filepath.Join(dir, "prompts.csv")
	rows, err := os.ReadFile(csv)
	if err != nil {
		return "", err
	}
	lines := strings.SplitN(string(rows), "\n", 44)
	if len(lines) < 44 {
		return "", fmt.Errorf("%s: fewer than 43 rows", csv)
	}
	lines[42] += " (edited)"
	if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return "", err
	}
	if _, err := h.r.mustExit(ctx, 0, dir, base, "apply", "-auto-approve"); err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "git", "diff", "--no-index", "--numstat", before, statePath).Output()
	if err != nil && len(out) == 0 { // exit 1: the files differ
		return "", fmt.Errorf("git diff: %w", err)
	}
	var added, removed int
	if _, err := fmt.Sscanf(string(out), "%d\t%d", &added, &removed); err != nil {
		return "", fmt.Errorf("git diff --numstat: %q: %w", out, err)
	}
	return fmt.Sprintf("one row's change is %d lines added and %d removed", added, removed), nil
}

func removeIfExists(p string) error {
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
