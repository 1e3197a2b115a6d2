package executor

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// member is one transcription of a batch job.
type member struct {
	action *planner.Action
	name   string // the uploaded file name or the source URL: original_path
	start  time.Time
}

// batchOp sends a block's batch transcriptions as batch jobs, or resumes
// one pending job, and follows each job to its results; it reports every
// member's start and outcome itself (report). It is given the client, the
// outputs, what stops it (a stopped apply creates no job and starts none;
// a job it is following stays pending), the clock, the polling interval
// override (Options.PollInterval) and whether a loopback service is polled
// as the real one (Options.DocumentedPolling), how many jobs of a block
// are in flight and how many transcripts are downloaded at once
// (parallelism), and the orphan sweep, which learns of every create.
type batchOp struct {
	client          *speechapi.Client
	files           *outputs
	report          reporter
	stops           stopper
	now             func() time.Time
	pollOverride    time.Duration
	documentedPolls bool
	parallelism     int
	orphans         *orphans
}

// unit is the work of a group: new batch jobs for a block's
// transcriptions, or the resumption of one pending job. It holds its slot
// throughout: the job's calls go on until its results are in.
func (b *batchOp) unit(g *group) func(context.Context, *slot) error {
	return func(ctx context.Context, _ *slot) error {
		actions := g.actions
		sort.Slice(actions, func(i, j int) bool { return actions[i].Address < actions[j].Address })
		var failed int
		if g.resume {
			failed = b.resume(ctx, actions)
		} else {
			failed = b.create(ctx, actions)
		}
		if failed > 0 {
			return &unitError{n: failed}
		}
		return nil
	}
}

// uploadName is the file name a local input is uploaded under: its path
// relative to the manifest directory with slashes made safe, so that two
// inputs with one base name in different folders stay apart in a job.
// Two inputs can still meet (a/b.wav and a__b.wav): uniqueNames tells them
// apart.
func uploadName(input string) string {
	return strings.ReplaceAll(strings.TrimPrefix(input, "./"), "/", "__")
}

// uniqueNames makes the names of members unique, in address order: a name
// met before gets "~2", "~3", ... before its extension. The name is
// recorded with the pending job, so a resumed job maps its file records
// back by the same names.
func uniqueNames(members []*member) {
	used := make(map[string]bool, len(members))
	for _, m := range members {
		if m.action.Desired.Details().Transcription.IsURL {
			used[m.name] = true // a URL is unique as it is
		}
	}
	for _, m := range members {
		if m.action.Desired.Details().Transcription.IsURL {
			continue
		}
		name := m.name
		ext := path.Ext(name)
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s~%d%s", strings.TrimSuffix(m.name, ext), n, ext)
		}
		used[name] = true
		m.name = name
	}
}

func memberName(t *manifest.Transcription) string {
	if t.IsURL {
		return t.Input
	}
	return uploadName(t.Input)
}

// create creates, records, starts and follows the batch jobs of a block.
// It returns how many resources failed.
func (b *batchOp) create(ctx context.Context, actions []*planner.Action) int {
	t0 := actions[0].Desired.Details().Transcription
	var members []*member
	for _, a := range actions {
		members = append(members, &member{action: a, name: memberName(a.Desired.Details().Transcription), start: b.now()})
		b.report.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type)})
	}
	uniqueNames(members)
	chunks, err := b.chunks(t0, members)
	if err != nil {
		return b.failMembers(members, err, false)
	}

	// Up to parallelism jobs are in flight at once (each is created,
	// uploaded, started, followed and collected on its own); a stop
	// request leaves the jobs not created yet. Older batch submissions go
	// one at a time: a submit starts work at once and cannot be found
	// again, so each one in flight at a kill may be billed twice.
	inFlight := max(1, b.parallelism)
	if t0.API == manifest.APIBatchLegacy {
		inFlight = 1
	}
	var failed atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, inFlight)
	for i, chunk := range chunks {
		sem <- struct{}{}
		if b.stops.stopped(ctx) {
			<-sem
			for _, c := range chunks[i:] {
				for _, m := range c {
					b.report.skip(m.action.Address, "interrupted before its batch job was created")
				}
			}
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			failed.Add(int64(b.runChunk(ctx, t0, chunk)))
		}()
	}
	wg.Wait()
	return int(failed.Load())
}

// chunks splits members into jobs: at most 100 files per batch job, and
// 10 files / 80 MB per older batch submit.
func (b *batchOp) chunks(t *manifest.Transcription, members []*member) ([][]*member, error) {
	limit := speechapi.MaxJobFiles
	if t.API == manifest.APIBatchLegacy {
		srcs, err := b.sources(members)
		if err != nil {
			return nil, err
		}
		plan, err := speechapi.PlanLegacy(srcs)
		if err != nil {
			return nil, err
		}
		return regroup(members, plan), nil
	}
	var out [][]*member
	for len(members) > 0 {
		n := min(limit, len(members))
		out = append(out, members[:n])
		members = members[n:]
	}
	return out, nil
}

// regroup maps planned source groups back to members, in order.
func regroup(members []*member, plan [][]speechapi.Source) [][]*member {
	var out [][]*member
	i := 0
	for _, g := range plan {
		out = append(out, members[i:i+len(g)])
		i += len(g)
	}
	return out
}

func (b *batchOp) sources(members []*member) ([]speechapi.Source, error) {
	out := make([]speechapi.Source, 0, len(members))
	for _, m := range members {
		src, err := b.files.recordingSource(m.action.Desired.Details().Transcription)
		if err != nil {
			return nil, err
		}
		src.Name = m.name
		out = append(out, src)
	}
	return out, nil
}

// runChunk creates one job, records its id before anything else happens,
// then starts and follows it.
func (b *batchOp) runChunk(ctx context.Context, t *manifest.Transcription, chunk []*member) int {
	api := t.API
	// The records are made before the job: what is recorded is checked
	// before anything is paid for.
	entries := make(map[string]*state.Resource, len(chunk))
	for _, m := range chunk {
		rec, err := pendingRecord(m.action)
		if err != nil {
			return b.failMembers(chunk, err, false)
		}
		if d := rec.Details(); d.Source != nil && d.Source.URL == "" {
			src := *d.Source
			src.Name = m.name
			rec.Edit().Source = &src
		}
		entries[m.action.Address] = rec
	}
	var jobID, requestID string
	if api == manifest.APIBatchLegacy {
		srcs, err := b.sources(chunk)
		if err != nil {
			return b.failMembers(chunk, err, false)
		}
		res, err := b.client.SubmitLegacy(ctx, srcs, speechapi.LegacyOptionsOf(chunk[0].action.Desired.Wire.Transcription))
		if err != nil {
			return b.failMembers(chunk, err, false)
		}
		jobID, requestID = res.JobID, res.RequestID
	} else {
		// The intent comes first: a create whose answer is lost (a kill,
		// or the client sending it again after a dropped or cut answer)
		// leaves a job in CREATED that the sweep then recognises and
		// cancels; its window ends when the call, retries included, did.
		in, err := b.orphans.intend(chunk[0].action.Desired.Wire.Transcription, chunk[0].action.Desired.Block, urlJobFiles(t, chunk))
		if err != nil {
			return b.failMembers(chunk, err, false)
		}
		res, err := b.createJob(traced(ctx, b.report.emit, "batch job of "+chunk[0].action.Desired.Block), t, chunk)
		b.orphans.createEnded(in.ID)
		if err != nil {
			return b.failMembers(chunk, err, false)
		}
		jobID = res.JobID
	}
	if requestID != "" {
		for _, rec := range entries {
			rec.Edit().RequestIDs = []string{requestID}
		}
	}
	if err := b.files.recorder.RecordPending(jobID, api, entries); err != nil {
		// Without a record the job must never start: it would be billed
		// and then forgotten. (The sweep at the end cancels it.)
		return b.failMembers(chunk, fmt.Errorf("record batch job %s: %w", jobID, err), false)
	}
	b.orphans.jobRecorded(jobID)
	return b.follow(ctx, api, jobID, chunk)
}

// urlJobFiles is the number of files a job of chunk holds, as the intent
// records it: 0 (unknown) when a URL is a prefix the service expands.
func urlJobFiles(t *manifest.Transcription, chunk []*member) int {
	if t.IsURL {
		for _, m := range chunk {
			if strings.HasSuffix(m.name, "/") {
				return 0
			}
		}
	}
	return len(chunk)
}

// createJob creates the batch job of chunk with the planned config: every
// member of a block shares it.
func (b *batchOp) createJob(ctx context.Context, t *manifest.Transcription, chunk []*member) (*speechapi.CreateJobResult, error) {
	w := chunk[0].action.Desired.Wire.Transcription
	cfg := speechapi.JobConfigOf(w)
	if t.IsURL {
		paths := make([]string, len(chunk))
		for i, m := range chunk {
			paths[i] = m.name
		}
		return b.client.CreateJobURLs(ctx, cfg, paths, w.CallbackURL)
	}
	srcs, err := b.sources(chunk)
	if err != nil {
		return nil, err
	}
	return b.client.CreateJobUpload(ctx, cfg, srcs, w.CallbackURL)
}

// pendingRecord is what state holds for a transcription while its job runs.
// The outputs of an earlier version stay recorded: they are still voxform's
// files, which the results will replace (or a delete remove).
func pendingRecord(a *planner.Action) (*state.Resource, error) {
	var outs []state.Output
	if a.Prior != nil {
		outs = a.Prior.Outputs
	}
	req, err := a.Desired.RequestJSON()
	if err != nil {
		return nil, err
	}
	rec := transcriptionRecord(a, outs, 0)
	rec.Kind = string(a.Desired.Kind)
	rec.Fingerprint = a.Desired.Fingerprint
	rec.SetRequestJSON(req)
	rec.Edit().BilledAudioSeconds = 0
	return rec, nil
}

// failMembers reports err for every member; with forget, their pending
// entries are removed so that the next plan creates them again.
func (b *batchOp) failMembers(members []*member, err error, forget bool) int {
	for _, m := range members {
		if forget {
			_ = b.files.recorder.Remove(m.action.Address)
		}
		b.report.fail(m.action.Address, string(m.action.Type), b.now().Sub(m.start), err)
	}
	return len(members)
}

// resume follows a job recorded as pending by an earlier apply.
func (b *batchOp) resume(ctx context.Context, actions []*planner.Action) int {
	p := actions[0].Prior
	var members []*member
	for _, a := range actions {
		name := ""
		switch src := a.Prior.Details().Source; {
		case src != nil && src.Name != "":
			name = src.Name // as uploaded
		case a.Desired != nil && a.Desired.Details().Transcription != nil:
			name = memberName(a.Desired.Details().Transcription)
		case src != nil:
			name = firstNonEmpty(src.URL, uploadName(src.Path))
		}
		members = append(members, &member{action: a, name: name, start: b.now()})
		b.report.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type), JobID: p.Details().JobID})
	}
	return b.follow(ctx, p.Details().JobAPI, p.Details().JobID, members)
}

// follow starts (if needed), polls and collects a recorded job.
func (b *batchOp) follow(ctx context.Context, api, jobID string, members []*member) int {
	ctx = traced(ctx, b.report.emit, "batch job "+jobID)
	if api == manifest.APIBatchLegacy {
		return b.followLegacy(ctx, jobID, members)
	}
	job, err := b.client.GetJob(ctx, jobID)
	if speechapi.IsCode(err, speechapi.CodeJobNotFound) {
		return b.failMembers(members, fmt.Errorf("batch job %s no longer exists: the next apply creates a new one", jobID), true)
	}
	if err != nil {
		return b.failMembers(members, err, false)
	}
	if job.Status == speechapi.JobCreated {
		if b.stops.stopped(ctx) {
			// A stop request came while the job was being created (or
			// before its resumption): starting it now would begin new
			// paid work. It is recorded; the next apply starts it.
			for _, m := range members {
				b.report.skip(m.action.Address, fmt.Sprintf("interrupted: batch job %s was created and recorded, not started; the next apply starts it", jobID))
			}
			return 0
		}
		_, err := b.client.StartJob(ctx, jobID)
		if err != nil && !speechapi.IsCode(err, speechapi.CodeJobAlreadyStarted) {
			return b.failMembers(members, err, false)
		}
	} else {
		b.progress(jobID, job) // a resumed job: where it stands
	}
	job, err = b.waitJob(ctx, jobID, job, len(members))
	if err != nil {
		if b.stops.stopped(ctx) {
			for _, m := range members {
				b.report.skip(m.action.Address, fmt.Sprintf("interrupted: batch job %s stays pending and resumes on the next apply", jobID))
			}
			return 0
		}
		return b.failMembers(members, err, false)
	}
	files, err := b.client.AllJobFiles(ctx, jobID, "")
	if err != nil {
		return b.failMembers(members, err, false)
	}
	return b.collect(ctx, job, files, members)
}

// waitJob polls a job of n files until it is terminal, reporting file
// counts. last is the status the job was last asked for, just now (before
// its start, or on resuming it): the first poll comes an interval after it,
// as every later one after the one before (speech-recognition.md,
// "Limits": at least 10 s between two polls of a job, 30 s for 100 files
// or more). A stop request ends the wait (the job stays pending).
func (b *batchOp) waitJob(ctx context.Context, jobID string, last *speechapi.Job, n int) (*speechapi.Job, error) {
	interval := b.pollInterval(contract.JobPollIntervalOf(n))
	job := last
	for !speechapi.IsTerminal(job.Status) {
		if err := b.stops.pause(ctx, interval); err != nil {
			return nil, err
		}
		var err error
		if job, err = b.client.GetJob(ctx, jobID); err != nil {
			return nil, err
		}
		b.progress(jobID, job)
	}
	return job, nil
}

// progress reports a job's status and file counts.
func (b *batchOp) progress(jobID string, job *speechapi.Job) {
	b.report.emit(Event{Kind: EventProgress, Address: "batch job " + jobID, JobID: jobID, JobStatus: job.Status,
		FilesDone: job.Progress.CompletedFiles + job.Progress.FailedFiles + job.Progress.CancelledFiles, FilesTotal: job.Progress.TotalFiles})
}

// pollInterval is the interval between status polls: the documented
// minimum against a real service (Options.PollInterval may lengthen it,
// never shorten it: SPEC section 6), short against a loopback emulator
// unless it is to be polled as the real service (Options.DocumentedPolling).
func (b *batchOp) pollInterval(documented time.Duration) time.Duration {
	if contract.IsLoopbackURL(b.client.BaseURL()) && !b.documentedPolls {
		if b.pollOverride > 0 {
			return b.pollOverride
		}
		return 50 * time.Millisecond
	}
	return max(documented, b.pollOverride)
}
