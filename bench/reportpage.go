package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/cdp"
	"github.com/voxform/voxform/internal/numfmt"
)

// reportPage is V1: the report page of the large project (h.sz.syntheses
// syntheses, applied) opens in headless Chromium, load event and first
// rows rendered, within 3 s. It reuses the project the P targets applied
// when they ran first, else generates and applies one.
func (h *harness) reportPage(ctx context.Context) error {
	n := h.sz.syntheses
	dir := filepath.Join(h.work, "syntheses")
	if _, err := os.Stat(filepath.Join(dir, "voxform.state.json")); errors.Is(err, fs.ErrNotExist) {
		if err := writeSyntheses(dir, n, 4); err != nil {
			return fmt.Errorf("generate %d syntheses: %w", n, err)
		}
		e, err := startEmulator(emulator.Options{})
		if err != nil {
			return err
		}
		defer e.stop()
		if _, _, err := h.applyAll(ctx, e, dir, n, "-parallelism=16"); err != nil {
			return err
		}
	}
	m, err := h.r.mustExit(ctx, 0, dir, "", "report")
	if err != nil {
		return err
	}
	bin, err := cdp.Find()
	if err != nil {
		return err
	}
	page := "file://" + filepath.Join(dir, "report", "index.html")
	var loads, firstRows []time.Duration
	for range max(h.sz.runs, 3) {
		load, shown, err := openReport(bin, page, filepath.Join(h.work, "chromium"))
		if err != nil {
			return err
		}
		loads, firstRows = append(loads, load), append(firstRows, shown)
	}
	sort.Slice(firstRows, func(i, j int) bool { return firstRows[i] < firstRows[j] })
	sort.Slice(loads, func(i, j int) bool { return loads[i] < loads[j] })
	med := firstRows[len(firstRows)/2]
	h.add(result{ID: "V1", What: fmt.Sprintf("report page of %s syntheses opens in headless Chromium (load event and first 100 rows rendered)", numfmt.Thousands(n)),
		Target:  "< 3 s",
		Figure:  fmt.Sprintf("%s s", secs(med)),
		Verdict: h.verdict(med < 3*time.Second, true),
		Details: []string{fmt.Sprintf("median of %d fresh browser starts (first rows at %s s; load event at %s s); `voxform report` wrote the page, %s audio copies and waveforms in %s s, %s",
			len(firstRows), list(firstRows), list(loads), numfmt.Thousands(n), secs(m.Wall), cpuNote(m))},
	})
	return nil
}

// openReport starts a fresh browser, opens the page and returns the time
// to its load event and to its first rows rendered.
func openReport(bin, page, profile string) (load, shown time.Duration, err error) {
	if err := os.RemoveAll(profile); err != nil {
		return 0, 0, err
	}
	b, err := cdp.Start(bin, profile)
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	start := time.Now()
	if load, err = b.Navigate(page); err != nil {
		return 0, 0, err
	}
	var rows int
	for {
		if err := b.Eval(`document.body.dataset.ready === "1" ? document.querySelectorAll("#rows .res").length : 0`, &rows); err != nil {
			return 0, 0, err
		}
		if rows > 0 {
			break
		}
		if time.Since(start) > cdp.Timeout {
			return 0, 0, errors.New("the report page rendered no rows")
		}
	}
	shown = time.Since(start)
	if errs := b.Errors(); len(errs) > 0 {
		return 0, 0, fmt.Errorf("the report page logged errors: %v", errs)
	}
	return load, shown, nil
}

func list(ds []time.Duration) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += secs(d)
	}
	return s
}
