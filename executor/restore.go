package executor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// restoreOp materialises a resource's outputs from the cache, where an
// earlier apply (here or on another machine) kept them under the same
// fingerprint: each file is cloned or copied from its verified cache
// entry into place, exactly as an operation that calls the service writes
// it, and recorded. It calls nothing and bills nothing. A resource the
// state records under that fingerprint gets back exactly the recorded
// files, and its record is kept (see keepRecord); the entry is compared
// with the record before anything is written.
type restoreOp struct {
	files *outputs
	// checks makes the listening checks of a restored take the state
	// does not record (see check).
	checks *synthesisOp
}

func (op *restoreOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	sl.Release() // nothing is asked of the service
	e, err := op.entry(ctx, a)
	if err != nil {
		return result{}, err
	}
	made, err := op.restore(ctx, a, e)
	if err != nil {
		return result{}, err
	}
	if a.Details().RestoreFrom == "local" {
		op.files.kept.cache.Local.Touch(e.Fingerprint) // an entry fetched from the remote is new
	}
	if a.KeepsRecord() {
		return op.files.keepRecord(a, made)
	}
	secs, cerr := op.check(ctx, a, made)
	if cerr != nil && ctx.Err() != nil {
		return result{}, cerr
	}
	r, err := op.files.record(a, made, 0, secs)
	if err == nil && cerr != nil {
		r.checkErr = unchecked(made.Outputs[0].Path, cerr, false)
	}
	return r, err
}

// entry fetches the cache entry a restores and checks it before anything
// is written: its kind, the files the state records for the resource
// (planner.Action.EntryMismatch: the entry may have changed since the
// plan), and the metadata a restore records (state.Resource.
// CheckReported).
func (op *restoreOp) entry(ctx context.Context, a *planner.Action) (*cache.Entry, error) {
	k := op.files.kept
	if k == nil {
		return nil, errors.New("restore: the cache is off; plan again to see what the work costs")
	}
	fp := a.CacheKey() // where the recorded bytes live
	var refused error
	e, err := k.cache.FetchChecked(ctx, k.batch, fp, func(e *cache.Entry) error {
		refused = checkEntry(a, e)
		return refused
	})
	switch {
	case refused != nil:
		return nil, fmt.Errorf("restore from %s: %w", a.Details().RestoreFrom, refused)
	case err != nil:
		return nil, fmt.Errorf("restore from %s: %w; plan again to see what the work costs", a.Details().RestoreFrom, err)
	case e == nil:
		return nil, fmt.Errorf("restore: %s no longer holds fingerprint %s; plan again to see what the work costs", a.Details().RestoreFrom, fp[:12])
	}
	return e, nil
}

// checkEntry refuses an entry that a restore of a may not take: of
// another kind, without the files the state records for the resource
// (planner.Action.EntryMismatch), or with metadata a state could not hold.
func checkEntry(a *planner.Action, e *cache.Entry) error {
	fp := a.CacheKey()
	if e.Kind != string(a.Desired.Kind) {
		return fmt.Errorf("the cache entry of %s is a %s, not a %s: %w", fp[:12], e.Kind, a.Desired.Kind, cache.ErrCorrupt)
	}
	if why := a.EntryMismatch(EntryFiles(e)); why != "" {
		return fmt.Errorf("%s: refused, nothing written and the record kept; plan again to see the repair it bills", why)
	}
	if err := CheckEntry(e); err != nil {
		return fmt.Errorf("%w: %w; plan again: the work is then billed", err, cache.ErrCorrupt)
	}
	return nil
}

// CheckEntry refuses what no restore may take from an entry, whatever the
// resource: files declaring more than cache.MaxEntryContent bytes, and
// metadata a state could not hold. Plan (which then bills the work) and
// apply both ask.
func CheckEntry(e *cache.Entry) error {
	if err := cache.CheckContent(e); err != nil {
		return err
	}
	if err := checkMeta(e.Meta); err != nil {
		return fmt.Errorf("the cache entry of %.12s: meta: %w", e.Fingerprint, err)
	}
	return nil
}

// checkMeta refuses entry metadata that a restore would record and that a
// state could not hold (state.Resource.CheckReported).
func checkMeta(m cache.Meta) error {
	r := &state.Resource{}
	r.WithDetails(state.Details{Model: m.Model, DetectedLanguage: m.DetectedLanguage, DurationSeconds: m.DurationSeconds})
	if err := r.CheckReported(); err != nil {
		return err
	}
	return loudnessOfMeta(m).Check()
}

// EntryFiles are the files of e by role, as the planner compares them
// with the state (planner.Action.EntryMismatch).
func EntryFiles(e *cache.Entry) map[string]planner.CachedFile {
	files := make(map[string]planner.CachedFile, len(e.Files))
	for _, f := range e.Files {
		files[f.Role] = planner.CachedFile{SHA256: f.SHA256, Size: f.Size}
	}
	return files
}

// restore writes the outputs of a from the entry e and returns what they
// are, with the metadata the entry adds.
func (op *restoreOp) restore(ctx context.Context, a *planner.Action, e *cache.Entry) (*state.Resource, error) {
	switch a.Desired.Kind {
	case manifest.KindSynthesis:
		format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
		validate := audioValidator(format)
		var measured *state.Loudness
		// An entry kept by an apply that measured none is measured now,
		// unless the state's record is kept as it is (its figures, or none,
		// stay: see keepRecord).
		if loudnessOfMeta(e.Meta) == nil && !a.KeepsRecord() {
			validate = op.files.measuring(ctx, format, validate, &measured)
		}
		o, err := op.restoreFile(a, e, roleAudio, a.Desired.Outputs[0].Path, validate)
		if err != nil {
			return nil, err
		}
		o.Loudness = cmp.Or(loudnessOfMeta(e.Meta), measured) // measured when the entry's audio was made, or now
		outs, err := op.restoreCues(a, o, format)
		if err != nil {
			return nil, err
		}
		return &state.Resource{Outputs: outs, Origin: recordedOrigin(a)}, nil
	case manifest.KindEmbedding:
		o, err := op.restoreFile(a, e, roleEmbedding, a.Desired.Details().Embedding.Output,
			func(path string) error { _, err := readEmbedding(path); return err })
		if err != nil {
			return nil, err
		}
		res := &state.Resource{Outputs: []state.Output{o}}
		res.WithDetails(state.Details{Consent: a.Desired.Details().Consent})
		return res, nil
	case manifest.KindTranscription:
		outs, err := op.restoreTranscripts(a, e)
		if err != nil {
			return nil, err
		}
		rec := transcriptionRecord(a, outs, e.Meta.DurationSeconds)
		if t := a.Desired.Details().Transcription; t.Redact != nil {
			// The entry's fingerprint covers the policy: its files are
			// redacted so. Nothing unredacted is kept from a cache.
			p, err := redact.NewPolicy(t.Redact.Kinds)
			if err != nil {
				return nil, err
			}
			rec.Edit().Redaction = &state.Redaction{Policy: p.String(), Version: redact.Version}
		}
		rec.Edit().BilledAudioSeconds = 0 // this state paid nothing for it
		rec.Edit().DetectedLanguage = e.Meta.DetectedLanguage
		if e.Meta.Model != "" {
			rec.Edit().Model = e.Meta.Model
		}
		return rec, nil
	}
	return nil, fmt.Errorf("restore: a %s has no outputs to restore", a.Desired.Kind)
}

// keepRecord finishes a restore of a resource whose record is kept
// (planner.Action.KeepsRecord): the record stays as it was, history
// included (created_at, billed amounts, the service's metadata, loudness
// figures); only outputs that differ from the recorded ones (a format
// added, an output at a new path) are recorded anew. A restore that put
// back every recorded output as it was records nothing: the state is left
// as it was, byte for byte.
func (w *outputs) keepRecord(a *planner.Action, made *state.Resource) (result, error) {
	made.Outputs = keepDelivered(a, made.Outputs) // the delivery step puts them back
	rec := *a.Prior
	rec.Outputs = make([]state.Output, len(made.Outputs))
	same := len(made.Outputs) == len(a.Prior.Outputs) && len(a.Details().Removes) == 0
	for i, o := range made.Outputs {
		p, ok := recordedOutput(a.Prior, o.Path)
		if ok && p.SHA256 == o.SHA256 && p.Size == o.Size && p.Format == o.Format {
			rec.Outputs[i] = p // with its recorded loudness
			continue
		}
		if p, ok := sameContent(a.Prior, o); ok { // the same bytes at a new path
			o.Loudness, o.Encoder = p.Loudness, p.Encoder
		}
		rec.Outputs[i], same = o, false
	}
	if same {
		return w.recorded(a, a.Prior, 0, 0), nil
	}
	rec.UpdatedAt = time.Time{} // stamped now
	return w.record(a, &rec, 0, 0)
}

// restoreFile writes the cached file of role at rel and commits it once
// validate accepts it: the recorded content, when the state records one
// for role.
func (op *restoreOp) restoreFile(a *planner.Action, e *cache.Entry, role, rel string, validate func(string) error) (state.Output, error) {
	f, ok := e.File(role)
	if !ok {
		return state.Output{}, fmt.Errorf("restore: the cache entry of %s has no %s file: %w", e.Fingerprint[:12], role, cache.ErrCorrupt)
	}
	out, err := op.files.ownedOutput(a, rel, a.RecordedFiles()[role].SHA256)
	if err != nil {
		return state.Output{}, err
	}
	defer out.Abort()
	if err := out.Fill(func(dst *os.File) error { return op.files.kept.cache.Local.CopyBlob(f.SHA256, dst) }); err != nil {
		return state.Output{}, fmt.Errorf("restore %s: %w", rel, err)
	}
	return out.Commit(validate)
}

// restoreTranscripts writes every requested format of a transcription:
// the cached file of that format, or one rendered from the cached
// transcript JSON (a format the earlier apply was not asked for). All are
// checked before any is committed, as writeTranscripts does.
func (op *restoreOp) restoreTranscripts(a *planner.Action, e *cache.Entry) ([]state.Output, error) {
	t := a.Desired.Details().Transcription
	formats := append([]string(nil), t.Formats...)
	sort.Strings(formats)
	local := op.files.kept.cache.Local
	recorded := a.RecordedFiles()
	var segs []transcript.Segment
	segsRead := false
	readSegs := func() error {
		if segsRead {
			return nil
		}
		segsRead = true
		doc, ok := e.File("json")
		if !ok {
			return fmt.Errorf("the cache entry of %s has no transcript JSON to render from", e.Fingerprint[:12])
		}
		tmp, err := os.CreateTemp("", "voxform-transcript-*.json")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		if err := local.CopyBlob(doc.SHA256, tmp); err != nil {
			return err
		}
		segs, err = segmentsFromFile(tmp.Name(), labelled(t), e.Meta.DurationSeconds)
		return err
	}
	files := make([]*outputFile, 0, len(formats))
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	hasText := false
	for _, format := range formats {
		rel := t.Outputs[format]
		cached, fromEntry := e.File(format)
		want := ""
		if fromEntry {
			want = recorded[format].SHA256
		}
		out, err := op.files.ownedOutput(a, rel, want)
		if err != nil {
			return nil, err
		}
		files = append(files, out)
		if fromEntry {
			err = out.Fill(func(dst *os.File) error { return local.CopyBlob(cached.SHA256, dst) })
		} else if err = readSegs(); err == nil {
			err = transcript.RenderSlice(out, transcript.Format(format), segs, transcript.Options{})
			for _, s := range segs {
				hasText = hasText || strings.TrimSpace(s.Text) != ""
			}
		}
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", rel, err)
		}
	}
	if t.RedactedAudio != "" {
		cached, ok := e.File(planner.RedactedAudioFormat)
		if !ok {
			return nil, fmt.Errorf("restore: the cache entry of %s has no redacted audio: %w", e.Fingerprint[:12], cache.ErrCorrupt)
		}
		out, err := op.files.ownedOutput(a, t.RedactedAudio, recorded[planner.RedactedAudioFormat].SHA256)
		if err != nil {
			return nil, err
		}
		files = append(files, out)
		formats = append(formats, planner.RedactedAudioFormat)
		if err := out.Fill(func(dst *os.File) error { return local.CopyBlob(cached.SHA256, dst) }); err != nil {
			return nil, fmt.Errorf("restore %s: %w", t.RedactedAudio, err)
		}
	}
	return commitTranscripts(files, formats, hasText)
}

// restoreCues writes the cue files of a restored synthesis, if it
// declares any, from its restored audio o: one cue, as a synthesis that
// is not chunked has. A chunked one needs its chunks' durations and is
// never restored whole when it has cue files (the planner joins it again
// from its chunks).
func (op *restoreOp) restoreCues(a *planner.Action, o state.Output, format contract.Format) ([]state.Output, error) {
	if !hasCues(a) {
		return []state.Output{o}, nil
	}
	if len(a.Desired.Details().Chunks) > 0 {
		return nil, fmt.Errorf("restore: the cue files of a chunked synthesis are made from its chunks; plan again")
	}
	list, err := wholeCue(a, op.files.abs(o.Path), format)
	if err != nil {
		return nil, err
	}
	cues, err := op.files.writeCues(a, list)
	if err != nil {
		return nil, err
	}
	defer cues.Abort()
	return commitCues(o, cues)
}

// recordedChunk refuses the cached audio f of the chunk fp of a's
// synthesis when the state records other audio for that chunk: a join
// puts back the recorded chunks or nothing, as a restore does.
func recordedChunk(a *planner.Action, fp string, f cache.File) error {
	if a.Prior == nil {
		return nil
	}
	for _, r := range a.Prior.Details().Chunks {
		if r.Fingerprint == fp && r.SHA256 != f.SHA256 {
			return fmt.Errorf("the cached audio of chunk %.12s (sha256 %.12s) is not the recorded one (sha256 %.12s): refused; "+
				"'voxform apply -replace=%s' synthesizes every chunk again (billed)", fp, f.SHA256, r.SHA256, a.Address)
		}
	}
	return nil
}
