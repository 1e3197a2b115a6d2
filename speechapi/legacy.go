package speechapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/voxform/voxform/contract"
)

// Older batch limits (speech-recognition.md, "Limits"). A megabyte is
// 1,000,000 bytes.
const (
	LegacyMaxFiles      = contract.LegacyMaxFiles
	LegacyMaxBytes      = contract.LegacyMaxBytes
	LegacyPollInterval  = contract.LegacyPollInterval
	legacyPartOverhead  = contract.LegacyPartOverhead
	legacyFieldOverhead = contract.LegacyFieldOverhead
)

// LegacyOptions are the form fields and headers of an older batch submit.
type LegacyOptions struct {
	LanguageCode   string
	MultiChannel   bool
	Format         string // FormatVerbatim or FormatTranscribe (ITN)
	NativeNumerals bool
	// RequestID is sent as X-API-Request-ID when set.
	RequestID string
}

// LegacySubmitResult is the older batch submit response.
type LegacySubmitResult struct {
	JobID     string `json:"job_id"`
	Status    string `json:"status"` // always "submitted"
	FileCount int    `json:"file_count"`
	Message   string `json:"message"`
	// RequestID is the X-API-Request-ID the service answered with, if any.
	RequestID string `json:"-"`
}

// LegacyJob is the older batch status object. Statuses are lower case.
type LegacyJob struct {
	JobID           string         `json:"job_id"`
	Status          string         `json:"status"` // submitted, processing, completed, failed
	TotalFiles      int            `json:"total_files"`
	CompletedFiles  int            `json:"completed_files"`
	FailedFiles     int            `json:"failed_files"`
	OverallProgress int            `json:"overall_progress"`
	Results         []LegacyResult `json:"results"`
	Error           *string        `json:"error"`
	// Raw is the status body exactly as the service sent it.
	Raw json.RawMessage `json:"-"`
}

// legacyStatuses are the documented statuses of the older batch job.
var legacyStatuses = []string{"submitted", "processing", "completed", "failed"}

// Done reports whether the job reached completed or failed.
func (j *LegacyJob) Done() bool { return j.Status == "completed" || j.Status == "failed" }

// Err returns a *JobError (Legacy set) when the job failed as a whole,
// with the service's error message as the reason; nil otherwise. Each
// failed file's error is its result's Err.
func (j *LegacyJob) Err() error {
	if j.Status != "failed" {
		return nil
	}
	reason := "no error message"
	if j.Error != nil && *j.Error != "" {
		reason = *j.Error
	}
	return &JobError{JobID: j.JobID, Status: j.Status, Reason: reason, Legacy: true}
}

// LegacyResult is one file's result.
type LegacyResult struct {
	Filename       string          `json:"filename"`
	Status         string          `json:"status"` // completed or failed
	FullTranscript string          `json:"full_transcript"`
	TotalDuration  float64         `json:"total_duration"`
	Error          *string         `json:"error"`
	Segments       []LegacySegment `json:"segments"`
}

// Err returns a *FileError when the file failed.
func (r LegacyResult) Err(jobID string) error {
	if r.Status == "completed" {
		return nil
	}
	msg := "no error message"
	if r.Error != nil {
		msg = *r.Error
	}
	return &FileError{JobID: jobID, Path: r.Filename, Status: r.Status, Message: msg}
}

// LegacySegment is one time-aligned segment of an older batch result.
type LegacySegment struct {
	SegmentID        int     `json:"segment_id"`
	StartTime        float64 `json:"start_time"`
	EndTime          float64 `json:"end_time"`
	Text             string  `json:"text"`
	SpeakerID        int     `json:"speaker_id"`
	LanguageDetected string  `json:"language_detected"`
}

// PlanLegacy splits files into submit calls of at most 10 files and 80 MB
// each. Every size must be known; a single file over the limit is an error
// naming it.
func PlanLegacy(files []Source) ([][]Source, error) {
	var plan [][]Source
	var cur []Source
	var bytes int64
	for _, f := range files {
		if f.Size < 0 {
			return nil, fmt.Errorf("plan older batch: %s: size unknown", f.Name)
		}
		need := f.Size + legacyPartOverhead
		if need+legacyFieldOverhead > LegacyMaxBytes {
			return nil, &FileError{Path: f.Name, Message: fmt.Sprintf("%d bytes: larger than the 80 MB older batch payload limit", f.Size)}
		}
		if len(cur) == LegacyMaxFiles || bytes+need+legacyFieldOverhead > LegacyMaxBytes {
			plan = append(plan, cur)
			cur, bytes = nil, 0
		}
		cur = append(cur, f)
		bytes += need
	}
	if len(cur) > 0 {
		plan = append(plan, cur)
	}
	return plan, nil
}

// SubmitLegacy submits one call of files (see PlanLegacy) to POST
// /stt/v3/batch/submit. The job starts at once; record its id. A submit
// is sent again like any call, except after an answer cut mid-body.
//
// Every failure is a *FileError naming the files (a service answer stays
// reachable as an *Error with errors.As).
func (c *Client) SubmitLegacy(ctx context.Context, files []Source, opts LegacyOptions) (*LegacySubmitResult, error) {
	res, err := c.submitLegacy(ctx, files, opts)
	return res, filesError("submit older batch with", sourceNames(files), err)
}

func (c *Client) submitLegacy(ctx context.Context, files []Source, opts LegacyOptions) (*LegacySubmitResult, error) {
	if err := checkTextOptions(opts.LanguageCode, opts.Format); err != nil {
		return nil, err
	}
	if plan, err := PlanLegacy(files); err != nil {
		return nil, err
	} else if len(plan) != 1 {
		return nil, fmt.Errorf("%d files exceed one call's limits (10 files, 80 MB): use PlanLegacy", len(files))
	}
	parts := []part{{name: "language_code", value: opts.LanguageCode},
		{name: "is_multi_channel", value: strconv.FormatBool(opts.MultiChannel)},
		{name: "format", value: orDefault(opts.Format, FormatVerbatim)},
		{name: "itn_native_numerals", value: strconv.FormatBool(opts.NativeNumerals)}}
	for i := range files {
		parts = append(parts, part{name: "audio_files", file: &files[i]})
	}
	body, ctype := formBody(parts)
	var out LegacySubmitResult
	var h http.Header
	u := c.url(EndpointBatchSubmit, "")
	err := c.retry(ctx, u, func(int) error {
		var err error
		h, err = c.callOnce(ctx, http.MethodPost, u, body, ctype, traceHeader(opts.RequestID), &out, nil)
		var ie *IncompleteError
		if errors.As(err, &ie) {
			// The job started, and is billed, when the service answered:
			// submitting again would transcribe the files twice, and this
			// API has no listing to find the first job by.
			return final(err)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out.RequestID = h.Get("X-API-Request-ID")
	if out.JobID == "" {
		return nil, errors.New("the answer has no job_id")
	}
	return &out, nil
}

func traceHeader(id string) http.Header {
	if id == "" {
		return nil
	}
	return http.Header{"X-Api-Request-Id": {id}}
}

// LegacyStatus reads GET /stt/v3/batch/status/{job_id}. requestID may be
// empty.
func (c *Client) LegacyStatus(ctx context.Context, jobID, requestID string) (*LegacyJob, error) {
	var out LegacyJob
	raw := &rawJSON{v: &out}
	if err := c.call(ctx, http.MethodGet, c.url(EndpointBatchStatus, jobID), nil, "", traceHeader(requestID), raw); err != nil {
		return nil, fmt.Errorf("older batch status %s: %w", jobID, err)
	}
	if err := c.red.checkStatus(out.Status, legacyStatuses); err != nil {
		return nil, fmt.Errorf("older batch status %s: %w", jobID, err)
	}
	out.Raw = raw.data
	c.red.legacyJob(&out) // its messages become FileError's and JobError's
	return &out, nil
}
