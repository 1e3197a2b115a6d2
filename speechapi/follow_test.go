package speechapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/voxform/voxform/internal/clock"
)

// The executor follows batch jobs itself (executor/batch.go), so the
// client has no method that waits for one; the tests follow jobs with
// these, polling a loopback emulator as often as they ask.

// PollOptions tune status polling.
type PollOptions struct {
	// Interval between polls.
	Interval time.Duration
	// OnStatus, if set, sees every status polled.
	OnStatus func(status string)
}

// WaitJob polls a job until it is terminal and returns its last status.
func (c *Client) WaitJob(ctx context.Context, jobID string, opts PollOptions) (*Job, error) {
	for {
		j, err := c.GetJob(ctx, jobID)
		if err != nil {
			return nil, err
		}
		if opts.OnStatus != nil {
			opts.OnStatus(j.Status)
		}
		if IsTerminal(j.Status) {
			return j, nil
		}
		if err := clock.Sleep(ctx, opts.Interval); err != nil {
			return nil, fmt.Errorf("wait for batch job %s: %w", jobID, err)
		}
	}
}

// WaitLegacy polls an older batch job until completed or failed.
func (c *Client) WaitLegacy(ctx context.Context, jobID string, opts PollOptions) (*LegacyJob, error) {
	for {
		j, err := c.LegacyStatus(ctx, jobID, "")
		if err != nil {
			return nil, err
		}
		if opts.OnStatus != nil {
			opts.OnStatus(j.Status)
		}
		if j.Done() {
			return j, nil
		}
		if err := clock.Sleep(ctx, opts.Interval); err != nil {
			return nil, fmt.Errorf("wait for older batch job %s: %w", jobID, err)
		}
	}
}

// RunOptions tune RunJob.
type RunOptions struct {
	CallbackURL string
	Poll        PollOptions
	// OnCreated is called with each job id the moment its create returns,
	// before it is started.
	OnCreated func(jobID string, files []Source)
}

// FileOutcome is one file's final record in a job.
type FileOutcome struct {
	JobID  string
	Record FileRecord
	Err    error // a *FileError unless COMPLETED
}

// RunResult is what RunJob did.
type RunResult struct {
	Jobs  []*Job
	Files []FileOutcome
}

// RunJob uploads files as one or more batch jobs (split at 100 files),
// creating, starting and waiting for each, and lists every file. Every
// file- and job-level failure is joined in the error.
func (c *Client) RunJob(ctx context.Context, cfg JobConfig, files []Source, opts RunOptions) (*RunResult, error) {
	plan, err := PlanJobs(files)
	if err != nil {
		return nil, fmt.Errorf("run batch job: %w", err)
	}
	res := &RunResult{}
	var errs []error
	for _, group := range plan {
		created, err := c.CreateJobUpload(ctx, cfg, group, opts.CallbackURL)
		if err != nil {
			return res, err
		}
		if opts.OnCreated != nil {
			opts.OnCreated(created.JobID, group)
		}
		if _, err := c.StartJob(ctx, created.JobID); err != nil {
			return res, err
		}
		job, err := c.WaitJob(ctx, created.JobID, opts.Poll)
		if err != nil {
			return res, err
		}
		res.Jobs = append(res.Jobs, job)
		if err := job.Err(); err != nil {
			errs = append(errs, err)
		}
		recs, err := c.AllJobFiles(ctx, job.JobID, "")
		if err != nil {
			return res, err
		}
		for _, r := range recs {
			fe := r.Err(job.JobID)
			res.Files = append(res.Files, FileOutcome{JobID: job.JobID, Record: r, Err: fe})
			if fe != nil {
				errs = append(errs, fe)
			}
		}
	}
	return res, errors.Join(errs...)
}
