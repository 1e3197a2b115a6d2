package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// moveOp renames outputs whose path alone changed: no API call, nothing
// billed. The record is stamped by now.
type moveOp struct {
	files *outputs
	now   func() time.Time
}

func (op *moveOp) apply(_ context.Context, a *planner.Action, _ *slot) (result, error) {
	renamed := map[string]string{}
	for _, m := range a.Details().Moves {
		if err := op.rename(a, m); err != nil {
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
		req, err := a.Desired.RequestJSON()
		if err != nil {
			return result{}, err
		}
		rec.Fingerprint = a.Desired.Fingerprint
		rec.SetRequestJSON(req)
	}
	rec.UpdatedAt = op.now().UTC()
	rec.Edit().Approval = a.Prior.Details().Approval.Moved(a.Prior, &rec) // the same bytes: it still holds
	var err error
	if a.Details().MovedFrom != "" && a.Details().MovedFrom != a.Address {
		err = op.files.recorder.Move(a.Details().MovedFrom, a.Address, &rec)
	} else {
		err = op.files.recorder.Record(a.Address, &rec)
	}
	if err != nil {
		return result{}, fmt.Errorf("record %s: %w", a.Address, err)
	}
	op.files.removeStale(a)
	return result{outputs: rec.Outputs}, nil
}

// rename moves one output file into place atomically, never over a file
// voxform did not make. An output found already at its destination (an
// earlier, interrupted move, or a move by hand) is adopted only when its
// content is the recorded one; whatever is at the old path then is not
// voxform's and stays.
func (op *moveOp) rename(a *planner.Action, m planner.Rename) error {
	if !m.Adopt {
		if err := op.stillRecorded(a, m.From); err != nil {
			return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
		}
		expect, replace := a.Replaces(m.To)
		if replace && expect != "" {
			// Replace only what the plan found there.
			if sum, err := op.files.hashOf(m.To); err == nil && sum != expect {
				return fmt.Errorf("move %s to %s: %s changed after the plan, and voxform replaces only what it planned to", m.From, m.To, m.To)
			}
		}
		err := op.files.root.Rename(m.From, m.To, replace)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, owned.ErrNotOwned):
			return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
		}
	}
	sum, err := op.files.hashOf(m.To)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("move %s to %s: %s is gone", m.From, m.To, m.From)
	case err != nil:
		return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
	case sum != m.SHA256:
		return fmt.Errorf("move %s to %s: %s holds a file voxform did not make; move it away and apply again", m.From, m.To, m.To)
	}
	// Adopted: the move that put it there (a process killed after its
	// rename, before its sync) may not be durable yet. It is before it is
	// recorded.
	dirs := []string{m.To}
	if path.Dir(m.From) != path.Dir(m.To) {
		dirs = append(dirs, m.From)
	}
	for _, p := range dirs {
		if err := op.files.root.SyncDir(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
		}
	}
	return nil
}

// deleteOp removes a resource's recorded outputs and its state entry; a
// pending batch job is cancelled first (through client) so that nothing
// more is billed.
type deleteOp struct {
	client *speechapi.Client
	files  *outputs
}

func (op *deleteOp) apply(ctx context.Context, a *planner.Action, _ *slot) (result, error) {
	p := a.Prior
	if p.Status == state.StatusPending && p.Details().JobID != "" && p.Details().JobAPI == "batch" {
		if _, err := op.client.CancelJob(ctx, p.Details().JobID, "removed from the voxform manifest"); err != nil && !ignorableCancel(err) {
			return result{}, fmt.Errorf("cancel pending batch job %s: %w", p.Details().JobID, err)
		}
	}
	if err := op.files.removeOutputs(a); err != nil {
		return result{}, err
	}
	if err := op.files.recorder.Remove(a.Address); err != nil {
		return result{}, fmt.Errorf("record deletion of %s: %w", a.Address, err)
	}
	op.files.dropKept(a, nil)
	return result{}, nil
}

// ignorableCancel reports a cancel refused because the job is already
// over, cancelled or gone: what the cancel wanted is true.
func ignorableCancel(err error) bool {
	return speechapi.IsCode(err, speechapi.CodeJobCancelled) ||
		speechapi.IsCode(err, speechapi.CodeJobNotCancellable) ||
		speechapi.IsCode(err, speechapi.CodeJobNotFound)
}

// stillRecorded checks that the output at p holds the bytes the state
// records for it: a move keeps the record (and its approval) and only
// renames the file, so a file changed since the plan is refused rather
// than recorded as what it no longer is.
func (op *moveOp) stillRecorded(a *planner.Action, p string) error {
	for _, o := range a.Prior.Outputs {
		if o.Path != p {
			continue
		}
		sum, err := op.files.hashOf(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // moved already: the destination is checked as it is adopted
		}
		if err != nil {
			return err
		}
		if sum != o.SHA256 {
			return fmt.Errorf("%s changed after the plan (it is not the recorded output), and voxform moves only what it recorded", p)
		}
		return nil
	}
	return nil
}
