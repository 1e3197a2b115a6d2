package executor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// collect downloads each completed file's transcript and writes and
// records its outputs; failed, skipped and cancelled files fail their
// resource (and are forgotten, so that the next apply tries them again).
func (b *batchOp) collect(ctx context.Context, job *speechapi.Job, files []speechapi.FileRecord, members []*member) int {
	// Each member maps to the one record whose original_path is exactly
	// its name; a name listed twice maps to none.
	byName := map[string]speechapi.FileRecord{}
	twice := map[string]bool{}
	for _, f := range files {
		if _, dup := byName[f.OriginalPath]; dup {
			twice[f.OriginalPath] = true
		}
		byName[f.OriginalPath] = f
	}
	var (
		mu     sync.Mutex
		failed int
		wg     sync.WaitGroup
		sem    = make(chan struct{}, max(1, b.parallelism))
	)
	for _, m := range members {
		rec, ok := byName[m.name]
		if twice[m.name] {
			n := b.failMembers([]*member{m}, fmt.Errorf("batch job %s lists more than one file %s", job.JobID, m.name), true)
			mu.Lock()
			failed += n
			mu.Unlock()
			continue
		}
		if !ok {
			n := b.failMembers([]*member{m}, fmt.Errorf("batch job %s (%s) lists no file %s", job.JobID, strings.ToLower(job.Status), m.name), true)
			mu.Lock()
			failed += n
			mu.Unlock()
			continue
		}
		if err := rec.Err(job.JobID); err != nil {
			n := b.failMembers([]*member{m}, err, true)
			mu.Lock()
			failed += n
			mu.Unlock()
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(m *member, rec speechapi.FileRecord) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := b.collectFile(ctx, job.JobID, rec, m); err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
				b.report.fail(m.action.Address, string(m.action.Type), b.now().Sub(m.start), err)
			}
		}(m, rec)
	}
	wg.Wait()
	return failed
}

// collectFile downloads one transcript into its json output, renders the
// other formats from it and records the resource.
func (b *batchOp) collectFile(ctx context.Context, jobID string, rec speechapi.FileRecord, m *member) error {
	a := m.action
	t := a.Desired.Details().Transcription
	dl, err := b.downloadTarget(a)
	if err != nil {
		return err
	}
	defer dl.Abort()
	// A download cut short is sent again by the client, from an empty
	// temporary file.
	if _, err := b.client.DownloadTranscript(traced(ctx, b.report.emit, a.Address), jobID, rec, dl); err != nil {
		return err
	}
	meta, segs, err := readTranscript(dl.TempPath(), labelled(t))
	if err != nil {
		return fmt.Errorf("transcript of %s: %w", m.name, err)
	}
	outs, red, err := writeTranscripts(b.files, a, copyFrom(dl.TempPath()), segs, true)
	if err != nil {
		return err
	}
	// The download is discarded before the record, so that a temporary file
	// only ever exists for a resource that is not yet recorded, and is
	// therefore in the next plan, which sweeps it.
	dl.Abort()
	secs := meta.DurationSeconds
	if secs == 0 && rec.DurationSeconds != nil {
		secs, _ = strconv.ParseFloat(*rec.DurationSeconds, 64)
	}
	res := transcriptionRecord(a, outs, secs)
	details := res.Edit()
	details.Redaction = red
	details.JobID, details.JobAPI, details.FileID = jobID, manifest.APIBatch, rec.FileID
	if src := details.Source; src != nil && src.URL == "" {
		named := *src
		named.Name = m.name // the file record's original_path
		details.Source = &named
	}
	details.Model = firstNonEmpty(meta.Model, t.Model)
	details.DetectedLanguage = meta.LanguageCode
	r, err := b.files.record(a, res, 0, secs)
	if err != nil {
		return err
	}
	b.report.done(a, r, b.now().Sub(m.start))
	return nil
}

// download is where a transcript is downloaded to: its temporary file.
type download interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
	TempPath() string
	Abort()
}

// downloadTarget is where the transcript of a is downloaded: beside its
// outputs, or, when it is redacted, a private scratch file of
// state.UnredactedTemp, so that the unredacted transcript is never in the
// outputs' directory.
func (b *batchOp) downloadTarget(a *planner.Action) (download, error) {
	t := a.Desired.Details().Transcription
	if t.Redact != nil {
		f, err := state.UnredactedTemp(b.files.dir)
		if err != nil {
			return nil, err
		}
		return privateTemp{f}, nil
	}
	rel := t.Outputs["json"]
	if rel == "" {
		rel = transcriptScratch(t)
	}
	return b.files.output(a, rel)
}

// privateTemp is a scratch file of voxform's own (state.UnredactedTemp),
// removed by Abort.
type privateTemp struct{ *os.File }

func (p privateTemp) TempPath() string { return p.Name() }

func (p privateTemp) Abort() {
	p.Close()
	os.Remove(p.Name())
}

// transcriptScratch is where a transcript is downloaded when json is not
// one of the requested formats: beside the outputs, removed after use.
func transcriptScratch(t *manifest.Transcription) string {
	for _, p := range t.Outputs {
		return strings.TrimSuffix(p, path.Ext(p)) + ".transcript.json"
	}
	return "transcript.json"
}

// transcriptMeta are the audit fields of a downloaded transcript JSON.
type transcriptMeta struct {
	LanguageCode    string  `json:"language_code"`
	DurationSeconds float64 `json:"duration_seconds"`
	Model           string  `json:"model"`
}

// readTranscript reads a downloaded transcript's segments and audit
// fields in one streaming pass (transcript.DecodeJSON): the document is
// never held in memory, only its segments.
func readTranscript(path string, labels transcript.Labels) (transcriptMeta, []transcript.Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return transcriptMeta{}, nil, err
	}
	defer f.Close()
	doc, err := transcript.DecodeJSON(f, labels)
	if err != nil {
		return transcriptMeta{}, nil, err
	}
	meta := transcriptMeta{LanguageCode: doc.LanguageCode, DurationSeconds: doc.DurationSeconds, Model: doc.Model}
	return meta, doc.Segments, nil
}
