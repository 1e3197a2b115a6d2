package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// wholeTakes are the takes of a synthesis sent whole. Without listen:
// there is one. With it, each take is checked, and a failing one is
// synthesized again while listen.regenerate allows: the first take that
// passes is kept; when every take fails, the last one is committed and
// recorded failing (unless the prior record of the same request passed
// and its output is still in place: it stays). A Check action's first
// take is the recorded output, unbilled. A take whose check cannot be
// made (the check's call refused or failed, audio longer than priced, a
// transcript that cannot be judged, no recognition for its language) is
// paid for: it ends the takes and is committed and recorded without its
// check (see unchecked), unless the apply is cancelled.
type wholeTakes struct {
	op     *synthesisOp
	a      *planner.Action
	al     *allowance
	req    *speechapi.SynthesisRequest
	format contract.Format
	// out is the current take (nil: the recorded output is the take);
	// heard its check (nil: none declared).
	out   *outputFile
	heard *heard
	// n counts the takes, chars and secs what they and their checks billed.
	n     int
	chars int64
	secs  float64
	// checkErr is why the current take's check could not be made;
	// takeErr why the take after it was not made.
	checkErr, takeErr error
}

// applyWhole performs a synthesis sent whole (see wholeTakes).
func (op *synthesisOp) applyWhole(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	req, err := op.request(a)
	if err != nil {
		return result{}, err
	}
	format, _ := contract.Resolve(req.AudioConfig)
	t := &wholeTakes{op: op, a: a, al: newAllowance(a), req: req, format: format}
	defer t.abort()
	if a.Type == planner.Check {
		err = t.checkRecorded(ctx)
	} else {
		err = t.synthesize(ctx)
	}
	sl.Release() // the audio is here: the next call need not wait for the disk
	for err == nil && t.takeErr == nil && t.failing() && t.n <= a.Desired.Details().Listen.Regenerate {
		err = t.synthesize(ctx)
	}
	if err != nil {
		return result{}, err
	}
	return t.finish()
}

// finish records what the takes made: the take kept, or the check of
// the recorded output, and why a check was not made, if so.
func (t *wholeTakes) finish() (result, error) {
	if t.heard != nil && t.n > 1 {
		t.heard.rec.Takes = t.n
	}
	var r result
	var err error
	switch {
	case t.out == nil && t.heard == nil:
		return t.recordUnchecked()
	case t.out == nil:
		r, err = t.recordChecked()
	case (t.failing() || t.checkErr != nil) && t.priorPasses():
		r, err = t.keepPrior()
	default:
		r, err = t.commit()
	}
	r.takes = max(t.n-1, 0)
	switch path := t.a.Desired.Outputs[0].Path; {
	case err != nil:
	case t.checkErr != nil:
		r.checkErr = unchecked(path, t.checkErr, t.out == nil)
	case t.takeErr != nil:
		r.checkErr = fmt.Errorf("%s: its check failed, and %w; the last take is recorded as its check found it", path, t.takeErr)
	}
	return r, err
}

// lost ends a take that failed (err; out, when set, is its file, aborted
// here). A take made again for a check the one before failed ends the
// takes: that one is recorded, failing, unless the apply is cancelled;
// the first take's failure is the action's.
func (t *wholeTakes) lost(ctx context.Context, out *outputFile, err error) error {
	if out != nil {
		out.Abort()
	}
	if t.n == 0 || ctx.Err() != nil {
		return err
	}
	t.takeErr = fmt.Errorf("take %d: %w", t.n+1, err)
	return nil
}

// cannotCheck ends the takes with the current one unchecked, its check
// not made for err; a cancelled apply ends with err, as an interrupted
// call does.
func (t *wholeTakes) cannotCheck(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	t.checkErr = err
	return nil
}

// recordUnchecked ends a Check action whose check of the recorded output
// could not be made: nothing changes but what the check billed (a
// transcript heard, then not judged), which is recorded.
func (t *wholeTakes) recordUnchecked() (result, error) {
	if t.secs == 0 {
		return result{}, t.checkErr
	}
	rec := *t.a.Prior
	rec.Edit().BilledAudioSeconds += t.secs
	rec.UpdatedAt = time.Time{} // stamped now
	r, err := t.op.files.record(t.a, &rec, 0, t.secs)
	if err == nil {
		r.checkErr = t.checkErr
	}
	return r, err
}

// unchecked is the failure of an output recorded without the listening
// check its synthesis declares, which could not be made (err): kept
// says the output recorded before stays (a Check action's, or the prior
// output that passed), else the take paid for is recorded unchecked. The
// next plan prices the check.
func unchecked(path string, err error, kept bool) error {
	what := "the take is recorded without it"
	if kept {
		what = "the recorded output stays"
	}
	return fmt.Errorf("%s: its listening check was not made: %w; %s, and the next plan prices the check", path, err, what)
}

// failing reports whether the current take failed its check.
func (t *wholeTakes) failing() bool { return t.heard != nil && !t.heard.rec.Pass }

func (t *wholeTakes) abort() {
	if t.out != nil {
		t.out.Abort()
	}
}

// synthesize makes one more take, billed within the allowance, and
// checks it when listen: is declared.
func (t *wholeTakes) synthesize(ctx context.Context) error {
	what := "the whole text"
	if t.n > 0 {
		what = fmt.Sprintf("take %d of the whole text", t.n+1)
	}
	if err := t.al.chars(t.a.Desired.Characters, what); err != nil {
		return t.lost(ctx, nil, err)
	}
	// The temporary file is made while the request is on its way; the
	// take before it stays until this one is here.
	out, err := t.op.files.openOutput(t.a, t.a.Desired.Outputs[0].Path)
	if err != nil {
		return t.lost(ctx, nil, err)
	}
	t.op.files.measure(ctx, out, t.format)
	if err := t.op.send(ctx, t.a.Desired.Transport, t.req, out); err != nil {
		return t.lost(ctx, out, err)
	}
	t.chars += t.a.Desired.Characters
	if listens(t.a) {
		if err := out.CheckWith(audioCheck(t.format)); err != nil {
			return t.lost(ctx, nil, err) // discarded
		}
	}
	t.abort()
	t.out, t.heard = out, nil
	t.n++
	if !listens(t.a) {
		return nil
	}
	sha, _, err := t.out.digest()
	if err != nil {
		return err
	}
	if err := t.check(ctx, t.out.TempPath(), sha); err != nil {
		return t.cannotCheck(ctx, err)
	}
	return nil
}

// checkRecorded makes the recorded output of a Check action its first
// take: checked, not billed.
func (t *wholeTakes) checkRecorded(ctx context.Context) error {
	if t.a.Prior == nil || len(t.a.Prior.Outputs) == 0 {
		return fmt.Errorf("listen: %s records no output to check; plan again", t.a.Address)
	}
	o := t.a.Prior.Outputs[0]
	if sum, err := t.op.files.hashOf(o.Path); err != nil || sum != o.SHA256 {
		return fmt.Errorf("listen: %s is not the recorded output (%v); plan again", o.Path, err)
	}
	t.n = 1
	if err := t.check(ctx, t.op.files.abs(o.Path), o.SHA256); err != nil {
		return t.cannotCheck(ctx, err)
	}
	return nil
}

// check checks the take at path, whose content hashes to sha.
func (t *wholeTakes) check(ctx context.Context, path, sha string) error {
	store, err := t.op.checkStore()
	if err != nil {
		return err
	}
	h, err := t.op.listen.check(ctx, t.a, t.al, store, take{Chunk: -1, Take: t.n, Text: t.a.Desired.Wire.Synthesis.Text, Path: path, Raw: rawFormat(t.format), SHA256: sha})
	t.secs += h.billed // also when it is not judged
	if err != nil {
		return err
	}
	t.heard = &h
	return nil
}

// commit commits the current take (and its cue files) and records it
// with its check.
func (t *wholeTakes) commit() (result, error) {
	a := t.a
	var cues *cueFiles
	if hasCues(a) {
		if err := t.out.CheckWith(audioCheck(t.format)); err != nil {
			return result{}, err
		}
		list, err := wholeCue(a, t.out.TempPath(), t.format)
		if err != nil {
			return result{}, err
		}
		if cues, err = t.op.files.writeCues(a, list); err != nil {
			return result{}, err
		}
		defer cues.Abort()
	}
	o, err := t.out.CommitWith(audioCheck(t.format))
	if err != nil {
		return result{}, err
	}
	if t.heard != nil {
		o.Listen = t.heard.rec
	}
	outs, err := commitCues(o, cues)
	if err != nil {
		return result{}, err
	}
	res := &state.Resource{Outputs: outs, BilledCharacters: t.chars}
	res.WithDetails(state.Details{BilledAudioSeconds: t.secs})
	if a.Type == planner.Check {
		res.CreatedAt = a.Prior.CreatedAt
		res.BilledCharacters += a.Prior.BilledCharacters
		res.Edit().BilledAudioSeconds += a.Prior.Details().BilledAudioSeconds
	}
	return t.op.files.record(a, res, t.chars, t.secs)
}

// recordChecked records the check of a Check action's recorded output,
// which stays in place.
func (t *wholeTakes) recordChecked() (result, error) {
	rec := *t.a.Prior
	rec.Outputs = append([]state.Output(nil), t.a.Prior.Outputs...)
	rec.Outputs[0].Listen = t.heard.rec
	rec.BilledCharacters += t.chars // takes made again that were lost
	rec.Edit().BilledAudioSeconds += t.secs
	rec.UpdatedAt = time.Time{} // stamped now
	return t.op.files.record(t.a, &rec, t.chars, t.secs)
}

// priorPasses reports whether the state records, for the same request,
// an output whose check passed and that is still in place: it is kept
// rather than a take that failed every check.
func (t *wholeTakes) priorPasses() bool {
	p := t.a.Prior
	if p == nil || p.Fingerprint != t.a.Desired.Fingerprint || len(p.Outputs) == 0 {
		return false
	}
	o := p.Outputs[0]
	if o.Listen == nil || !o.Listen.Pass || o.Listen.LanguageCode != t.a.Listen.Language || o.Path != t.a.Desired.Outputs[0].Path {
		return false
	}
	sum, err := t.op.files.hashOf(o.Path)
	return err == nil && sum == o.SHA256
}

// keepPrior keeps the prior passing output and its record, adding what
// the failed takes billed.
func (t *wholeTakes) keepPrior() (result, error) {
	t.abort()
	t.out = nil
	rec := *t.a.Prior
	rec.BilledCharacters += t.chars
	rec.Edit().BilledAudioSeconds += t.secs
	if t.heard != nil {
		t.op.files.emit(Event{Kind: EventWarning, Address: t.a.Address,
			Err: fmt.Errorf("listen: every take failed its check (%s); the recorded output, which passed, is kept", planner.FailureLine(t.heard.rec))})
	}
	return t.op.files.record(t.a, &rec, t.chars, t.secs)
}

// rawFormat is the format of headerless audio in format cfg (nil for a
// container).
func rawFormat(cfg contract.Format) *audio.Format {
	if cfg.Headered() {
		return nil
	}
	f, err := cfg.Audio()
	if err != nil {
		return nil
	}
	return &f
}
