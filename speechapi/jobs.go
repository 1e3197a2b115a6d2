package speechapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/voxform/voxform/contract"
)

// Batch job statuses (speech-recognition.md, "Batch jobs, job statuses").
const (
	JobCreated        = "CREATED"
	JobStarting       = "STARTING"
	JobQueued         = "QUEUED"
	JobInProgress     = "IN_PROGRESS"
	JobCompleted      = "COMPLETED"
	JobPartialFailure = "PARTIAL_FAILURE"
	JobFailed         = "FAILED"
	JobStartFailed    = "START_FAILED"
	JobCancelling     = "CANCELLING"
	JobCancelled      = "CANCELLED"
)

// jobStatuses are the documented batch job statuses, in order.
var jobStatuses = []string{JobCreated, JobStarting, JobQueued, JobInProgress, JobCompleted,
	JobPartialFailure, JobFailed, JobStartFailed, JobCancelling, JobCancelled}

// checkStatus refuses a status outside the documented set: a job whose
// status voxform cannot read would be polled forever, never terminal.
func (r redactor) checkStatus(status string, documented []string) error {
	if slices.Contains(documented, status) {
		return nil
	}
	return fmt.Errorf("the service answered status %q, not one of the documented %s", r.quote(status), strings.Join(documented, ", "))
}

// File statuses of a batch job.
const (
	FileCompleted = "COMPLETED"
	FileFailed    = "FAILED"
	FileSkipped   = "SKIPPED"
	FileCancelled = "CANCELLED"
)

// IsTerminal reports whether a batch job status is final.
func IsTerminal(status string) bool {
	switch status {
	case JobCompleted, JobPartialFailure, JobFailed, JobStartFailed, JobCancelled:
		return true
	}
	return false
}

// Batch job polling minimums (speech-recognition.md, "Limits").
const (
	JobPollInterval     = contract.JobPollInterval
	JobPollIntervalMany = contract.JobPollIntervalMany // for jobs of 100 files or more
)

// JobConfig is a batch job's config object.
type JobConfig struct {
	Model string `json:"model"` // "stt-v2.5"
	// LanguageCode is one code, or up to 3 comma-separated codes for
	// per-file language identification.
	LanguageCode    string `json:"language_code"`
	Mode            string `json:"mode,omitempty"` // "transcribe"
	WithDiarization bool   `json:"with_diarization"`
	NumSpeakers     *int   `json:"num_speakers,omitempty"` // at most 2; required with diarization
	IsMultiChannel  bool   `json:"is_multi_channel"`
	WithDenoise     *bool  `json:"with_denoise,omitempty"`
}

// Check validates the documented config rules before a call is made.
func (c JobConfig) Check() error {
	switch {
	case c.Model == "":
		return errors.New("config.model is required")
	case c.LanguageCode == "":
		return errors.New("config.language_code is required")
	case len(strings.Split(c.LanguageCode, ",")) > 3:
		return fmt.Errorf("config.language_code %q: at most 3 codes", c.LanguageCode)
	case c.WithDiarization && c.NumSpeakers == nil:
		return errors.New("config.num_speakers is required with diarization")
	case c.NumSpeakers != nil && (*c.NumSpeakers < 1 || *c.NumSpeakers > 2):
		return fmt.Errorf("config.num_speakers %d: at most 2", *c.NumSpeakers)
	}
	return nil
}

// CreateJobResult is the 201 answer of a job create.
type CreateJobResult struct {
	JobID     string `json:"job_id"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
	Message   string `json:"message"`
	// TotalFilesAccepted is null for URL jobs.
	TotalFilesAccepted *int `json:"total_files_accepted"`
}

// JobProgress is a job status's file counters.
type JobProgress struct {
	TotalFiles      int `json:"total_files"`
	CompletedFiles  int `json:"completed_files"`
	FailedFiles     int `json:"failed_files"`
	InProgressFiles int `json:"in_progress_files"`
	QueuedFiles     int `json:"queued_files"`
	CancelledFiles  int `json:"cancelled_files"`
}

// Job is the batch job status object.
type Job struct {
	JobID        string      `json:"job_id"`
	Status       string      `json:"status"`
	Config       JobConfig   `json:"config"`
	Progress     JobProgress `json:"progress"`
	CancelReason *string     `json:"cancel_reason"`
	CreatedAt    *string     `json:"created_at"`
	StartedAt    *string     `json:"started_at"`
	CompletedAt  *string     `json:"completed_at"`
	CancelledAt  *string     `json:"cancelled_at"`
	UpdatedAt    *string     `json:"updated_at"`
}

// Err returns a *JobError for START_FAILED, FAILED and CANCELLED jobs (a
// PARTIAL_FAILURE job's failures are per file).
func (j *Job) Err() error {
	switch j.Status {
	case JobStartFailed, JobFailed, JobCancelled:
		reason := ""
		if j.CancelReason != nil {
			reason = *j.CancelReason
		}
		return &JobError{JobID: j.JobID, Status: j.Status, Reason: reason}
	}
	return nil
}

// CreateJobUpload creates a batch job from uploaded audio files or ZIP
// archives (multipart). It does not start the job: record the returned id,
// then call StartJob. At most 100 files (see PlanJobs). A create is sent
// again after a failure that may have reached the service (a 5xx, a reset
// connection, an answer cut mid-body): a job made by the first stays in
// CREATED, never started nor billed; journal an intent before the call to
// find and cancel it (see createJob).
//
// Every failure is a *FileError naming the files (a service answer stays
// reachable as an *Error with errors.As).
func (c *Client) CreateJobUpload(ctx context.Context, cfg JobConfig, files []Source, callbackURL string) (*CreateJobResult, error) {
	res, err := c.createJobUpload(ctx, cfg, files, callbackURL)
	return res, filesError("create batch job with", sourceNames(files), err)
}

func (c *Client) createJobUpload(ctx context.Context, cfg JobConfig, files []Source, callbackURL string) (*CreateJobResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("create batch job: no files")
	}
	if plan, err := PlanJobs(files); err != nil {
		return nil, err
	} else if len(plan) != 1 {
		return nil, fmt.Errorf("%d files exceed one job's limit of %d: use PlanJobs", len(files), MaxJobFiles)
	}
	conf, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	parts := []part{{name: "config", value: string(conf), contentType: "application/json"}}
	for i := range files {
		parts = append(parts, part{name: "files", file: &files[i]})
	}
	if callbackURL != "" {
		parts = append(parts, part{name: "callback_url", value: callbackURL})
	}
	body, ctype := formBody(parts)
	return c.createJob(ctx, body, ctype)
}

// CreateJobURLs creates a batch job from public https URLs (a path ending
// in "/" is a prefix). Paths are checked by the service at start. It is
// sent again as CreateJobUpload is. Every failure is a *FileError naming
// the paths.
func (c *Client) CreateJobURLs(ctx context.Context, cfg JobConfig, paths []string, callbackURL string) (*CreateJobResult, error) {
	res, err := c.createJobURLs(ctx, cfg, paths, callbackURL)
	return res, filesError("create batch job with", paths, err)
}

func (c *Client) createJobURLs(ctx context.Context, cfg JobConfig, paths []string, callbackURL string) (*CreateJobResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, errors.New("create batch job: no paths")
	}
	type auth struct {
		Mode string `json:"mode"`
	}
	type source struct {
		Type  string   `json:"type"`
		Auth  auth     `json:"auth"`
		Paths []string `json:"paths"`
	}
	req := struct {
		Config      JobConfig `json:"config"`
		Source      source    `json:"source"`
		CallbackURL string    `json:"callback_url,omitempty"`
	}{cfg, source{"cloud_storage", auth{"public"}, paths}, callbackURL}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return c.createJob(ctx, body, "application/json")
}

// createJob posts a create. Like every call it is sent again on 429, 5xx,
// connection errors and an answer cut mid-body; a create that did reach
// the service before one of those leaves a job in CREATED that costs
// nothing, is never started, and shows in ListJobs: a caller that
// journals an intent before the call finds it there and cancels it (SPEC
// section 4; the executor does).
func (c *Client) createJob(ctx context.Context, body any, ctype string) (*CreateJobResult, error) {
	var out CreateJobResult
	if err := c.call(ctx, http.MethodPost, c.url(EndpointJobs, ""), body, ctype, nil, &out); err != nil {
		return nil, err
	}
	if out.JobID == "" {
		return nil, errors.New("the answer has no job_id")
	}
	return &out, nil
}

// StartJobResult is the answer of a start.
type StartJobResult struct {
	JobID   string `json:"job_id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	// AlreadyStarted is set when the service answered 409
	// JOB_ALREADY_STARTED: the job runs (or ran) already, which is success.
	AlreadyStarted bool `json:"-"`
}

// StartJob starts a created job. The service answers 202 with job_id,
// status STARTING and a message ("Start batch job"); any other success
// answer is an error saying how it departs from that. A 409
// JOB_ALREADY_STARTED is not an error: the job is started (so a start
// whose answer was lost or cut may be sent again).
func (c *Client) StartJob(ctx context.Context, jobID string) (*StartJobResult, error) {
	var out *StartJobResult
	err := c.retry(ctx, c.url(EndpointJobStart, jobID), func(int) (err error) {
		out, err = c.startJob(ctx, jobID)
		return err
	})
	if IsCode(err, CodeJobAlreadyStarted) {
		return &StartJobResult{JobID: jobID, AlreadyStarted: true, Message: errMessage(err)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("start batch job %s: %w", jobID, err)
	}
	return out, nil
}

// startJob posts the start once and checks its answer against the
// documented 202.
func (c *Client) startJob(ctx context.Context, jobID string) (*StartJobResult, error) {
	req, err := c.newRequest(ctx, http.MethodPost, c.url(EndpointJobStart, jobID), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer drain(resp.Body)
	if resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("the service answered %d, not the documented 202 Accepted", resp.StatusCode)
	}
	var body struct {
		JobID   *string `json:"job_id"`
		Status  *string `json:"status"`
		Message *string `json:"message"`
	}
	if err := json.NewDecoder(capAnswer(resp.Body, nil, "answer of "+req.URL.Path, req.URL.Host)).Decode(&body); err != nil {
		return nil, answerError(req.URL.Path, "invalid JSON: ", err)
	}
	switch {
	case body.JobID == nil:
		return nil, errors.New(`the 202 answer has no "job_id"`)
	case *body.JobID != jobID:
		return nil, fmt.Errorf("the 202 answer names job \"%s\", not %s", c.red.quote(*body.JobID), jobID)
	case body.Status == nil:
		return nil, fmt.Errorf(`the 202 answer has no "status", the documented %s`, JobStarting)
	case *body.Status != JobStarting:
		return nil, fmt.Errorf("the 202 answer's status is \"%s\", not the documented %s", c.red.quote(*body.Status), JobStarting)
	case body.Message == nil:
		return nil, errors.New(`the 202 answer has no "message"`)
	}
	return &StartJobResult{JobID: jobID, Status: JobStarting, Message: *body.Message}, nil
}

// GetJob reads a job's status.
func (c *Client) GetJob(ctx context.Context, jobID string) (*Job, error) {
	var out Job
	if err := c.call(ctx, http.MethodGet, c.url(EndpointJob, jobID), nil, "", nil, &out); err != nil {
		return nil, fmt.Errorf("batch job %s status: %w", jobID, err)
	}
	if err := c.red.checkStatus(out.Status, jobStatuses); err != nil {
		return nil, fmt.Errorf("batch job %s status: %w", jobID, err)
	}
	c.red.job(&out) // its cancel reason becomes a JobError's
	return &out, nil
}

// CancelJobResult is the answer of a cancel.
type CancelJobResult struct {
	JobID       string  `json:"job_id"`
	Status      string  `json:"status"` // CANCELLED, or CANCELLING for a running job
	Message     string  `json:"message"`
	CancelledAt *string `json:"cancelled_at"`
	// AlreadyCancelled is set when the service answered 409 JOB_CANCELLED.
	AlreadyCancelled bool `json:"-"`
}

// CancelJob cancels a job. 200 with CANCELLED or CANCELLING is accepted; a
// 409 JOB_CANCELLED means it was cancelled already (not an error); a job in
// another terminal state gives an *Error with Type JOB_NOT_CANCELLABLE.
func (c *Client) CancelJob(ctx context.Context, jobID, reason string) (*CancelJobResult, error) {
	body, _ := json.Marshal(map[string]string{"reason": reason})
	if reason == "" {
		body = []byte("{}")
	}
	var out CancelJobResult
	err := c.call(ctx, http.MethodPost, c.url(EndpointJobCancel, jobID), body, "application/json", nil, &out)
	if IsCode(err, CodeJobCancelled) {
		return &CancelJobResult{JobID: jobID, Status: JobCancelled, AlreadyCancelled: true, Message: errMessage(err)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cancel batch job %s: %w", jobID, err)
	}
	if out.Status != JobCancelled && out.Status != JobCancelling {
		return nil, fmt.Errorf("cancel batch job %s: unexpected status \"%s\"", jobID, c.red.quote(out.Status))
	}
	return &out, nil
}

// Pagination is a listing's page information.
type Pagination struct {
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
	TotalCount int     `json:"total_count"`
}

// JobsQuery selects a page of ListJobs.
type JobsQuery struct {
	Status string // a job status, or "" for all
	Limit  int    // 1-100 (0: the service default, 50)
	Cursor string // pagination.next_cursor of the previous page
}

// JobsPage is one page of the jobs listing, newest first.
type JobsPage struct {
	Data       []Job      `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// ListJobs reads GET /stt/v3/batch/jobs, so that a caller can find jobs it
// created but never recorded (SPEC sections 4 and 8a).
func (c *Client) ListJobs(ctx context.Context, q JobsQuery) (*JobsPage, error) {
	var out JobsPage
	u := c.url(EndpointJobs, "") + query(q.Status, q.Limit, q.Cursor)
	if err := c.call(ctx, http.MethodGet, u, nil, "", nil, &out); err != nil {
		return nil, fmt.Errorf("list batch jobs: %w", err)
	}
	for i := range out.Data {
		c.red.job(&out.Data[i])
	}
	return &out, nil
}

func query(status string, limit int, cursor string) string {
	v := url.Values{}
	if status != "" {
		v.Set("status", status)
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// IsCode reports whether err is a service *Error with the given type or code.
func IsCode(err error, code string) bool {
	var se *Error
	return errors.As(err, &se) && se.Type == code
}

func errMessage(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Message
	}
	return ""
}
