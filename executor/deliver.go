package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// deliverOp makes a synthesis's delivered outputs (deliver:) after
// every action on it: from the audio the state records once the action
// is done, each delivered output recorded for that audio, profile and
// encoder stays; every other is mastered again (audio/master), locally
// and free, and committed like any output (atomic, owned, recorded).
// The audio is recorded before mastering starts, so a killed or failed
// mastering never loses paid work: the resource fails, and the next plan
// remasters.
type deliverOp struct {
	files *outputs
	// enc is the outside encoder (nil: none on this machine; the plan
	// refuses profiles that need one).
	enc master.Encoder
	// synth finds cache entries on the remote (synthesisOp.cached).
	synth *synthesisOp
}

// delivers reports whether a's resource has delivered outputs to make,
// keep or remove.
func delivers(a *planner.Action) bool {
	if a.Type == planner.Delete || kindOf(a) != manifest.KindSynthesis || a.Desired == nil {
		return false
	}
	if len(a.Desired.Details().Deliver) > 0 {
		return true
	}
	return a.Prior != nil && len(deliveredOf(a.Prior.Outputs)) > 0
}

// delivering runs op, then the delivery step.
type delivering struct {
	op operation // nil for a Remaster: the audio stays as recorded
	d  *deliverOp
}

func (w delivering) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	var r result
	if w.op != nil {
		var err error
		if r, err = w.op.apply(ctx, a, sl); err != nil {
			return r, err
		}
	} else {
		sl.Release() // mastering calls no service
	}
	return w.d.after(ctx, a, r)
}

// after makes a's delivered outputs from the audio the state records now.
func (op *deliverOp) after(ctx context.Context, a *planner.Action, r result) (result, error) {
	rec := op.current(a.Address)
	if rec == nil {
		return r, nil // nothing recorded: nothing to master from
	}
	sound, ok := findOutput(rec.Outputs, "")
	if !ok {
		return r, nil
	}
	kept, outs := splitDelivered(rec.Outputs)
	if a.Prior != nil { // what the action's own record dropped
		kept = append(kept, deliveredOf(a.Prior.Outputs)...)
	}
	var errs []error
	changed := false
	for _, dl := range a.Desired.Details().Deliver {
		format := planner.DeliverFormat(dl.Profile.Name)
		prev, _ := findOutput(kept, format)
		o, err := op.one(ctx, a, dl, sound, prev)
		if err != nil {
			errs = append(errs, fmt.Errorf("deliver %s to %s: %w", dl.Profile.Name, dl.Output, err))
			if prev.Path != "" {
				// Still voxform's: the next plan remasters it (made from
				// other audio, or by other rules).
				outs = append(outs, prev)
			}
			continue
		}
		changed = changed || o != prev
		outs = append(outs, o)
	}
	if changed || len(outs) != len(rec.Outputs) {
		rec.Outputs = outs
		rec.UpdatedAt = time.Time{} // stamped now
		if err := op.files.recorder.Record(a.Address, rec); err != nil {
			return r, fmt.Errorf("record %s: %w", a.Address, err)
		}
		if op.files.cache != nil {
			for _, o := range outs {
				op.files.cache.Put(o.Path, o.SHA256)
			}
		}
	}
	if a.Type == planner.Remaster {
		op.files.removeStale(a)
	}
	r.outputs = outs
	if len(errs) > 0 {
		r.checkErr = errors.Join(append([]error{r.checkErr}, errs...)...)
	}
	return r, nil
}

// current is a copy of the state's record of addr, complete; nil when
// there is none.
func (op *deliverOp) current(addr string) *state.Resource {
	var rec *state.Resource
	op.files.recorder.Read(func(f *state.File) {
		if r, ok := f.Resources[addr]; ok && r.Status == state.StatusComplete {
			c := *r
			c.Outputs = append([]state.Output(nil), r.Outputs...)
			rec = &c
		}
	})
	return rec
}

// one returns the delivered output of dl: prev when it was made from
// this audio by this profile and encoder and is intact, else mastered
// now.
func (op *deliverOp) one(ctx context.Context, a *planner.Action, dl manifest.Delivery, sound, prev state.Output) (state.Output, error) {
	id := master.Identity(dl.Profile, op.enc)
	fp := planner.DeliveryFingerprint(sound.SHA256, dl.Profile, id)
	if d := prev.Delivery; d != nil && d.Fingerprint == fp && prev.Path == dl.Output {
		if sum, err := op.files.hashOf(prev.Path); err == nil && sum == prev.SHA256 {
			return prev, nil
		}
	}
	out, err := op.files.output(a, dl.Output)
	if err != nil {
		return state.Output{}, err
	}
	defer out.Abort()
	fresh := prev.Delivery == nil || prev.Delivery.Fingerprint != fp || !op.fromCache(ctx, fp, prev.SHA256, out)
	if fresh {
		if err := op.master(ctx, a, dl, sound, out); err != nil {
			return state.Output{}, err
		}
	}
	o, err := out.Commit(nil)
	if err != nil {
		return state.Output{}, err
	}
	if !fresh && o.Path == prev.Path {
		return prev, nil // put back as recorded: the record stays as it is
	}
	o.Format = planner.DeliverFormat(dl.Profile.Name)
	o.Delivery = &state.Delivery{Profile: dl.Profile.Name, Fingerprint: fp, Source: sound.SHA256, Encoder: id}
	if fresh {
		op.keep(a, fp, op.files.abs(o.Path), o)
	}
	return o, nil
}

// master masters the recorded audio sound to dl's profile into out.
func (op *deliverOp) master(ctx context.Context, a *planner.Action, dl manifest.Delivery, sound state.Output, out *outputFile) error {
	if dl.Profile.NeedsEncoder() && op.enc == nil {
		return fmt.Errorf("profile %s needs an encoder for %s, and none was found", dl.Profile.Name, dl.Profile.Encoding.Codec)
	}
	tmp, err := os.MkdirTemp("", "voxform-master-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, err := op.source(sound, tmp)
	if err != nil {
		return err
	}
	mastered := filepath.Join(tmp, "delivered."+dl.Profile.Extension())
	if _, err := master.Master(ctx, src, sourceFormat(a), dl.Profile, op.enc, tmp, mastered); err != nil {
		return scratchNamed(err, src, sound.Path)
	}
	return out.Fill(func(f *os.File) error { return copyFile(f, mastered) })
}

// source copies the recorded audio into dir (see copyInput).
func (op *deliverOp) source(sound state.Output, dir string) (string, error) {
	return copyInput(op.files, sound.Path, sound.SHA256, filepath.Join(dir, "source"))
}

// copyInput copies the file at the manifest-relative path rel to dst,
// read as an input (inside the manifest directory, a regular file), and
// refuses it unless it holds sha: a file changed since it was recorded
// or planned is never taken for it.
func copyInput(w *outputs, rel, sha, dst string) (string, error) {
	in, err := w.openInput(rel)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	defer in.Close()
	f, err := os.Create(dst)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), in); err != nil {
		return "", fmt.Errorf("read %s: %w", rel, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != sha {
		return "", fmt.Errorf("%s changed since it was recorded or planned (sha256 %.12s, want %.12s); plan again", rel, sum, sha)
	}
	return dst, f.Close()
}

// sourceFormat is the format of a's audio when it is headerless, nil
// for a container.
func sourceFormat(a *planner.Action) *audio.Format {
	format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
	return rawFormat(format)
}

// copyFile copies the file at src to dst.
func copyFile(dst io.Writer, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(dst, f)
	return err
}

// splitDelivered returns outs' delivered outputs and the others.
func splitDelivered(outs []state.Output) (delivered, others []state.Output) {
	for _, o := range outs {
		if _, ok := planner.IsDelivery(o.Format); ok {
			delivered = append(delivered, o)
		} else {
			others = append(others, o)
		}
	}
	return delivered, others
}

// deliveredOf returns outs' delivered outputs.
func deliveredOf(outs []state.Output) []state.Output {
	d, _ := splitDelivered(outs)
	return d
}

func findOutput(outs []state.Output, format string) (state.Output, bool) {
	for _, o := range outs {
		if o.Format == format {
			return o, true
		}
	}
	return state.Output{}, false
}

// maxDelivered bounds a delivered file taken from the cache (an entry
// of kind cache.KindDelivery, kept under the output's fingerprint:
// planner.DeliveryFingerprint).
const maxDelivered = 4 << 30

// fromCache fills out with the delivered file the output cache keeps
// under fp (the local cache, else the remote's), and reports whether it
// did. It is asked only for a delivery the state records, with its
// content want: a cached file of other bytes (an entry another writer of
// the remote made up) is never taken, nor an entry that is not a
// delivered file: the output is mastered again.
func (op *deliverOp) fromCache(ctx context.Context, fp, want string, out *outputFile) bool {
	k := op.files.kept
	if k == nil || !op.synth.cached(ctx, k.cache.Local, fp) {
		return false
	}
	e, err := k.cache.Local.Entry(fp)
	if err != nil || e == nil || e.Kind != cache.KindDelivery {
		return false
	}
	f, ok := e.File(cache.RoleDelivered)
	if !ok || f.Size > maxDelivered || f.SHA256 != want {
		return false
	}
	r, err := k.cache.Local.OpenBlob(f.SHA256, f.Size)
	if err != nil {
		return false
	}
	defer r.Close()
	err = out.Fill(func(dst *os.File) error {
		h := sha256.New()
		if _, err := io.Copy(io.MultiWriter(dst, h), r); err != nil {
			return err
		}
		if hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
			return cache.ErrCorrupt
		}
		return nil
	})
	if err != nil {
		out.Truncate(0) // mastered afresh
		return false
	}
	return true
}

// keep stores the delivered file at path (o, fingerprint fp) in the
// output cache and has it pushed with the apply's other late entries.
// A failure is a warning: the output is made and recorded.
func (op *deliverOp) keep(a *planner.Action, fp, path string, o state.Output) {
	k := op.files.kept
	if k == nil {
		return
	}
	e := &cache.Entry{Version: cache.FormatVersion, Fingerprint: fp, Kind: cache.KindDelivery, CreatedAt: time.Now().UTC(),
		Files: []cache.File{{Role: cache.RoleDelivered, SHA256: o.SHA256, Size: o.Size}}}
	if err := k.cache.Local.Store(e, map[string]string{cache.RoleDelivered: path}); err != nil {
		k.warn(a.Address, fmt.Errorf("keep %s in the cache: %w", o.Path, err))
		return
	}
	k.keepCheck(e)
}

// scratchNamed is err with the scratch copy's path (src) named as the
// file it is a copy of (rel): an error names the user's file, not a
// temporary one.
func scratchNamed(err error, src, rel string) error {
	if !strings.Contains(err.Error(), src) {
		return err
	}
	return &renamed{msg: strings.ReplaceAll(err.Error(), src, rel), err: err}
}

// renamed is err told in other words (scratchNamed): errors.Is and As
// still see err, so an interruption is one.
type renamed struct {
	msg string
	err error
}

func (r *renamed) Error() string { return r.msg }
func (r *renamed) Unwrap() error { return r.err }
