package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// move renames outputs whose path alone changed: no API call, nothing billed.
func (x *run) move(ctx context.Context, a *planner.Action) (result, error) {
	renamed := map[string]string{}
	for _, m := range a.Moves {
		if err := x.rename(m.From, m.To); err != nil {
			return result{}, err
		}
		renamed[m.From] = m.To
	}
	rec := *a.Prior
	rec.Outputs = make([]state.Output, len(a.Prior.Outputs))
	for i, o := range a.Prior.Outputs {
		if to, ok := renamed[o.Path]; ok {
			o.Path = to
		}
		rec.Outputs[i] = o
	}
	if a.Desired != nil {
		rec.Fingerprint, rec.Request = a.Desired.Fingerprint, a.Desired.Request
	}
	rec.UpdatedAt = x.opts.Now().UTC()
	var err error
	if a.MovedFrom != "" && a.MovedFrom != a.Address {
		err = x.opts.Recorder.Move(a.MovedFrom, a.Address, &rec)
	} else {
		err = x.opts.Recorder.Record(a.Address, &rec)
	}
	if err != nil {
		return result{}, fmt.Errorf("record %s: %w", a.Address, err)
	}
	x.removeStale(a)
	return result{outputs: rec.Outputs}, nil
}

// rename moves one output file into place atomically. A source already
// gone (an earlier, interrupted move) is not an error when the destination
// exists.
func (x *run) rename(from, to string) error {
	src, dst := x.abs(from), x.abs(to)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("move %s: %w", from, err)
	}
	if err := os.Rename(src, dst); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dst); serr == nil {
				return nil
			}
		}
		return fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	return syncDir(filepath.Dir(dst))
}

// delete removes a resource's recorded outputs and its state entry; a
// pending batch job is cancelled first so that nothing more is billed.
func (x *run) delete(ctx context.Context, a *planner.Action) (result, error) {
	p := a.Prior
	if p.Status == state.StatusPending && p.JobID != "" && p.JobAPI == "batch" {
		if _, err := x.opts.Client.CancelJob(ctx, p.JobID, "removed from the voxform manifest"); err != nil && !ignorableCancel(err) {
			return result{}, fmt.Errorf("cancel pending batch job %s: %w", p.JobID, err)
		}
	}
	for _, o := range p.Outputs {
		if err := os.Remove(x.abs(o.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return result{}, fmt.Errorf("delete %s: %w", o.Path, err)
		}
	}
	if err := x.opts.Recorder.Remove(a.Address); err != nil {
		return result{}, fmt.Errorf("record deletion of %s: %w", a.Address, err)
	}
	return result{}, nil
}

// ignorableCancel reports a cancel refused because the job is already
// over, cancelled or gone: what the cancel wanted is true.
func ignorableCancel(err error) bool {
	return speechapi.IsCode(err, speechapi.CodeJobCancelled) ||
		speechapi.IsCode(err, speechapi.CodeJobNotCancellable) ||
		speechapi.IsCode(err, speechapi.CodeJobNotFound)
}
