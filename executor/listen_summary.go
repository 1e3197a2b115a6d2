package executor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// seamLimits are the seam limits of every chunked synthesis with listen:
// in plan, by address.
func seamLimits(plan *planner.Plan) map[string]manifest.Seams {
	out := map[string]manifest.Seams{}
	for _, a := range plan.Actions {
		if d := a.Desired; d != nil && d.Details().Listen != nil && len(d.Details().Chunks) > 1 {
			out[a.Address] = d.Details().Listen.Seams
		}
	}
	return out
}

// listenFailures lists the failing listening checks the state st records
// (whichever apply recorded them: a failure stays until its output
// passes), and the failing seams of the chunked outputs of seams, in
// address order, at most MaxListenFailuresListed of them, and counts
// them all.
func listenFailures(st *state.File, seams map[string]manifest.Seams) ([]ListenFailure, int) {
	var out []ListenFailure
	for addr, r := range st.Resources {
		if r.Status != state.StatusComplete {
			continue
		}
		if len(r.Outputs) > 0 && failed(r.Outputs[0].Listen) {
			out = append(out, failure(addr, -1, 0, r.Outputs[0].Listen))
		}
		for i := range r.Details().Chunks {
			if c := &r.Details().Chunks[i]; failed(c.Listen) {
				f := failure(addr, i, len(r.Details().Chunks), planner.Placed(c.Listen, c.Start))
				f.Start, f.End = c.Start, c.End
				out = append(out, f)
			}
		}
		if limits, ok := seams[addr]; ok {
			for _, s := range planner.Seams(r.Details().Chunks, limits) {
				if !s.Pass {
					out = append(out, ListenFailure{Address: addr, Chunk: s.Index, Of: len(r.Details().Chunks), Seam: true, Start: s.At, Why: strings.Join(s.Failures, "; ")})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Address != out[j].Address {
			return out[i].Address < out[j].Address
		}
		return out[i].Chunk < out[j].Chunk
	})
	n := len(out)
	return out[:min(n, MaxListenFailuresListed)], n
}

// failed reports whether l is a check made that failed.
func failed(l *state.Listen) bool { return l != nil && l.Status == "" && !l.Pass }

func failure(addr string, chunk, of int, l *state.Listen) ListenFailure {
	return ListenFailure{Address: addr, Chunk: chunk, Of: of, Why: planner.FailureLine(l), Takes: l.Takes}
}

// String is the failure as apply prints it: "synthesis.chapter: chunk
// 12 of 30 (143.2-274.9 s): longest_run 4 > 2 words ... (3 takes)".
func (f ListenFailure) String() string {
	var b strings.Builder
	b.WriteString(f.Address)
	switch {
	case f.Seam:
		fmt.Fprintf(&b, ": seam %d|%d of %d chunks at %.1f s", f.Chunk+1, f.Chunk+2, f.Of, f.Start)
	case f.Chunk >= 0:
		fmt.Fprintf(&b, ": %s (%.1f-%.1f s)", planner.ChunkName(f.Chunk, f.Of), f.Start, f.End)
	}
	b.WriteString(": " + f.Why)
	if f.Takes > 1 {
		fmt.Fprintf(&b, " (%d takes)", f.Takes)
	}
	return b.String()
}

// FailingChecks lists the failing listening checks the state st records,
// as Summary.ListenFailed does (seams aside: they need the manifest's
// limits), and counts them: an apply with nothing to do still reports
// them.
func FailingChecks(st *state.File) ([]ListenFailure, int) { return listenFailures(st, nil) }
