package executor

import (
	"context"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// listenChunks reports whether a is a restore of a chunked synthesis
// with listen: whose record is not kept: its checks need each chunk's
// audio, so it is joined again from the chunk store (as a synthesis
// whose chunks are all kept, billing nothing but checks not kept).
func listenChunks(a *planner.Action) bool {
	return listens(a) && len(a.Desired.Details().Chunks) > 0 && !a.KeepsRecord()
}

// check checks the restored take made (a synthesis sent whole) of a
// restore whose record is not kept: its check is found in the cache by
// its fingerprint (free) or made (priced by the plan). A restored take is
// not synthesized again: one that fails is recorded failing. It returns
// the seconds billed, also when the check could not be made (err): the
// restored take is then recorded without it.
func (op *restoreOp) check(ctx context.Context, a *planner.Action, made *state.Resource) (float64, error) {
	if !listens(a) || len(made.Outputs) == 0 {
		return 0, nil
	}
	store, err := op.checks.checkStore()
	if err != nil {
		return 0, err
	}
	format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
	o := &made.Outputs[0]
	h, err := op.checks.listen.check(ctx, a, newAllowance(a), store,
		take{Chunk: -1, Take: 1, Text: a.Desired.Wire.Synthesis.Text, Path: op.files.abs(o.Path), Raw: rawFormat(format), SHA256: o.SHA256})
	made.Edit().BilledAudioSeconds += h.billed
	if err != nil {
		return h.billed, err
	}
	o.Listen = h.rec
	return h.billed, nil
}
