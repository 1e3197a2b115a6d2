package executor

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
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

// batchOperation runs a group unit: new batch jobs for a block's
// transcriptions, or the resumption of one pending job.
func (x *run) batchOperation(id string, actions []*planner.Action) func(context.Context, *slot) error {
	return func(ctx context.Context, _ *slot) error {
		sort.Slice(actions, func(i, j int) bool { return actions[i].Address < actions[j].Address })
		var failed int
		countFail := func(n int) { failed += n }
		if strings.HasPrefix(id, "job ") {
			countFail(x.resumeJob(ctx, actions))
		} else {
			countFail(x.newJobs(ctx, actions))
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
		if m.action.Desired.Transcription.IsURL {
			used[m.name] = true // a URL is unique as it is
		}
	}
	for _, m := range members {
		if m.action.Desired.Transcription.IsURL {
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

// newJobs creates, records, starts and follows the batch jobs of a block.
// It returns how many resources failed.
func (x *run) newJobs(ctx context.Context, actions []*planner.Action) int {
	t0 := actions[0].Desired.Transcription
	var members []*member
	for _, a := range actions {
		members = append(members, &member{action: a, name: memberName(a.Desired.Transcription), start: x.opts.Now()})
		x.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type)})
	}
	uniqueNames(members)
	chunks, err := x.jobChunks(t0, members)
	if err != nil {
		return x.failMembers(members, err, false)
	}

	failed := 0
	for i, chunk := range chunks {
		if x.stopped() {
			for _, c := range chunks[i:] {
				for _, m := range c {
					x.skip(m.action.Address, "interrupted before its batch job was created")
				}
			}
			break
		}
		failed += x.runChunk(ctx, t0, chunk)
	}
	return failed
}

// jobChunks splits members into jobs: at most 100 files per batch job, and
// 10 files / 80 MB per older batch submit.
func (x *run) jobChunks(t *manifest.Transcription, members []*member) ([][]*member, error) {
	limit := speechapi.MaxJobFiles
	if t.API == manifest.APIBatchLegacy {
		srcs, err := x.sources(members)
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

func (x *run) sources(members []*member) ([]speechapi.Source, error) {
	out := make([]speechapi.Source, 0, len(members))
	for _, m := range members {
		src, err := speechapi.FileSource(x.abs(m.action.Desired.Transcription.Input))
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
func (x *run) runChunk(ctx context.Context, t *manifest.Transcription, chunk []*member) int {
	api := t.API
	var jobID, requestID string
	if api == manifest.APIBatchLegacy {
		srcs, err := x.sources(chunk)
		if err != nil {
			return x.failMembers(chunk, err, false)
		}
		res, err := x.opts.Client.SubmitLegacy(ctx, srcs, speechapi.LegacyOptionsOf(chunk[0].action.Desired.Wire.Transcription))
		if err != nil {
			return x.failMembers(chunk, err, false)
		}
		jobID, requestID = res.JobID, res.RequestID
	} else {
		// The intent comes first: a create whose answer is lost (a kill,
		// or the client sending it again after a dropped or cut answer)
		// leaves a job in CREATED that the sweep then recognises and
		// cancels; its window ends when the call, retries included, did.
		in, err := x.intentFor(chunk[0].action.Desired.Wire.Transcription, chunk[0].action.Desired.Block, urlJobFiles(t, chunk))
		if err != nil {
			return x.failMembers(chunk, err, false)
		}
		res, err := x.createJob(x.traced(ctx, "batch job of "+chunk[0].action.Desired.Block), t, chunk)
		x.createEnded(in.ID)
		if err != nil {
			return x.failMembers(chunk, err, false)
		}
		jobID = res.JobID
	}
	entries := map[string]*state.Resource{}
	for _, m := range chunk {
		entries[m.action.Address] = x.pendingRecord(m.action)
		if src := entries[m.action.Address].Source; src != nil && src.URL == "" {
			src.Name = m.name
		}
		if requestID != "" {
			entries[m.action.Address].RequestIDs = []string{requestID}
		}
	}
	if err := x.opts.Recorder.RecordPending(jobID, api, entries); err != nil {
		// Without a record the job must never start: it would be billed
		// and then forgotten. (The sweep at the end cancels it.)
		return x.failMembers(chunk, fmt.Errorf("record batch job %s: %w", jobID, err), false)
	}
	x.jobRecorded(jobID)
	return x.follow(ctx, api, jobID, chunk, true)
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
func (x *run) createJob(ctx context.Context, t *manifest.Transcription, chunk []*member) (*speechapi.CreateJobResult, error) {
	w := chunk[0].action.Desired.Wire.Transcription
	cfg := speechapi.JobConfigOf(w)
	if t.IsURL {
		paths := make([]string, len(chunk))
		for i, m := range chunk {
			paths[i] = m.name
		}
		return x.opts.Client.CreateJobURLs(ctx, cfg, paths, w.CallbackURL)
	}
	srcs, err := x.sources(chunk)
	if err != nil {
		return nil, err
	}
	return x.opts.Client.CreateJobUpload(ctx, cfg, srcs, w.CallbackURL)
}

// pendingRecord is what state holds for a transcription while its job runs.
// The outputs of an earlier version stay recorded: they are still voxform's
// files, which the results will replace (or a delete remove).
func (x *run) pendingRecord(a *planner.Action) *state.Resource {
	var outs []state.Output
	if a.Prior != nil {
		outs = a.Prior.Outputs
	}
	rec := x.transcriptionRecord(a, outs, 0)
	rec.Kind = string(a.Desired.Kind)
	rec.Fingerprint = a.Desired.Fingerprint
	rec.Request = a.Desired.Request
	rec.BilledAudioSeconds = 0
	return rec
}

// failMembers reports err for every member; with forget, their pending
// entries are removed so that the next plan creates them again.
func (x *run) failMembers(members []*member, err error, forget bool) int {
	for _, m := range members {
		if forget {
			_ = x.opts.Recorder.Remove(m.action.Address)
		}
		x.fail(m.action.Address, string(m.action.Type), x.opts.Now().Sub(m.start), err)
	}
	return len(members)
}

// resumeJob follows a job recorded as pending by an earlier apply.
func (x *run) resumeJob(ctx context.Context, actions []*planner.Action) int {
	p := actions[0].Prior
	var members []*member
	for _, a := range actions {
		name := ""
		switch src := a.Prior.Source; {
		case src != nil && src.Name != "":
			name = src.Name // as uploaded
		case a.Desired != nil && a.Desired.Transcription != nil:
			name = memberName(a.Desired.Transcription)
		case src != nil:
			name = firstNonEmpty(src.URL, uploadName(src.Path))
		}
		members = append(members, &member{action: a, name: name, start: x.opts.Now()})
		x.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type), JobID: p.JobID})
	}
	return x.follow(ctx, p.JobAPI, p.JobID, members, false)
}

// follow starts (if needed), polls and collects a recorded job.
func (x *run) follow(ctx context.Context, api, jobID string, members []*member, fresh bool) int {
	ctx = x.traced(ctx, "batch job "+jobID)
	if api == manifest.APIBatchLegacy {
		return x.followLegacy(ctx, jobID, members)
	}
	job, err := x.opts.Client.GetJob(ctx, jobID)
	if speechapi.IsCode(err, speechapi.CodeJobNotFound) {
		return x.failMembers(members, fmt.Errorf("batch job %s no longer exists: the next apply creates a new one", jobID), true)
	}
	if err != nil {
		return x.failMembers(members, err, false)
	}
	if job.Status == speechapi.JobCreated {
		if x.stopped() {
			// A stop request came while the job was being created (or
			// before its resumption): starting it now would begin new
			// paid work. It is recorded; the next apply starts it.
			for _, m := range members {
				x.skip(m.action.Address, fmt.Sprintf("interrupted: batch job %s was created and recorded, not started; the next apply starts it", jobID))
			}
			return 0
		}
		_, err := x.opts.Client.StartJob(ctx, jobID)
		if err != nil && !speechapi.IsCode(err, speechapi.CodeJobAlreadyStarted) {
			return x.failMembers(members, err, false)
		}
	}
	job, err = x.waitJob(ctx, jobID, len(members))
	if err != nil {
		if x.stopped() {
			for _, m := range members {
				x.skip(m.action.Address, fmt.Sprintf("interrupted: batch job %s stays pending and resumes on the next apply", jobID))
			}
			return 0
		}
		return x.failMembers(members, err, false)
	}
	files, err := x.opts.Client.AllJobFiles(ctx, jobID, "")
	if err != nil {
		return x.failMembers(members, err, false)
	}
	return x.collect(ctx, job, files, members)
}

// waitJob polls a job until it is terminal, reporting file counts. A stop
// request ends the wait (the job stays pending).
func (x *run) waitJob(ctx context.Context, jobID string, n int) (*speechapi.Job, error) {
	interval := x.pollInterval(speechapi.JobPollInterval)
	if n >= 100 {
		interval = x.pollInterval(speechapi.JobPollIntervalMany)
	}
	for {
		job, err := x.opts.Client.GetJob(ctx, jobID)
		if err != nil {
			return nil, err
		}
		x.emit(Event{Kind: EventProgress, Address: "batch job " + jobID, JobID: jobID, JobStatus: job.Status,
			FilesDone: job.Progress.CompletedFiles + job.Progress.FailedFiles + job.Progress.CancelledFiles, FilesTotal: job.Progress.TotalFiles})
		if speechapi.IsTerminal(job.Status) {
			return job, nil
		}
		if err := x.pause(ctx, interval); err != nil {
			return nil, err
		}
	}
}

// pause waits for d, or until a stop request, the service appearing down
// or cancellation.
func (x *run) pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-x.opts.Stop:
		return ErrInterrupted
	case <-x.breaker().Open():
		return ErrInterrupted
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pollInterval is the interval between status polls: the documented
// minimum against a real service (Options.PollInterval may lengthen it,
// never shorten it: SPEC section 6), short against a loopback emulator.
func (x *run) pollInterval(documented time.Duration) time.Duration {
	if contract.IsLoopbackURL(x.opts.Client.BaseURL()) {
		if x.opts.PollInterval > 0 {
			return x.opts.PollInterval
		}
		return 50 * time.Millisecond
	}
	return max(documented, x.opts.PollInterval)
}
