package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// restoreOp materialises a resource's outputs from the cache, where an
// earlier apply (here or on another machine) kept them under the same
// fingerprint: each file is cloned or copied from its verified cache
// entry into place, exactly as an operation that calls the service writes
// it, and recorded. It calls nothing and bills nothing.
type restoreOp struct {
	files *outputs
}

func (op *restoreOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	sl.Release() // nothing is asked of the service
	k := op.files.kept
	if k == nil {
		return result{}, errors.New("restore: the cache is off; plan again to see what the work costs")
	}
	fp := a.Desired.Fingerprint
	e, err := k.cache.FetchInto(ctx, k.batch, fp)
	if err != nil {
		return result{}, fmt.Errorf("restore from %s: %w; plan again to see what the work costs", a.RestoreFrom, err)
	}
	if e == nil {
		return result{}, fmt.Errorf("restore: %s no longer holds fingerprint %s; plan again to see what the work costs", a.RestoreFrom, fp[:12])
	}
	if e.Kind != string(a.Desired.Kind) {
		return result{}, fmt.Errorf("restore: the cache entry of %s is a %s, not a %s: %w", fp[:12], e.Kind, a.Desired.Kind, cache.ErrCorrupt)
	}
	var rec *state.Resource
	switch a.Desired.Kind {
	case manifest.KindSynthesis:
		format, _ := contract.Resolve(a.Desired.Wire.Synthesis.AudioConfig)
		o, err := op.restoreFile(a, e, roleAudio, a.Desired.Synthesis.Output, audioValidator(format))
		if err != nil {
			return result{}, err
		}
		o.Loudness = loudnessOfMeta(e.Meta) // measured when the entry's audio was made
		outs, err := op.restoreCues(a, o, format)
		if err != nil {
			return result{}, err
		}
		rec = &state.Resource{Outputs: outs}
	case manifest.KindEmbedding:
		o, err := op.restoreFile(a, e, roleEmbedding, a.Desired.Embedding.Output,
			func(path string) error { _, err := readEmbedding(path); return err })
		if err != nil {
			return result{}, err
		}
		rec = &state.Resource{Outputs: []state.Output{o}, Consent: a.Desired.Consent}
	case manifest.KindTranscription:
		outs, err := op.restoreTranscripts(a, e)
		if err != nil {
			return result{}, err
		}
		rec = transcriptionRecord(a, outs, e.Meta.DurationSeconds)
		rec.BilledAudioSeconds = 0 // this state paid nothing for it
		rec.DetectedLanguage = e.Meta.DetectedLanguage
		if e.Meta.Model != "" {
			rec.Model = e.Meta.Model
		}
	default:
		return result{}, fmt.Errorf("restore: a %s has no outputs to restore", a.Desired.Kind)
	}
	if a.RestoreFrom == "local" {
		k.cache.Local.Touch(fp) // an entry fetched from the remote is new
	}
	return op.files.record(a, rec, 0, 0)
}

// restoreFile writes the cached file of role at rel and commits it once
// validate accepts it.
func (op *restoreOp) restoreFile(a *planner.Action, e *cache.Entry, role, rel string, validate func(string) error) (state.Output, error) {
	f, ok := e.File(role)
	if !ok {
		return state.Output{}, fmt.Errorf("restore: the cache entry of %s has no %s file: %w", e.Fingerprint[:12], role, cache.ErrCorrupt)
	}
	out, err := op.files.output(a, rel)
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
	t := a.Desired.Transcription
	formats := append([]string(nil), t.Formats...)
	sort.Strings(formats)
	local := op.files.kept.cache.Local
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
		out, err := op.files.output(a, rel)
		if err != nil {
			return nil, err
		}
		files = append(files, out)
		if cached, ok := e.File(format); ok {
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
	if len(a.Desired.Chunks) > 0 {
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
