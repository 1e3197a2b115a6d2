package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/transcript"
)

// legacyPollInterval is the older batch API's documented minimum between
// two polls of one job.
const legacyPollInterval = contract.LegacyPollInterval

// followLegacy polls an older batch job until it completes and writes each
// file's result.
func (b *batchOp) followLegacy(ctx context.Context, jobID string, members []*member) int {
	interval := b.pollInterval(legacyPollInterval)
	var job *speechapi.LegacyJob
	for {
		var err error
		job, err = b.client.LegacyStatus(ctx, jobID, "")
		if isNotFound(err) {
			return b.failMembers(members, fmt.Errorf("older batch job %s no longer exists: the next apply submits again", jobID), true)
		}
		if err != nil {
			return b.failMembers(members, err, false)
		}
		b.report.emit(Event{Kind: EventProgress, Address: "batch job " + jobID, JobID: jobID, JobStatus: job.Status,
			FilesDone: job.CompletedFiles + job.FailedFiles, FilesTotal: job.TotalFiles})
		if job.Done() {
			break
		}
		if err := b.stops.pause(ctx, interval); err != nil {
			for _, m := range members {
				b.report.skip(m.action.Address, fmt.Sprintf("interrupted: older batch job %s stays pending and resumes on the next apply", jobID))
			}
			return 0
		}
	}
	raws := legacyRawResults(job)
	byName := map[string]int{}
	for i, r := range job.Results {
		byName[r.Filename] = i
		byName[path.Base(r.Filename)] = i
	}
	failed := 0
	for _, m := range members {
		i, ok := byName[m.name]
		if !ok {
			msg := "no result for this file"
			if job.Error != nil {
				msg = *job.Error
			}
			failed += b.failMembers([]*member{m}, &speechapi.FileError{JobID: jobID, Path: m.name, Status: job.Status, Message: msg}, true)
			continue
		}
		r := job.Results[i]
		if err := r.Err(jobID); err != nil {
			failed += b.failMembers([]*member{m}, err, true)
			continue
		}
		if err := b.writeLegacyResult(jobID, r, raws[i], m); err != nil {
			failed++
			b.report.fail(m.action.Address, string(m.action.Type), b.now().Sub(m.start), err)
		}
	}
	return failed
}

// legacyRawResults returns each results[] entry of an older batch status
// exactly as the service sent it (nil entries when the body is not kept).
func legacyRawResults(job *speechapi.LegacyJob) []json.RawMessage {
	out := make([]json.RawMessage, len(job.Results))
	var body struct {
		Results []json.RawMessage `json:"results"`
	}
	if len(job.Raw) == 0 || json.Unmarshal(job.Raw, &body) != nil || len(body.Results) != len(job.Results) {
		return out
	}
	return body.Results
}

// writeLegacyResult writes one file's result: the json output is its
// results[] entry as the service sent it.
func (b *batchOp) writeLegacyResult(jobID string, r speechapi.LegacyResult, raw json.RawMessage, m *member) error {
	a := m.action
	t := a.Desired.Details().Transcription
	segs := make([]transcript.Segment, 0, len(r.Segments))
	for _, s := range r.Segments {
		seg := transcript.Segment{Start: transcript.Seconds(s.StartTime), End: transcript.Seconds(s.EndTime), Text: s.Text}
		if t.IsMultiChannel {
			seg.Speaker = labelled(t).Name(s.SpeakerID)
		}
		segs = append(segs, seg)
	}
	outs, red, err := writeTranscripts(b.files, a, func(w io.Writer) error { return writeRaw(w, raw, &r) }, segs, true)
	if err != nil {
		return err
	}
	res := transcriptionRecord(a, outs, r.TotalDuration)
	res.Edit().Redaction = red
	details := res.Edit()
	details.JobID, details.JobAPI = jobID, manifest.APIBatchLegacy
	if prior, ok := b.files.recorder.Get(a.Address); ok && prior.Details().JobID == jobID {
		res.Edit().RequestIDs = prior.Details().RequestIDs // the submit's, kept with the pending entry
	}
	for _, s := range r.Segments {
		if s.LanguageDetected != "" {
			res.Edit().DetectedLanguage = s.LanguageDetected // never the requested code
			break
		}
	}
	rr, err := b.files.record(a, res, 0, r.TotalDuration)
	if err != nil {
		return err
	}
	b.report.done(a, rr, b.now().Sub(m.start))
	return nil
}

// isNotFound reports a 404 from the service.
func isNotFound(err error) bool {
	var se *speechapi.Error
	return errors.As(err, &se) && se.StatusCode == http.StatusNotFound
}
