package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// move renames outputs whose path alone changed: no API call, nothing billed.
func (x *run) move(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	renamed := map[string]string{}
	for _, m := range a.Moves {
		if err := x.rename(a, m); err != nil {
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

// rename moves one output file into place atomically, never over a file
// voxform did not make. An output found already at its destination (an
// earlier, interrupted move, or a move by hand) is adopted only when its
// content is the recorded one; whatever is at the old path then is not
// voxform's and stays.
func (x *run) rename(a *planner.Action, m planner.Rename) error {
	if !m.Adopt {
		expect, replace := a.Replaces(m.To)
		if replace && expect != "" {
			// Replace only what the plan found there.
			if sum, err := x.hashOf(m.To); err == nil && sum != expect {
				return fmt.Errorf("move %s to %s: %s changed after the plan, and voxform replaces only what it planned to", m.From, m.To, m.To)
			}
		}
		err := x.root.Rename(m.From, m.To, replace)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, owned.ErrNotOwned):
			return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
		}
	}
	sum, err := x.hashOf(m.To)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("move %s to %s: %s is gone", m.From, m.To, m.From)
	case err != nil:
		return fmt.Errorf("move %s to %s: %w", m.From, m.To, err)
	case sum != m.SHA256:
		return fmt.Errorf("move %s to %s: %s holds a file voxform did not make; move it away and apply again", m.From, m.To, m.To)
	}
	return nil
}

// delete removes a resource's recorded outputs and its state entry; a
// pending batch job is cancelled first so that nothing more is billed.
func (x *run) delete(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	p := a.Prior
	if p.Status == state.StatusPending && p.JobID != "" && p.JobAPI == "batch" {
		if _, err := x.opts.Client.CancelJob(ctx, p.JobID, "removed from the voxform manifest"); err != nil && !ignorableCancel(err) {
			return result{}, fmt.Errorf("cancel pending batch job %s: %w", p.JobID, err)
		}
	}
	if err := x.removeOutputs(a); err != nil {
		return result{}, err
	}
	if err := x.opts.Recorder.Remove(a.Address); err != nil {
		return result{}, fmt.Errorf("record deletion of %s: %w", a.Address, err)
	}
	return result{}, nil
}

// removeStale deletes recorded outputs that nothing declares any more, once
// the action's new outputs are recorded. A failure only warns: the work is
// done and recorded.
func (x *run) removeStale(a *planner.Action) {
	if err := x.removeOutputs(a); err != nil {
		x.emit(Event{Kind: EventWarning, Address: a.Address, Err: err})
	}
}

// removeOutputs deletes the files of a.Removes that still hold what voxform
// recorded there. A file changed since (by hand, or by another resource)
// is not voxform's any more: it is left in place, with a warning.
func (x *run) removeOutputs(a *planner.Action) error {
	for _, p := range a.Removes {
		rec, ok := recordedOutput(a.Prior, p)
		if !ok {
			return fmt.Errorf("delete %s: not an output recorded for %s", p, a.Address)
		}
		sum, err := x.hashOf(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("delete %s: %w", p, err)
		case sum != rec.SHA256:
			x.emit(Event{Kind: EventWarning, Address: a.Address,
				Err: fmt.Errorf("left %s in place: it changed since voxform wrote it", p)})
			continue
		}
		if err := x.root.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

func recordedOutput(r *state.Resource, p string) (state.Output, bool) {
	if r == nil {
		return state.Output{}, false
	}
	for _, o := range r.Outputs {
		if o.Path == p {
			return o, true
		}
	}
	return state.Output{}, false
}

// hashOf is the SHA-256 of the file at the manifest-relative path p: from
// the hash cache when it knows the file unchanged, else read through a
// checked directory handle (a symbolic link is refused). A missing file is
// fs.ErrNotExist.
func (x *run) hashOf(p string) (string, error) {
	if x.opts.Cache != nil {
		h, err := x.opts.Cache.Hash(p)
		if err == nil && !h.Exists {
			return "", fs.ErrNotExist
		}
		if err == nil {
			return h.SHA256, nil
		}
	}
	d, err := x.root.OpenDir(p, false)
	if err != nil {
		return "", err
	}
	defer d.Close()
	f, err := d.Open(path.Base(p))
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ignorableCancel reports a cancel refused because the job is already
// over, cancelled or gone: what the cancel wanted is true.
func ignorableCancel(err error) bool {
	return speechapi.IsCode(err, speechapi.CodeJobCancelled) ||
		speechapi.IsCode(err, speechapi.CodeJobNotCancellable) ||
		speechapi.IsCode(err, speechapi.CodeJobNotFound)
}
