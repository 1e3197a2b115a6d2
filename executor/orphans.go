package executor

import (
	"context"
	"fmt"
	"sync"
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

// orphans is the orphan sweep of one apply: before each batch job create
// it journals an intent (intend), then notes when the create returned
// (createEnded) and which jobs were recorded (jobRecorded); sweep cancels
// the orphans the open intents account for. It is given the client (nil:
// no sweep), the recorder that journals the intents, and the clock.
type orphans struct {
	client   *speechapi.Client
	recorder *state.Recorder
	now      func() time.Time

	mu sync.Mutex
	// intentEnds holds when the create call of each of this run's job
	// intents returned; recordedJobs the job ids this run recorded.
	intentEnds   map[string]time.Time
	recordedJobs map[string]bool
	// broken is set once the jobs listing failed: the intents stay for a
	// later apply and this one does not ask again. Only the sweeps, which
	// never run at once, touch it.
	broken bool
}

func newOrphans(client *speechapi.Client, recorder *state.Recorder, now func() time.Time) *orphans {
	return &orphans{client: client, recorder: recorder, now: now, intentEnds: map[string]time.Time{}, recordedJobs: map[string]bool{}}
}

// intend journals the intent of a batch job create of files files.
func (o *orphans) intend(w *contract.TranscriptionRequest, block string, files int) (state.JobIntent, error) {
	cfg := speechapi.JobConfigOf(w)
	in, err := o.recorder.RecordJobIntent(state.JobIntent{
		Created: o.now().UTC(),
		API:     w.API,
		Config: state.JobIntentConfig{
			Model: cfg.Model, LanguageCode: cfg.LanguageCode, WithDiarization: cfg.WithDiarization,
			NumSpeakers: cfg.NumSpeakers, IsMultiChannel: cfg.IsMultiChannel, WithDenoise: cfg.WithDenoise,
		},
		Files:   files,
		Block:   block,
		Service: o.client.BaseURL(),
	})
	if err != nil {
		return in, fmt.Errorf("record batch job intent: %w", err)
	}
	return in, nil
}

// createEnded notes when the create call of this run's intent id returned
// (or failed): its orphans, if any, were created before then.
func (o *orphans) createEnded(id string) {
	o.mu.Lock()
	o.intentEnds[id] = o.now()
	o.mu.Unlock()
}

// jobRecorded notes a job id this run recorded.
func (o *orphans) jobRecorded(id string) {
	o.mu.Lock()
	o.recordedJobs[id] = true
	o.mu.Unlock()
}

// sweep cancels the unrecorded CREATED jobs the open intents account for,
// then clears the intents. It returns how many it cancelled, and the
// problems that do not fail the apply: when the listing fails the intents
// stay for a later apply (one warning per apply); the apply goes on.
func (o *orphans) sweep(ctx context.Context) (cancelled int, warnings []error) {
	intents := o.recorder.JobIntents()
	if len(intents) == 0 || o.client == nil || o.broken || ctx.Err() != nil {
		return 0, nil
	}
	now := o.now()
	var live []state.JobIntent
	var expired []string
	for _, in := range intents {
		switch {
		case now.Sub(in.Created) > intentHorizon:
			expired = append(expired, in.ID)
		case in.Service == "" || in.Service == o.client.BaseURL():
			live = append(live, in)
		case contract.IsLoopbackURL(in.Service):
			// An emulator of a process that died, gone with it: its
			// jobs are too.
			expired = append(expired, in.ID)
		}
		// Intents of another service wait for an apply against it.
	}
	if len(live) == 0 && len(expired) == 0 {
		return 0, nil
	}
	cancelled, err := o.cancelOrphans(ctx, live)
	if err != nil {
		o.broken = true
		warnings = append(warnings, fmt.Errorf("look for orphan batch jobs: %w (%d job intent(s) kept for a later apply)", err, len(live)))
	} else {
		for _, in := range live {
			expired = append(expired, in.ID)
		}
	}
	if err := o.recorder.ClearJobIntents(expired...); err != nil {
		warnings = append(warnings, fmt.Errorf("clear batch job intents: %w", err))
	}
	return cancelled, warnings
}

// cancelOrphans lists CREATED jobs newest first, down to the oldest
// intent's window, and cancels every one that is an orphan of intents. A
// cancel refused because the job is no longer in CREATED (started by its
// owner after all) is not an error: that job is not touched.
func (o *orphans) cancelOrphans(ctx context.Context, intents []state.JobIntent) (int, error) {
	if len(intents) == 0 {
		return 0, nil
	}
	recorded := o.recordedJobIDs()
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
		page, err := o.client.ListJobs(ctx, speechapi.JobsQuery{Status: speechapi.JobCreated, Limit: listPage, Cursor: cursor})
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
			if ok && !recorded[j.JobID] && o.isOrphan(j, created, intents) {
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
		res, err := o.client.CancelJob(ctx, id, orphanReason)
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
func (o *orphans) isOrphan(j speechapi.Job, created time.Time, intents []state.JobIntent) bool {
	if j.Status != speechapi.JobCreated {
		return false
	}
	for _, in := range intents {
		lo, hi := o.intentWindow(in)
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
func (o *orphans) intentWindow(in state.JobIntent) (time.Time, time.Time) {
	o.mu.Lock()
	end, ok := o.intentEnds[in.ID]
	o.mu.Unlock()
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
func (o *orphans) recordedJobIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range o.recorder.Snapshot().Resources {
		if r.Details().JobID != "" {
			ids[r.Details().JobID] = true
		}
	}
	o.mu.Lock()
	for id := range o.recordedJobs {
		ids[id] = true
	}
	o.mu.Unlock()
	return ids
}
