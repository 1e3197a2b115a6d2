package executor

import (
	"context"
	"slices"
	"time"

	"github.com/voxform/voxform/speechapi"
)

// checkJob is a check job of this apply: being created, or recorded and
// followed to its end.
type checkJob struct {
	id      string // "" until created
	group   checkGroup
	files   int // files the job holds, for its polling interval
	tickets []*checkTicket
	// live counts the callers still waiting on its tickets; at 0 the job
	// is no longer followed (cancel).
	live       int
	ctx        context.Context
	cancel     context.CancelFunc
	collecting bool // its tickets are taken: later ones follow it anew
}

func groupOf(f checkFile) checkGroup {
	return checkGroup{api: f.Request.API, language: f.Request.LanguageCode, model: f.Request.Model}
}

// queueLocked adds t to its group's queue: a full job leaves at once,
// else the queue leaves gather after its last check joined.
func (b *jobBatcher) queueLocked(t *checkTicket) {
	g := groupOf(t.file)
	q := b.queues[g]
	if q == nil {
		q = &checkQueue{}
		b.queues[g] = q
	}
	q.tickets = append(q.tickets, t)
	b.flushLocked(g, q, false)
}

// flushLocked sends q's full jobs (with all, every check it holds) and
// arms its timer for the rest.
func (b *jobBatcher) flushLocked(g checkGroup, q *checkQueue, all bool) {
	for len(q.tickets) >= speechapi.MaxJobFiles || all && len(q.tickets) > 0 {
		var batch []*checkTicket
		batch, q.tickets = takeJob(q.tickets)
		b.startJobLocked(g, batch)
	}
	if len(q.tickets) == 0 {
		if q.timer != nil {
			q.timer.Stop()
		}
		return
	}
	if q.timer == nil {
		q.timer = time.AfterFunc(b.gather, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.flushLocked(g, q, true)
		})
		return
	}
	q.timer.Reset(b.gather)
}

// takeJob takes up to MaxJobFiles checks of distinct file names (two
// fingerprints alike in their first 16 digits go to different jobs).
func takeJob(queued []*checkTicket) (batch, rest []*checkTicket) {
	names := map[string]bool{}
	for _, t := range queued {
		if len(batch) < speechapi.MaxJobFiles && !names[t.name] {
			names[t.name] = true
			batch = append(batch, t)
			continue
		}
		rest = append(rest, t)
	}
	return batch, rest
}

// unqueueLocked takes t, which nobody waits for, out of its queue.
func (b *jobBatcher) unqueueLocked(t *checkTicket) {
	delete(b.tickets, t.file.Fingerprint)
	if q := b.queues[groupOf(t.file)]; q != nil {
		q.tickets = slices.DeleteFunc(q.tickets, func(x *checkTicket) bool { return x == t })
	}
}

// newJobLocked makes the job of tickets (id "" for one to create).
func (b *jobBatcher) newJobLocked(id string, g checkGroup, files int, tickets []*checkTicket) *checkJob {
	j := &checkJob{id: id, group: g, files: files, tickets: tickets}
	j.ctx, j.cancel = context.WithCancel(b.ctx)
	for _, t := range tickets {
		t.job = j
		j.live += t.waiters
	}
	return j
}

// startJobLocked creates, records, starts and follows a job of batch.
func (b *jobBatcher) startJobLocked(g checkGroup, batch []*checkTicket) {
	j := b.newJobLocked("", g, len(batch), batch)
	go b.runJob(j)
}

// followLocked adds t to the follower of the recorded job, starting one
// when none is following it or the one following it is collecting.
func (b *jobBatcher) followLocked(job journalJob, t *checkTicket) {
	if j := b.follows[job.JobID]; j != nil && !j.collecting && j.ctx.Err() == nil {
		j.tickets = append(j.tickets, t)
		t.job = j
		j.live += t.waiters
		return
	}
	j := b.newJobLocked(job.JobID, checkGroup{api: job.API, language: job.LanguageCode, model: job.Model}, len(job.Files), []*checkTicket{t})
	b.follows[job.JobID] = j
	go func() {
		defer j.cancel()
		b.follow(j, nil)
	}()
}

// take marks j collecting and returns the tickets it collects.
func (b *jobBatcher) take(j *checkJob) []*checkTicket {
	b.mu.Lock()
	defer b.mu.Unlock()
	j.collecting = true
	if b.follows[j.id] == j {
		delete(b.follows, j.id)
	}
	return slices.Clone(j.tickets)
}
