package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// outputs is the manifest directory an apply works in, as every
// operation that reads inputs or writes outputs is given it: inputs are
// read below dir, outputs are written, renamed and removed through root
// (a checked directory handle for each), recorded through recorder,
// learned by cache and kept by kept (nil: none). emit reports the warnings of removing
// outputs.
type outputs struct {
	dir      string
	root     *owned.Root
	recorder *state.Recorder
	cache    *state.HashCache
	emit     func(Event)
	// kept keeps every recorded output in the output cache (nil: none).
	kept *keeper
	// onRecord is Options.Recorded (nil: none).
	onRecord func(addr string, prior, res *state.Resource)
	// loudness is Options.MeasureLoudness (see measure).
	loudness bool
}

// abs returns the absolute path of a manifest-relative path (for reading
// inputs; outputs are written through root).
func (w *outputs) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// output starts writing the output at rel for the action a.
func (w *outputs) output(a *planner.Action, rel string) (*outputFile, error) {
	return w.ownedOutput(a, rel, "")
}

// ownedOutput is output of an output whose content must be want (see
// openOwned).
func (w *outputs) ownedOutput(a *planner.Action, rel, want string) (*outputFile, error) {
	o, err := w.openOwned(a, rel, want)
	if err != nil {
		return nil, err
	}
	if err := o.wait(); err != nil {
		o.Abort() // its directory's use ends: it writes nothing there
		return nil, err
	}
	return o, nil
}

// openOutput is output with the temporary file created in the background: a
// caller that is about to wait for the service lets the file system's work
// (an inode) overlap that wait.
func (w *outputs) openOutput(a *planner.Action, rel string) (*outputFile, error) {
	return w.openOwned(a, rel, "")
}

// openOwned is openOutput of an output whose content must be want (""
// for any; see owner.want). An output of a resource whose record is kept
// (planner.Action.KeepsRecord) that holds what the state records at its
// path is not noted as written: the record proves it voxform's already,
// and a restore that puts back what was recorded leaves the state as it
// was.
func (w *outputs) openOwned(a *planner.Action, rel, want string) (*outputFile, error) {
	expect, replace := a.Replaces(rel)
	if rec, ok := recordedOutput(a.Prior, rel); ok && a.Type == planner.Check && rec.SHA256 != "" {
		// A Check action's new take replaces the recorded file, only
		// while it holds what the state records.
		expect, replace = rec.SHA256, true
	}
	own := owner{replace: replace, expect: expect, want: want}
	if rec := w.recorder; rec != nil {
		recorded, _ := recordedOutput(a.Prior, rel)
		keeps := a.KeepsRecord()
		own.note = func(o state.Output) error {
			if keeps && o.SHA256 == recorded.SHA256 {
				return nil
			}
			return rec.NoteWritten(a.Address, a.Desired.Fingerprint, []state.Output{o})
		}
	}
	return openOutput(w.root, rel, own)
}

// record fills the common fields, records the resource, and removes
// outputs the resource no longer declares.
func (w *outputs) record(a *planner.Action, res *state.Resource, chars int64, secs float64) (result, error) {
	req, err := a.Desired.RequestJSON()
	if err != nil {
		return result{}, err
	}
	res.Outputs = keepDelivered(a, res.Outputs)
	res.Kind = string(a.Desired.Kind)
	res.Fingerprint = a.Desired.Fingerprint
	res.SetRequestJSON(req)
	res.PreventDestroy = a.Desired.Details().Lifecycle.PreventDestroy // kept for a plan that no longer declares it
	if a.Prior != nil && res.CreatedAt.IsZero() && a.Type == planner.Repair {
		res.CreatedAt = a.Prior.CreatedAt
	}
	if err := w.recorder.Record(a.Address, res); err != nil {
		return result{}, fmt.Errorf("record %s: %w", a.Address, err)
	}
	w.dropKept(a, res)
	return w.recorded(a, res, chars, secs), nil
}

// dropKept removes the unredacted transcript a's prior record kept once
// res, recorded in its place (nil: the resource is gone), no longer
// records it: a replace or restore without keep_unredacted, redaction
// removed, a deletion. A failure only warns: the state no longer names it.
func (w *outputs) dropKept(a *planner.Action, res *state.Resource) {
	if a.Prior == nil || a.Prior.Details().Redaction == nil || a.Prior.Details().Redaction.Unredacted == nil {
		return
	}
	if res != nil && res.Details().Redaction != nil && res.Details().Redaction.Unredacted != nil && res.Details().Redaction.Unredacted.Path == a.Prior.Details().Redaction.Unredacted.Path {
		return
	}
	if err := state.RemoveUnredacted(w.dir, a.Address, a.Prior.Details().Redaction.Unredacted); err != nil {
		w.emit(Event{Kind: EventWarning, Address: a.Address, Err: err})
	}
}

// recorded finishes an action whose outputs res records: the hash cache
// learns them, the output cache keeps them, and outputs no longer
// declared are removed.
func (w *outputs) recorded(a *planner.Action, res *state.Resource, chars int64, secs float64) result {
	if w.cache != nil {
		for _, o := range res.Outputs {
			w.cache.Put(o.Path, o.SHA256)
		}
	}
	w.kept.keep(a, res)
	if w.onRecord != nil && res.Status == state.StatusComplete && len(res.Outputs) > 0 {
		w.onRecord(a.Address, a.Prior, res)
	}
	w.removeStale(a)
	return result{outputs: res.Outputs, chars: chars, seconds: secs, jobID: res.Details().JobID}
}

// removeStale deletes recorded outputs that nothing declares any more, once
// the action's new outputs are recorded. A failure only warns: the work is
// done and recorded.
func (w *outputs) removeStale(a *planner.Action) {
	if err := w.removeOutputs(a); err != nil {
		w.emit(Event{Kind: EventWarning, Address: a.Address, Err: err})
	}
}

// removeOutputs deletes the files of a.Removes that still hold what voxform
// recorded there. A file changed since (by hand, or by another resource)
// is not voxform's any more: it is left in place, with a warning.
func (w *outputs) removeOutputs(a *planner.Action) error {
	for _, p := range a.Details().Removes {
		rec, ok := recordedOutput(a.Prior, p)
		if !ok {
			return fmt.Errorf("delete %s: not an output recorded for %s", p, a.Address)
		}
		sum, err := w.hashOf(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("delete %s: %w", p, err)
		case sum != rec.SHA256:
			w.emit(Event{Kind: EventWarning, Address: a.Address,
				Err: fmt.Errorf("left %s in place: it changed since voxform wrote it", p)})
			continue
		}
		if err := w.root.Remove(p); err != nil {
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

// sameContent is the output of r (not a delivered one) that holds the
// content of o (SHA-256, size and format): what was measured and said of
// those bytes holds at any path.
func sameContent(r *state.Resource, o state.Output) (state.Output, bool) {
	for _, p := range r.Outputs {
		if p.Delivery == nil && p.SHA256 == o.SHA256 && p.Size == o.Size && p.Format == o.Format {
			return p, true
		}
	}
	return state.Output{}, false
}

// hashOf is the SHA-256 of the file at the manifest-relative path p: from
// the hash cache when it knows the file unchanged, else read through a
// checked directory handle (a symbolic link is refused). A missing file is
// fs.ErrNotExist.
func (w *outputs) hashOf(p string) (string, error) {
	if w.cache != nil {
		h, err := w.cache.Hash(p)
		if err == nil && !h.Exists {
			return "", fs.ErrNotExist
		}
		if err == nil {
			return h.SHA256, nil
		}
	}
	d, err := w.root.OpenDir(p, false)
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

// keepDelivered returns outs with the delivered outputs a's prior record
// holds that outs lacks and a still declares: a synthesis's record names
// its delivered files until the delivery step (deliverOp) records what
// it made of them, so that a kill or a failed mastering in between never
// leaves a delivered file at its path unrecorded (and refused by the
// next plan as not voxform's). Their records still say what they were
// made from, so the next plan remasters them.
func keepDelivered(a *planner.Action, outs []state.Output) []state.Output {
	if a.Prior == nil || a.Desired == nil {
		return outs
	}
	for _, p := range a.Prior.Outputs {
		if _, ok := planner.IsDelivery(p.Format); !ok || hasFormat(outs, p.Format) || !declares(a.Desired.Outputs, p.Format) {
			continue
		}
		outs = append(outs, p)
	}
	return outs
}

func hasFormat(outs []state.Output, format string) bool {
	_, ok := findOutput(outs, format)
	return ok
}

func declares(outs []planner.Output, format string) bool {
	for _, o := range outs {
		if o.Format == format {
			return true
		}
	}
	return false
}
