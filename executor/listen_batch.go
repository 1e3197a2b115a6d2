package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/transcript"
)

// checkFile is one listening check sent to a batch job: a rendition
// (mono 16-bit WAV, in a scratch directory) and its request.
type checkFile struct {
	// Fingerprint is the check's (planner.CheckFingerprint): it names the
	// file in its job and finds the job again after an interruption.
	Fingerprint string
	Path        string
	Seconds     float64
	Request     planner.CheckRequest
	// Keep, when set, keeps what the check heard in the cache, durably:
	// the batcher calls it as soon as the file is heard, before the
	// journal forgets the file, so that a check paid for is never lost
	// between the two (only what was kept is forgotten).
	Keep func(checkHeard) error
}

// checkHeard is what a batch job heard of one checkFile.
type checkHeard struct {
	// Text is the transcript, the API key removed.
	Text string
	// Seconds is the audio the job billed for the file.
	Seconds float64
	// JobID is the job that transcribed it.
	JobID string
	// Segments are the transcript's timed segments, for placing a
	// diverging span.
	Segments []transcript.Segment
}

// checkBatcher transcribes the checks too long for REST recognition
// (contract.ListenRESTMax) through batch jobs shared by every action of
// an apply. transcribe blocks until each file is heard or has failed:
// heard[i] and errs[i] are the outcome of files[i].
type checkBatcher interface {
	transcribe(ctx context.Context, files []checkFile) (heard []checkHeard, errs []error)
}

// errBatchChecks refuses checks that need a batch job when there is no
// service to send them to.
var errBatchChecks = errors.New("listen: checks of audio longer than REST recognition takes need the service, and this run has none")

// noBatcher makes no batch checks: the batcher of a run without a client.
type noBatcher struct{}

func (noBatcher) transcribe(_ context.Context, files []checkFile) ([]checkHeard, []error) {
	errs := make([]error, len(files))
	for i := range errs {
		errs[i] = errBatchChecks
	}
	return make([]checkHeard, len(files)), errs
}

// Bounds and pace of check jobs.
const (
	// listenGather is how long a check job waits for more files after the
	// last one joined (a full job of MaxJobFiles goes at once);
	// listenGatherLoopback against an emulator polled fast.
	listenGather         = 2 * time.Second
	listenGatherLoopback = 50 * time.Millisecond
	// listenJobWait bounds how long a check job is waited for once
	// started (or followed again): the documents state no processing
	// time. A job still running then stays recorded for the next apply.
	listenJobWait = 2 * time.Hour
	// maxCheckTranscript bounds a check's transcript JSON as downloaded
	// (the text recorded is bounded by state.MaxHeard).
	maxCheckTranscript = 4 << 20
)

// jobBatcher is the checkBatcher of an apply: checks wait in a queue per
// (API, language, model) that becomes a job at MaxJobFiles files or
// listenGather after the last joined; each job is recorded in the journal
// (checkJournal) before it starts, followed at the documented interval
// and collected file by file. A check a recorded job holds follows that
// job instead. One check asked for twice at once is made once.
type jobBatcher struct {
	ctx     context.Context // the apply's: jobs run under it
	op      *batchOp        // client, stops, polling, parallelism, orphans, events
	journal *checkJournal
	gather  time.Duration
	wait    time.Duration // listenJobWait
	slots   chan struct{} // jobs being created or followed to their end

	mu      sync.Mutex
	tickets map[string]*checkTicket // unresolved, by fingerprint
	queues  map[checkGroup]*checkQueue
	follows map[string]*checkJob // recorded jobs being followed, by id
	polled  map[string]time.Time // each job's last status request
}

// checkGroup is what the checks of one job share.
type checkGroup struct{ api, language, model string }

// checkQueue is the checks of a group waiting for a job.
type checkQueue struct {
	tickets []*checkTicket
	timer   *time.Timer
}

// checkTicket is one check in flight, shared by every caller asking it.
type checkTicket struct {
	file    checkFile
	name    string // its file name in its job
	done    chan struct{}
	heard   checkHeard
	err     error
	waiters int
	job     *checkJob // nil while queued
}

// newCheckBatcher is the checkBatcher of the apply whose batch operation
// is op (its client, stops, clock, polling, parallelism, orphan sweep and
// events, and the manifest directory, where .voxform/ holds the journal of
// check jobs). Jobs run under ctx, the apply's. Call it before the first
// orphan sweep: the jobs the journal records are never orphans.
func newCheckBatcher(ctx context.Context, op *batchOp) checkBatcher {
	if op.client == nil {
		return noBatcher{}
	}
	gather := listenGather
	if contract.IsLoopbackURL(op.client.BaseURL()) && !op.documentedPolls {
		gather = listenGatherLoopback
	}
	b := &jobBatcher{ctx: ctx, op: op, gather: gather, wait: listenJobWait,
		journal: loadCheckJournal(op.files.dir, op.client.BaseURL(), op.now()),
		slots:   make(chan struct{}, max(1, op.parallelism)),
		tickets: map[string]*checkTicket{}, queues: map[checkGroup]*checkQueue{},
		follows: map[string]*checkJob{}, polled: map[string]time.Time{}}
	for _, id := range b.journal.ids() {
		op.orphans.jobRecorded(id)
	}
	return b
}

func (b *jobBatcher) transcribe(ctx context.Context, files []checkFile) ([]checkHeard, []error) {
	heard, errs := make([]checkHeard, len(files)), make([]error, len(files))
	tickets := make([]*checkTicket, len(files))
	for i, f := range files {
		tickets[i], errs[i] = b.join(f)
	}
	for i, t := range tickets {
		if t == nil {
			continue
		}
		select {
		case <-t.done:
			heard[i], errs[i] = t.heard, t.err
		case <-ctx.Done():
			errs[i] = fmt.Errorf("listen: batch check %s: %w", t.name, ctx.Err())
			b.leave(t)
		}
	}
	return heard, errs
}

// checkUploadName is the file name a check is uploaded under.
func checkUploadName(fp string) string { return "listen__" + fp[:16] + ".wav" }

// isFingerprint reports whether fp is a SHA-256 in lowercase hex.
func isFingerprint(fp string) bool {
	if len(fp) != 64 {
		return false
	}
	for _, c := range fp {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkCheckFile refuses a file no check job can take.
func checkCheckFile(f checkFile) error {
	r := f.Request
	switch {
	case !isFingerprint(f.Fingerprint):
		return fmt.Errorf("listen: batch check %q: the fingerprint is not a SHA-256", f.Fingerprint)
	case r.API == contract.APIBatchLegacy:
		return fmt.Errorf("listen: not checked: %s audio over %.1f s needs the older batch API, which voxform does not use for checks", r.LanguageCode, contract.ListenRESTMax.Seconds())
	case r.API != contract.APIBatch:
		return fmt.Errorf("listen: batch check %s: api %q is not batch", checkUploadName(f.Fingerprint), r.API)
	case r.LanguageCode == "" || r.Model == "" || f.Path == "":
		return fmt.Errorf("listen: batch check %s: a language, a model and a rendition are required", checkUploadName(f.Fingerprint))
	}
	return nil
}

// join adds f to the check in flight for its fingerprint, to the job the
// journal records holding it, or to its group's queue.
func (b *jobBatcher) join(f checkFile) (*checkTicket, error) {
	if err := checkCheckFile(f); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// A check in flight is joined, unless the job it is in was given up
	// (no caller waited for it): then it is asked anew.
	if t := b.tickets[f.Fingerprint]; t != nil && (t.job == nil || t.job.ctx.Err() == nil) {
		t.waiters++
		if t.job != nil {
			t.job.live++
		}
		return t, nil
	}
	if err := b.journal.err; err != nil {
		return nil, fmt.Errorf("listen: batch check %s: %w (remove the file if no check job is running)", checkUploadName(f.Fingerprint), err)
	}
	t := &checkTicket{file: f, name: checkUploadName(f.Fingerprint), done: make(chan struct{}), waiters: 1}
	b.tickets[f.Fingerprint] = t
	if job, jf, ok := b.journal.holder(f.Fingerprint, b.op.client.BaseURL()); ok {
		t.name = jf.Name
		b.followLocked(job, t)
		return t, nil
	}
	b.queueLocked(t)
	return t, nil
}

// leave is a caller giving up on t: a check nobody waits for leaves its
// queue, and a job nobody waits for stops being followed (it stays
// recorded; the next apply collects it).
func (b *jobBatcher) leave(t *checkTicket) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.waiters--; t.waiters > 0 {
		return
	}
	if t.job == nil {
		b.unqueueLocked(t)
		return
	}
	if t.job.live--; t.job.live == 0 {
		t.job.cancel()
	}
}

// resolve ends t with its outcome.
func (b *jobBatcher) resolve(t *checkTicket, heard checkHeard, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tickets[t.file.Fingerprint] != t {
		return // resolved already
	}
	delete(b.tickets, t.file.Fingerprint)
	t.heard, t.err = heard, err
	close(t.done)
}
