package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/transcript"
)

// maxCheckSeconds bounds a duration a job reports for a check: the
// documented 4 hours of one file.
const maxCheckSeconds = 4 * 3600

// collect hands each of j's checks its transcript, or its file's failure,
// and forgets in the journal every check whose outcome is final (heard
// and kept, failed by the service, its transcript refused); one whose
// download failed, or that was heard and could not be kept
// (checkFile.Keep), stays recorded for the next apply.
func (b *jobBatcher) collect(j *checkJob, job *speechapi.Job) {
	tickets := b.take(j)
	// A job that never ran has no file to tell of; a FAILED one lists
	// each file's failure.
	if job.Status == speechapi.JobStartFailed || job.Status == speechapi.JobCancelled {
		b.failTickets(tickets, fmt.Errorf("listen: %w", job.Err()))
		_ = b.journal.forget(j.id, nil, true)
		return
	}
	recs, err := b.op.client.AllJobFiles(j.ctx, j.id, "")
	if err != nil {
		if job.Status == speechapi.JobFailed {
			err = fmt.Errorf("%w (files not listed: %v)", job.Err(), err)
		}
		b.failTickets(tickets, fmt.Errorf("listen: %w", err))
		return
	}
	final := b.hearAll(j, tickets, recs)
	if err := b.journal.forget(j.id, final, false); err != nil {
		b.op.report.emit(Event{Kind: EventWarning, Err: fmt.Errorf("listen: %w", err)})
	}
}

// hearAll hands each ticket its outcome, downloading up to parallelism
// transcripts at once, each heard check kept first (checkFile.Keep); it
// returns the fingerprints whose outcome is final.
func (b *jobBatcher) hearAll(j *checkJob, tickets []*checkTicket, recs []speechapi.FileRecord) []string {
	// Each check maps to the one record whose original_path is its name;
	// a name listed twice maps to none.
	byName, twice := map[string]speechapi.FileRecord{}, map[string]bool{}
	for _, r := range recs {
		twice[r.OriginalPath] = twice[r.OriginalPath] || hasKey(byName, r.OriginalPath)
		byName[r.OriginalPath] = r
	}
	var (
		mu    sync.Mutex
		final []string
		wg    sync.WaitGroup
		sem   = make(chan struct{}, max(1, b.op.parallelism))
	)
	for _, t := range tickets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			heard, done, err := b.hear(j, t, byName, twice)
			if done && err == nil && t.file.Keep != nil {
				if err = t.file.Keep(heard); err != nil {
					done = false // stays recorded: the next apply collects it again
				}
			}
			if done {
				mu.Lock()
				final = append(final, t.file.Fingerprint)
				mu.Unlock()
			}
			b.resolve(t, heard, err)
		}()
	}
	wg.Wait()
	return final
}

// heardNothing reports whether the service failed rec because it heard
// no speech: speech-recognition.md, "for silent or tone-only audio the
// message is that the transcript was empty after 3 retries". For a check
// that is a transcript, an empty one: the audio says nothing of its text.
func heardNothing(rec speechapi.FileRecord) bool {
	return rec.Status == speechapi.FileFailed && rec.ErrorMessage != nil &&
		strings.Contains(strings.ToLower(*rec.ErrorMessage), "transcript") && strings.Contains(strings.ToLower(*rec.ErrorMessage), "empty")
}

func hasKey(m map[string]speechapi.FileRecord, k string) bool { _, ok := m[k]; return ok }

// hear downloads and reads one check's transcript; final says whether its
// outcome is the service's last word on it.
func (b *jobBatcher) hear(j *checkJob, t *checkTicket, byName map[string]speechapi.FileRecord, twice map[string]bool) (heard checkHeard, final bool, err error) {
	rec, ok := byName[t.name]
	switch {
	case twice[t.name]:
		return checkHeard{}, true, fmt.Errorf("listen: batch job %s lists more than one file %s", j.id, t.name)
	case !ok:
		return checkHeard{}, true, fmt.Errorf("listen: batch job %s lists no file %s", j.id, t.name)
	}
	if heardNothing(rec) {
		return checkHeard{Seconds: t.file.Seconds, JobID: j.id}, true, nil
	}
	if err = rec.Err(j.id); err != nil {
		return checkHeard{}, true, fmt.Errorf("listen: %w", err)
	}
	buf := &cappedBuffer{max: maxCheckTranscript}
	if _, err = b.op.client.DownloadTranscript(j.ctx, j.id, rec, buf); err != nil {
		if buf.over {
			return checkHeard{}, true, fmt.Errorf("listen: transcript of %s in batch job %s: larger than %d MiB, the bound of a check's transcript", t.name, j.id, maxCheckTranscript>>20)
		}
		return checkHeard{}, false, fmt.Errorf("listen: %w", err)
	}
	heard, err = b.readHeard(buf.b, rec, t)
	if err != nil {
		return checkHeard{}, true, fmt.Errorf("listen: transcript of %s in batch job %s: %w", t.name, j.id, err)
	}
	heard.JobID = j.id
	return heard, true, nil
}

// readHeard reads a downloaded transcript: its full_transcript (else its
// segments' text), the key removed, at most state.MaxHeard bytes; the
// seconds the job reports for the file (else the rendition's).
func (b *jobBatcher) readHeard(body []byte, rec speechapi.FileRecord, t *checkTicket) (checkHeard, error) {
	doc, err := transcript.DecodeJSON(bytes.NewReader(body), transcript.Labels{})
	if err != nil {
		return checkHeard{}, err
	}
	var full struct {
		FullTranscript string `json:"full_transcript"`
	}
	if err := json.Unmarshal(body, &full); err != nil {
		return checkHeard{}, fmt.Errorf("read transcript json: %w", err)
	}
	text := full.FullTranscript
	if text == "" {
		parts := make([]string, 0, len(doc.Segments))
		for _, s := range doc.Segments {
			parts = append(parts, strings.TrimSpace(s.Text))
		}
		text = strings.Join(parts, " ")
	}
	if len(text) > state.MaxHeard {
		return checkHeard{}, fmt.Errorf("the text is %d bytes, over the %d KiB a check records", len(text), state.MaxHeard>>10)
	}
	if !utf8.ValidString(text) {
		return checkHeard{}, errors.New("the text is not valid UTF-8")
	}
	for i := range doc.Segments {
		doc.Segments[i].Text = b.op.client.RedactText(doc.Segments[i].Text)
	}
	secs := t.file.Seconds
	if s, ok := reportedSeconds(rec.DurationSeconds); ok {
		secs = s
	} else if s := doc.DurationSeconds; s > 0 && s <= maxCheckSeconds {
		secs = s
	}
	return checkHeard{Text: b.op.client.RedactText(text), Seconds: secs, Segments: doc.Segments}, nil
}

// reportedSeconds parses a file record's duration_seconds, when it is a
// duration a file can have.
func reportedSeconds(p *string) (float64, bool) {
	if p == nil {
		return 0, false
	}
	s, err := strconv.ParseFloat(*p, 64)
	if err != nil || math.IsNaN(s) || s <= 0 || s > maxCheckSeconds {
		return 0, false
	}
	return s, true
}

// cappedBuffer holds a download of at most max bytes; past that, it
// refuses the rest (over) and any attempt to start again.
type cappedBuffer struct {
	b    []byte
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if len(c.b)+len(p) > c.max {
		c.over = true
		return 0, fmt.Errorf("larger than %d bytes", c.max)
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

// Seek and Truncate let the client empty the buffer for another attempt
// (speechapi.Truncater); never once it overflowed: a retry would only
// download it again.
func (c *cappedBuffer) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekStart {
		return 0, errors.New("cappedBuffer: only a seek to the start")
	}
	return 0, nil
}

func (c *cappedBuffer) Truncate(size int64) error {
	if c.over || size != 0 {
		return fmt.Errorf("larger than %d bytes", c.max)
	}
	c.b = c.b[:0]
	return nil
}
