package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// Orphan batch jobs (SPEC section 4). A batch job created but never
// recorded (death between the create call and its record, or a create the
// client sent again after the answer to a first attempt that did reach
// the service was lost or cut) is never started, so never billed. Before each create
// a JobIntent is journaled; a sweep at the start of an apply (intents of a
// process that died) and at its end (this run's intents) lists the jobs in
// CREATED and cancels those an intent accounts for.
const (
	// orphanSkew is the clock difference allowed either way between this
	// machine and the service's created_at.
	orphanSkew = 5 * time.Minute
	// deadIntentSpan bounds how long the create call of a process that
	// died may have taken (an upload of up to 100 files): its job's
	// created_at lies at most this long after the intent.
	deadIntentSpan = 2 * time.Hour
	// intentHorizon is how long an intent is kept while the jobs listing
	// fails: an orphan older than that is no longer looked for (a job in
	// CREATED costs nothing).
	intentHorizon = 7 * 24 * time.Hour
	// orphanReason is the cancel reason of a swept orphan.
	orphanReason = "orphan of an interrupted voxform apply"
	// listPage is the page size of the jobs listing.
	listPage = 100
)

// intentFor journals the intent of a batch job create of files files.
func (x *run) intentFor(w *contract.TranscriptionRequest, block string, files int) (state.JobIntent, error) {
	cfg := speechapi.JobConfigOf(w)
	in, err := x.opts.Recorder.RecordJobIntent(state.JobIntent{
		Created: x.opts.Now().UTC(),
		API:     w.API,
		Config: state.JobIntentConfig{
			Model: cfg.Model, LanguageCode: cfg.LanguageCode, WithDiarization: cfg.WithDiarization,
			NumSpeakers: cfg.NumSpeakers, IsMultiChannel: cfg.IsMultiChannel, WithDenoise: cfg.WithDenoise,
		},
		Files:   files,
		Block:   block,
		Service: x.opts.Client.BaseURL(),
	})
	if err != nil {
		return in, fmt.Errorf("record batch job intent: %w", err)
	}
	return in, nil
}

// createEnded notes when the create call of this run's intent id returned
// (or failed): its orphans, if any, were created before then.
func (x *run) createEnded(id string) {
	x.mu.Lock()
	x.intentEnds[id] = x.opts.Now()
	x.mu.Unlock()
}

// jobRecorded notes a job id this run recorded.
func (x *run) jobRecorded(id string) {
	x.mu.Lock()
	x.recordedJobs[id] = true
	x.mu.Unlock()
}

// sweepOrphans cancels the unrecorded CREATED jobs the open intents account
// for, then clears the intents. When the listing fails the intents stay for
// a later apply (one warning per apply); the apply goes on.
func (x *run) sweepOrphans(ctx context.Context) {
	intents := x.opts.Recorder.JobIntents()
	if len(intents) == 0 || x.opts.Client == nil || x.sweepBroken || ctx.Err() != nil {
		return
	}
	now := x.opts.Now()
	var live []state.JobIntent
	var expired []string
	for _, in := range intents {
		switch {
		case now.Sub(in.Created) > intentHorizon:
			expired = append(expired, in.ID)
		case in.Service == "" || in.Service == x.opts.Client.BaseURL():
			live = append(live, in)
		case contract.IsLoopbackURL(in.Service):
			// An emulator of a process that died, gone with it: its
			// jobs are too.
			expired = append(expired, in.ID)
		}
		// Intents of another service wait for an apply against it.
	}
	if len(live) == 0 && len(expired) == 0 {
		return
	}
	cancelled, err := x.cancelOrphans(ctx, live)
	if err != nil {
		x.sweepBroken = true
		x.warn(fmt.Errorf("look for orphan batch jobs: %w (%d job intent(s) kept for a later apply)", err, len(live)))
	} else {
		for _, in := range live {
			expired = append(expired, in.ID)
		}
	}
	if err := x.opts.Recorder.ClearJobIntents(expired...); err != nil {
		x.warn(fmt.Errorf("clear batch job intents: %w", err))
	}
	if cancelled > 0 {
		x.mu.Lock()
		x.summary.OrphansCancelled += cancelled
		x.mu.Unlock()
		x.emit(Event{Kind: EventOrphansCancelled, Count: cancelled})
	}
}

// cancelOrphans lists CREATED jobs newest first, down to the oldest
// intent's window, and cancels every one that is an orphan of intents. A
// cancel refused because the job is no longer in CREATED (started by its
// owner after all) is not an error: that job is not touched.
func (x *run) cancelOrphans(ctx context.Context, intents []state.JobIntent) (int, error) {
	if len(intents) == 0 {
		return 0, nil
	}
	recorded := x.recordedJobIDs()
	oldest := intents[0].Created
	for _, in := range intents {
		if in.Created.Before(oldest) {
			oldest = in.Created
		}
	}
	floor := oldest.Add(-orphanSkew)
	var orphans []string
	cursor := ""
	for {
		page, err := x.opts.Client.ListJobs(ctx, speechapi.JobsQuery{Status: speechapi.JobCreated, Limit: listPage, Cursor: cursor})
		if err != nil {
			return 0, err
		}
		older := false
		for _, j := range page.Data {
			created, ok := jobCreated(j)
			if ok && created.Before(floor) {
				older = true
				continue
			}
			if ok && !recorded[j.JobID] && x.isOrphan(j, created, intents) {
				orphans = append(orphans, j.JobID)
			}
		}
		if older || !page.Pagination.HasMore || page.Pagination.NextCursor == nil || *page.Pagination.NextCursor == "" {
			break
		}
		if *page.Pagination.NextCursor == cursor {
			return 0, fmt.Errorf("list batch jobs: the cursor did not advance")
		}
		cursor = *page.Pagination.NextCursor
	}
	n := 0
	for _, id := range orphans {
		res, err := x.opts.Client.CancelJob(ctx, id, orphanReason)
		switch {
		case err == nil && !res.AlreadyCancelled:
			n++
		case err != nil && !ignorableCancel(err):
			return n, err
		}
	}
	return n, nil
}

// isOrphan reports whether the CREATED job j matches one of intents: same
// config, created within the intent's window, and the same number of
// files when both sides know it.
func (x *run) isOrphan(j speechapi.Job, created time.Time, intents []state.JobIntent) bool {
	if j.Status != speechapi.JobCreated {
		return false
	}
	for _, in := range intents {
		lo, hi := x.intentWindow(in)
		if created.Before(lo) || created.After(hi) {
			continue
		}
		if !sameConfig(in.Config, j.Config) {
			continue
		}
		if in.Files > 0 && j.Progress.TotalFiles > 0 && in.Files != j.Progress.TotalFiles {
			continue
		}
		return true
	}
	return false
}

// intentWindow is when the service may have stamped a job created for in:
// from the intent to the end of its create call (at most deadIntentSpan
// for a process that died), widened by the clock skew either way.
func (x *run) intentWindow(in state.JobIntent) (time.Time, time.Time) {
	x.mu.Lock()
	end, ok := x.intentEnds[in.ID]
	x.mu.Unlock()
	if !ok {
		end = in.Created.Add(deadIntentSpan)
	}
	return in.Created.Add(-orphanSkew), end.Add(orphanSkew)
}

func sameConfig(in state.JobIntentConfig, c speechapi.JobConfig) bool {
	return in.Model == c.Model && in.LanguageCode == c.LanguageCode &&
		in.WithDiarization == c.WithDiarization && in.IsMultiChannel == c.IsMultiChannel &&
		sameInt(in.NumSpeakers, c.NumSpeakers) && sameBool(in.WithDenoise, c.WithDenoise)
}

func sameInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameBool(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// jobCreated parses a job's created_at.
func jobCreated(j speechapi.Job) (time.Time, bool) {
	if j.CreatedAt == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *j.CreatedAt)
	return t, err == nil
}

// recordedJobIDs lists every job id in the state and every one this run
// recorded: such a job is never an orphan.
func (x *run) recordedJobIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range x.opts.Recorder.Snapshot().Resources {
		if r.JobID != "" {
			ids[r.JobID] = true
		}
	}
	x.mu.Lock()
	for id := range x.recordedJobs {
		ids[id] = true
	}
	x.mu.Unlock()
	return ids
}

// warn reports a problem that does not fail the apply.
func (x *run) warn(err error) {
	x.mu.Lock()
	x.summary.Warnings = append(x.summary.Warnings, err.Error())
	x.mu.Unlock()
	x.emit(Event{Kind: EventWarning, Err: err})
}
