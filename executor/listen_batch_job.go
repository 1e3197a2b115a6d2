package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// errJobWaitBound ends the wait for a check job after listenJobWait.
var errJobWaitBound = errors.New("listen: check job wait bound")

// failTickets resolves every ticket with err.
func (b *jobBatcher) failTickets(tickets []*checkTicket, err error) {
	for _, t := range tickets {
		b.resolve(t, checkHeard{}, err)
	}
}

// runJob creates a job of j's checks once a slot is free, records it,
// then starts and follows it. A stopped apply creates no job.
func (b *jobBatcher) runJob(j *checkJob) {
	defer j.cancel()
	select {
	case b.slots <- struct{}{}:
		defer func() { <-b.slots }()
	case <-j.ctx.Done():
		b.failTickets(j.tickets, fmt.Errorf("listen: batch check: %w", j.ctx.Err()))
		return
	}
	if b.op.stops.stopped(j.ctx) {
		b.failTickets(j.tickets, fmt.Errorf("listen: interrupted before its batch job was created: %w", ErrInterrupted))
		return
	}
	id, err := b.createJob(j)
	if err != nil {
		b.failTickets(j.tickets, err)
		return
	}
	j.id = id
	b.follow(j, &speechapi.Job{JobID: id, Status: speechapi.JobCreated})
}

// createJob uploads j's renditions as a new job and records it in the
// journal: the orphan intent comes first (a create whose answer is lost
// leaves a job the sweep cancels), the record before any start. A
// rendition that cannot be read fails its own check only.
func (b *jobBatcher) createJob(j *checkJob) (string, error) {
	var srcs []speechapi.Source
	var files []journalFile
	kept := j.tickets[:0:0]
	for _, t := range j.tickets {
		src, err := speechapi.FileSource(t.file.Path)
		if err != nil {
			b.resolve(t, checkHeard{}, fmt.Errorf("listen: batch check %s: %w", t.name, err))
			continue
		}
		src.Name = t.name
		srcs, kept = append(srcs, src), append(kept, t)
		files = append(files, journalFile{Fingerprint: t.file.Fingerprint, Name: t.name})
	}
	j.tickets, j.files = kept, len(kept)
	if len(kept) == 0 {
		return "", errors.New("listen: no rendition to send")
	}
	w := &contract.TranscriptionRequest{API: j.group.api, LanguageCode: j.group.language, Model: j.group.model}
	in, err := b.op.orphans.intend(w, "listen", len(srcs))
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	res, err := b.op.client.CreateJobUpload(traced(j.ctx, b.op.report.emit, "listening checks"), speechapi.JobConfigOf(w), srcs, "")
	b.op.orphans.createEnded(in.ID)
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	rec := journalJob{JobID: res.JobID, API: j.group.api, Service: b.op.client.BaseURL(), Created: b.op.now().UTC(),
		LanguageCode: j.group.language, Model: j.group.model, Files: files}
	if err := b.journal.add(rec); err != nil {
		// Never started without a record: the sweep at the end cancels it.
		return "", fmt.Errorf("listen: record batch job %s: %w", res.JobID, err)
	}
	b.op.orphans.jobRecorded(res.JobID)
	return res.JobID, nil
}

// follow starts the recorded job j if it was never started, waits for it
// (at most b.wait) and collects its checks. known is its status when this
// run just created it; nil asks the service. A job still running when the
// wait ends (a stop, a cancel, the bound) stays recorded.
func (b *jobBatcher) follow(j *checkJob, known *speechapi.Job) {
	ctx, cancel := context.WithTimeoutCause(traced(j.ctx, b.op.report.emit, "batch job "+j.id), b.wait, errJobWaitBound)
	defer cancel()
	job, err := b.started(ctx, j, known)
	if err == nil {
		job, err = b.waitCheckJob(ctx, j, job)
	}
	if err != nil {
		b.failTickets(b.take(j), b.waitError(ctx, j, err))
		return
	}
	b.collect(j, job)
}

// started returns the job's status, starting it when it is in CREATED
// (unless the apply is stopping: it stays recorded, not started).
func (b *jobBatcher) started(ctx context.Context, j *checkJob, job *speechapi.Job) (*speechapi.Job, error) {
	interval := b.op.pollInterval(contract.JobPollIntervalOf(j.files))
	if job == nil {
		var err error
		if job, err = b.getJob(ctx, j.id, interval); err != nil {
			return nil, err
		}
		b.op.progress(j.id, job)
	}
	if job.Status != speechapi.JobCreated {
		return job, nil
	}
	if b.op.stops.stopped(ctx) {
		return nil, fmt.Errorf("listen: interrupted: batch job %s was created and recorded, not started; the next apply starts it: %w", j.id, ErrInterrupted)
	}
	if _, err := b.op.client.StartJob(ctx, j.id); err != nil && !speechapi.IsCode(err, speechapi.CodeJobAlreadyStarted) {
		return nil, err
	}
	b.mu.Lock()
	b.polled[j.id] = time.Now() // the first poll comes an interval after the start
	b.mu.Unlock()
	return job, nil
}

// waitCheckJob polls j until it is terminal, an interval after each
// status request of it (the documented minimum, or the emulator's).
func (b *jobBatcher) waitCheckJob(ctx context.Context, j *checkJob, job *speechapi.Job) (*speechapi.Job, error) {
	interval := b.op.pollInterval(contract.JobPollIntervalOf(j.files))
	for !speechapi.IsTerminal(job.Status) {
		var err error
		if job, err = b.getJob(ctx, j.id, interval); err != nil {
			return nil, err
		}
		b.op.progress(j.id, job)
	}
	return job, nil
}

// getJob asks for a job's status no sooner than interval after the
// previous request of it this apply made.
func (b *jobBatcher) getJob(ctx context.Context, id string, interval time.Duration) (*speechapi.Job, error) {
	b.mu.Lock()
	last, ok := b.polled[id]
	b.mu.Unlock()
	if ok {
		if err := b.op.stops.pause(ctx, time.Until(last.Add(interval))); err != nil {
			return nil, err
		}
	}
	job, err := b.op.client.GetJob(ctx, id)
	b.mu.Lock()
	b.polled[id] = time.Now()
	b.mu.Unlock()
	return job, err
}

// waitError is what the checks of a job not waited to its end get; a job
// that no longer exists is forgotten.
func (b *jobBatcher) waitError(ctx context.Context, j *checkJob, err error) error {
	switch {
	case speechapi.IsCode(err, speechapi.CodeJobNotFound):
		_ = b.journal.forget(j.id, nil, true)
		return fmt.Errorf("listen: batch job %s no longer exists: the next apply creates a new one", j.id)
	case errors.Is(context.Cause(ctx), errJobWaitBound):
		return fmt.Errorf("listen: batch job %s did not finish within %v, the longest voxform waits for a check job; it stays recorded and the next apply collects it", j.id, b.wait)
	case errors.Is(err, ErrInterrupted) || j.ctx.Err() != nil:
		return fmt.Errorf("listen: batch job %s stays recorded and is collected by the next apply: %w", j.id, err)
	}
	return fmt.Errorf("listen: %w", err)
}
