package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/internal/pgtest"
	"github.com/voxform/voxform/state"
)

// The pg backend's targets (issue 15), measured against a real PostgreSQL
// server from Debian's packages with its durable defaults (fsync and
// synchronous commit on), reached over loopback TCP with a password as a
// team's server is.
const (
	// recordTarget is G1's: recording one result.
	recordTarget = 2 * time.Millisecond
	// pgPlanTarget is G2's: a plan with nothing changed.
	pgPlanTarget = 2 * time.Second
	// records is how many results G1 records, one after another.
	records = 500
)

// stateInPG measures G2 and G1 on a project of h.sz.pgResources syntheses
// (and, on the way, S1 to S6: see scaleFigures): applied with the local
// backend, its state moved into PostgreSQL by
// 'voxform state migrate -to pg', then planned with nothing changed
// (G2). G1 then records results one at a time through the state package,
// as apply's workers do, each one transaction on that state.
func (h *harness) stateInPG(ctx context.Context) error {
	n := h.sz.pgResources
	srv, err := pgtest.Run(pgtest.Options{Durable: true})
	if err != nil {
		return err
	}
	defer srv.Close()
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		return err
	}
	url := srv.URL(db)
	e, err := startEmulator(emulator.Options{})
	if err != nil {
		return err
	}
	defer e.stop()
	defer func() { h.r.env = nil }()

	dir := filepath.Join(h.work, "pg")
	if err := writeSyntheses(dir, n, 16); err != nil {
		return fmt.Errorf("generate %d syntheses: %w", n, err)
	}
	applied, err := h.r.mustExit(ctx, 0, dir, e.URL(), "apply", "-auto-approve")
	if err != nil {
		return err
	}
	if err := h.scaleFigures(ctx, dir, e.URL(), n, applied); err != nil {
		return err
	}
	h.r.env = []string{"VOXFORM_PG=" + url}
	migrated, err := h.r.mustExit(ctx, 0, dir, "", "state", "migrate", "-to", "pg")
	if err != nil {
		return err
	}
	h.r.env = append(h.r.env, "VOXFORM_BACKEND=pg")
	m, walls, err := h.timed(ctx, 0, dir, nil, "plan", "-detailed-exitcode")
	if err != nil {
		return err
	}
	h.add(result{ID: "G2", What: fmt.Sprintf("plan with nothing changed, %s syntheses, state in PostgreSQL", numfmt.Thousands(n)),
		Target: "< " + secs(pgPlanTarget) + " s", Figure: secs(m.Wall) + " s", Verdict: h.verdict(m.Wall <= pgPlanTarget, true),
		Details: []string{
			fmt.Sprintf("`voxform plan -detailed-exitcode` (exit 0), median of %s; %s; peak RSS %s; the state is read in one repeatable-read transaction, one row per resource",
				runsOf(walls), cpuOf(m), mib(m.MaxRSS)),
			fmt.Sprintf("setup: apply of %s syntheses with the local backend %s s, `voxform state migrate -to pg` %s s", numfmt.Thousands(n), secs(applied.Wall), secs(migrated.Wall)),
		},
	})

	lat, open, err := recordLatencies(ctx, url, records)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	med, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	h.add(result{ID: "G1", What: fmt.Sprintf("recording one result, %s resources in PostgreSQL", numfmt.Thousands(n)),
		Target: "< " + ms(recordTarget) + " ms", Figure: ms(med) + " ms", Verdict: h.verdict(med <= recordTarget, true),
		Details: []string{
			fmt.Sprintf("Recorder.Record of an existing resource, %d one after another: median %s ms, 99th percentile %s ms, slowest %s ms; each is one transaction (the lock's fence, the upsert of one row, the commit, fsync'd)",
				records, ms(med), ms(p99), ms(lat[len(lat)-1])),
			fmt.Sprintf("opening the state (reading %s rows) took %s s", numfmt.Thousands(n), secs(open)),
		},
	})
	return nil
}

// recordLatencies locks the pg state at url, then records n of its
// resources again (a new updated_at), one at a time, and returns how long
// each record took and how long opening the state took.
func recordLatencies(ctx context.Context, url string, n int) ([]time.Duration, time.Duration, error) {
	p, err := state.NewPG(state.PGConfig{ConnString: url, Env: "VOXFORM_PG"})
	if err != nil {
		return nil, 0, err
	}
	defer p.Close()
	lk, err := p.Lock(ctx, "bench")
	if err != nil {
		return nil, 0, err
	}
	defer lk.Unlock()
	begin := time.Now()
	rec, err := p.Open(ctx, lk, nil)
	if err != nil {
		return nil, 0, err
	}
	open := time.Since(begin)
	st := rec.Snapshot()
	addrs := st.Addresses()
	if len(addrs) == 0 {
		return nil, 0, fmt.Errorf("the state in PostgreSQL is empty")
	}
	lat := make([]time.Duration, 0, n)
	for i := range n {
		addr := addrs[i*len(addrs)/n]
		r := *st.Resources[addr]
		r.UpdatedAt = time.Time{}
		t0 := time.Now()
		if err := rec.Record(addr, &r); err != nil {
			return nil, 0, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, open, rec.Close()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
