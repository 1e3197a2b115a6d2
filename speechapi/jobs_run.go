package speechapi

import (
	"context"
	"errors"
	"fmt"
)

// RunOptions tune RunJob.
type RunOptions struct {
	CallbackURL string
	Poll        PollOptions
	// OnCreated is called with each job id the moment its create returns,
	// before it is started (record it there).
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
// creating, starting and waiting for each, and lists every file. It
// returns the result with every file- and job-level failure joined in the
// error (*FileError and *JobError values). Executors that must record job
// ids use CreateJobUpload, StartJob, WaitJob and AllJobFiles directly.
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
