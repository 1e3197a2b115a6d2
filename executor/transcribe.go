package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// transcriptionOp transcribes one input through client: over REST, or in a
// realtime session opened under sessions (nil: no limit). Batch
// transcriptions are a batchOp's.
type transcriptionOp struct {
	client   *speechapi.Client
	sessions *Limiter
	files    *outputs
}

func (op *transcriptionOp) apply(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	t := a.Desired.Details().Transcription
	switch t.API {
	case manifest.APIREST:
		return op.rest(ctx, a, sl)
	case manifest.APIRealtime:
		return op.realtime(ctx, a, sl)
	}
	return result{}, fmt.Errorf("transcription api %q is sent as a batch job, not alone", t.API)
}

func (op *transcriptionOp) rest(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	t := a.Desired.Details().Transcription
	src, err := op.files.recordingSource(t)
	if err != nil {
		return result{}, err
	}
	res, err := op.client.Transcribe(ctx, src, speechapi.TranscribeOptionsOf(a.Desired.Wire.Transcription))
	if err != nil {
		return result{}, err
	}
	sl.Release()
	secs := op.files.recordingSeconds(t)
	segs := []transcript.Segment{{Start: 0, End: transcript.Seconds(secs), Text: res.Transcript}}
	// The json output is the response exactly as the service sent it.
	outs, red, err := writeTranscripts(op.files, a, func(w io.Writer) error { return writeRaw(w, res.Raw, res) }, segs, true)
	if err != nil {
		return result{}, err
	}
	rec := transcriptionRecord(a, outs, secs)
	rec.Edit().Redaction = red
	if res.RequestID != "" {
		rec.Edit().RequestIDs = []string{res.RequestID}
	}
	// The REST response names no language: detected_language stays empty
	// (the requested language_code is in the recorded request).
	return op.files.record(a, rec, 0, secs)
}

// realtimeDocument is the transcript JSON voxform writes for a realtime
// session: the service returns messages, not a document, so voxform
// assembles one in the shape of the batch transcript JSON (segments with
// start_time and end_time in seconds) and keeps every message as received.
type realtimeDocument struct {
	LanguageCode    string                      `json:"language_code"`
	DurationSeconds float64                     `json:"duration_seconds"`
	FullTranscript  string                      `json:"full_transcript"`
	Segments        []realtimeDocSegment        `json:"segments"`
	Messages        []speechapi.RealtimeMessage `json:"messages"`
}

type realtimeDocSegment struct {
	SegmentID        string  `json:"segment_id"`
	StartTime        float64 `json:"start_time"`
	EndTime          float64 `json:"end_time"`
	Text             string  `json:"text"`
	LanguageDetected string  `json:"language_detected,omitempty"`
}

func (op *transcriptionOp) realtime(ctx context.Context, a *planner.Action, sl *slot) (result, error) {
	t := a.Desired.Details().Transcription
	f, err := op.files.openRecording(t)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	var res *speechapi.RealtimeResult
	err = op.sessions.session(ctx, func() (err error) {
		res, err = op.client.TranscribeRealtime(ctx, f, speechapi.RealtimeOptionsOf(a.Desired.Wire.Transcription))
		return err
	})
	if err != nil {
		return result{}, err
	}
	sl.Release()
	doc := realtimeDocument{LanguageCode: t.LanguageCode, DurationSeconds: res.AudioSent.Seconds(), Messages: res.Messages}
	var segs []transcript.Segment
	detected := ""
	for _, s := range res.Segments {
		doc.Segments = append(doc.Segments, realtimeDocSegment{
			SegmentID: s.ID, StartTime: s.Start.Seconds(), EndTime: s.End.Seconds(), Text: s.Text, LanguageDetected: s.Language,
		})
		if doc.FullTranscript != "" && s.Text != "" {
			doc.FullTranscript += " "
		}
		doc.FullTranscript += s.Text
		segs = append(segs, transcript.Segment{Start: s.Start, End: s.End, Text: s.Text})
		if detected == "" {
			detected = s.Language
		}
	}
	outs, red, err := writeTranscripts(op.files, a, func(w io.Writer) error { return writeJSON(w, &doc) }, segs, true)
	if err != nil {
		return result{}, err
	}
	secs := res.AudioSent.Seconds()
	rec := transcriptionRecord(a, outs, secs)
	rec.Edit().Redaction = red
	rec.Edit().DetectedLanguage = detected // what the messages said, never the requested code
	return op.files.record(a, rec, 0, secs)
}

// transcriptionRecord fills the audit fields of a transcription.
func transcriptionRecord(a *planner.Action, outs []state.Output, secs float64) *state.Resource {
	t := a.Desired.Details().Transcription
	rec := &state.Resource{Outputs: outs}
	rec.WithDetails(state.Details{Model: t.Model, DurationSeconds: secs, BilledAudioSeconds: secs})
	for _, s := range a.Desired.Details().Sources {
		if s.Role == "source" {
			rec.Edit().Source = &state.Source{Path: s.Path, SHA256: s.SHA256, URL: s.URL}
		}
	}
	return rec
}

// writeTranscripts writes every requested format of one input into ws:
// json via writeJSONDoc, the others rendered from segs. All outputs are
// committed only once every one of them was written.
//
// answer says whether writeJSONDoc writes the service's answer as it came
// (or the kept copy of it): only such a document is kept as the unredacted
// transcript.
func writeTranscripts(ws *outputs, a *planner.Action, writeJSONDoc func(io.Writer) error, segs []transcript.Segment, answer bool) ([]state.Output, *state.Redaction, error) {
	t := a.Desired.Details().Transcription
	formats := append([]string(nil), t.Formats...)
	sort.Strings(formats)
	files := make([]*outputFile, 0, len(formats)+1)
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	var red *redaction
	if t.Redact != nil {
		p, err := redact.NewPolicy(t.Redact.Kinds)
		if err != nil {
			return nil, nil, fmt.Errorf("redact: %w", err)
		}
		r, err := ws.redactTranscript(a, p, writeJSONDoc, segs, answer)
		if err != nil {
			return nil, nil, err
		}
		defer r.close()
		red, writeJSONDoc, segs = r, r.writeJSON, r.segs
	}
	if ws.kept != nil && !slices.Contains(formats, "json") {
		ws.kept.keepDoc(a, writeJSONDoc)
	}
	opts := transcript.Options{}
	for _, format := range formats {
		f, err := ws.output(a, t.Outputs[format])
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		if format == "json" {
			err = writeJSONDoc(f)
		} else {
			err = transcript.RenderSlice(f, transcript.Format(format), segs, opts)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("write %s: %w", t.Outputs[format], err)
		}
	}
	if red != nil && t.RedactedAudio != "" {
		f, err := ws.redactedAudio(a, red)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		formats = append(formats, planner.RedactedAudioFormat)
	}
	// Every file is checked before any is renamed into place.
	hasText := false
	for _, s := range segs {
		hasText = hasText || strings.TrimSpace(s.Text) != ""
	}
	outs, err := commitTranscripts(files, formats, hasText)
	if err != nil || red == nil {
		return outs, nil, err
	}
	return outs, red.record, nil
}

// renderOp is the free repair of a transcription: the recorded transcript
// JSON is intact, so the missing formats are rendered from it again. It
// calls nothing.
type renderOp struct {
	files *outputs
}

func (op *renderOp) apply(_ context.Context, a *planner.Action, _ *slot) (result, error) {
	t := a.Desired.Details().Transcription
	from, done, err := op.renderSource(a)
	if err != nil {
		return result{}, fmt.Errorf("re-render from %s: %w", a.Details().RenderFrom, err)
	}
	defer done()
	segs, err := segmentsFromFile(from, labelled(t), a.Prior.Details().DurationSeconds)
	if err != nil {
		return result{}, fmt.Errorf("re-render from %s: %w", a.Details().RenderFrom, err)
	}
	// The recorded JSON is the service's answer unless it was redacted.
	answer := a.RendersFromKept() || a.Prior.Details().Redaction == nil
	outs, red, err := writeTranscripts(op.files, a, copyFrom(from), segs, answer)
	if err != nil {
		return result{}, err
	}
	rec := *a.Prior
	rec.Outputs = outs
	rec.Edit().Redaction = red
	rec.UpdatedAt = time.Time{}
	return op.files.record(a, &rec, 0, 0) // which drops a kept transcript no longer wanted
}

// renderSource is the file a re-render reads: an output, or a private copy
// of the kept unredacted transcript (read only as state.OpenUnredacted
// allows), with what removes the copy.
func (op *renderOp) renderSource(a *planner.Action) (string, func(), error) {
	r := a.Prior.Details().Redaction
	if r == nil || r.Unredacted == nil || r.Unredacted.Path != a.Details().RenderFrom {
		return op.files.abs(a.Details().RenderFrom), func() {}, nil
	}
	src, err := state.OpenUnredacted(op.files.dir, a.Address, r.Unredacted)
	if err != nil {
		return "", nil, err
	}
	defer src.Close()
	tmp, err := state.UnredactedTemp(op.files.dir)
	if err != nil {
		return "", nil, err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && hex.EncodeToString(h.Sum(nil)) != r.Unredacted.SHA256 {
		err = fmt.Errorf("the kept unredacted transcript changed since it was kept")
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", nil, err
	}
	return tmp.Name(), func() { os.Remove(tmp.Name()) }, nil
}

// segmentsFromFile reads the segments of a transcript JSON voxform wrote.
// A REST response has no segments: its whole transcript becomes one
// segment over the recorded duration.
func segmentsFromFile(path string, labels transcript.Labels, durationSecs float64) ([]transcript.Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	segs, err := transcript.ParseJSON(f, labels)
	if err != nil || len(segs) > 0 {
		return segs, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var rest struct {
		Transcript string `json:"transcript"`
	}
	if err := json.NewDecoder(f).Decode(&rest); err != nil {
		return nil, err
	}
	if rest.Transcript == "" {
		return nil, nil
	}
	return []transcript.Segment{{End: transcript.Seconds(durationSecs), Text: rest.Transcript}}, nil
}

// labelled is how t's segments are labelled: by speaker when diarized or
// multi-channel, by the role channels: names where it names one.
func labelled(t *manifest.Transcription) transcript.Labels {
	return transcript.Labels{Speakers: t.WithDiarization || t.IsMultiChannel, Roles: t.Channels}
}

// writeRaw writes a JSON body exactly as the service sent it; without one
// (a client that kept none) it encodes v.
func writeRaw(w io.Writer, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return writeJSON(w, v)
	}
	_, err := w.Write(raw)
	return err
}

// copyFrom returns a writer of the JSON output that streams the file at
// path (a downloaded or recorded transcript) as it is.
func copyFrom(path string) func(io.Writer) error {
	return func(w io.Writer) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// probeSeconds returns an audio file's duration, or 0 when unknown.
func probeSeconds(path string) float64 {
	info, err := audio.Probe(path)
	if err != nil {
		return 0
	}
	return info.Duration.Seconds()
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// commitTranscripts checks every transcript file (files[i] of formats[i])
// before any is renamed into place, then commits them all.
func commitTranscripts(files []*outputFile, formats []string, hasText bool) ([]state.Output, error) {
	for i, f := range files {
		if err := f.CheckWith(transcriptCheck(formats[i], hasText)); err != nil {
			return nil, err
		}
	}
	outs := make([]state.Output, 0, len(files))
	for i, f := range files {
		o, err := f.Commit(nil)
		if err != nil {
			return nil, err
		}
		o.Format = formats[i]
		outs = append(outs, o)
	}
	return outs, nil
}
