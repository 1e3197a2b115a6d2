package state

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Recorder is the single way the state changes. Every method writes one
// record (a journal line of the file backend, one transaction of the
// PostgreSQL backend) and returns only once it is durable; the cost of a
// record does not grow with the number of resources (but for the first
// after a Snapshot, which copies the map of resources it shared). It is safe for
// concurrent use by apply's workers. Close ends the recording (the file
// backend folds its journal into the state file).
type Recorder struct {
	store store
	now   func() time.Time

	mu      sync.Mutex // guards state, shared, wrote, changed, closed
	state   *File
	shared  bool // a Snapshot shares state's resources and lists: copied before a change
	wrote   bool // a record reached the store
	changed bool // a record was applied
	closed  bool
}

// store is where a Recorder's records go.
type store interface {
	// write makes rec durable after the records written before it on the
	// state (lineage, serial), calling apply once rec's place in that
	// order is fixed; the returned wait returns once rec is durable.
	write(rec *record, lineage string, serial int64, apply func()) (wait func() error, err error)
	// commit ends the recording. With changed, f (every record applied,
	// serial increased) is the new state; otherwise nothing changed.
	commit(f *File, changed bool) error
}

// ErrClosed is returned by a Recorder after Close.
var ErrClosed = errors.New("state recorder is closed")

func newRecorder(s store, f *File, now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{store: s, state: f, now: now}
}

// Record records a completed resource at addr (a synthesis written, an
// embedding saved, one transcription file done). Missing timestamps and
// status are filled in; an approval recorded at addr is kept (see
// keepApproval).
func (r *Recorder) Record(addr string, res *Resource) error {
	if res.Status == "" {
		res.Status = StatusComplete
	}
	entries := map[string]*Resource{addr: res}
	r.keepApproval(entries)
	return r.put(entries)
}

// RecordPending records, in one durable record, that the remote batch job
// jobID now exists for the given resources. Call it the moment the create
// call returns, before starting or polling the job, so that a later apply
// resumes the job instead of creating (and paying for) another. Each entry
// gets StatusPending, JobID and JobAPI.
func (r *Recorder) RecordPending(jobID, jobAPI string, entries map[string]*Resource) error {
	if jobID == "" {
		return errors.New("record pending job: empty job id")
	}
	for _, res := range entries {
		res.Status = StatusPending
		res.Edit().JobID = jobID
		res.Edit().JobAPI = jobAPI
	}
	r.keepApproval(entries)
	return r.put(entries)
}

// Remove removes addresses from the state (a deleted resource, or a pending
// entry whose job failed).
func (r *Recorder) Remove(addrs ...string) error {
	if len(addrs) == 0 {
		return nil
	}
	rec := &record{Op: opRemove, Remove: addrs}
	return r.append(rec, func() { rec.apply(r.state) })
}

func (r *Recorder) put(entries map[string]*Resource) error {
	now := r.now().UTC()
	for _, res := range entries {
		res.dropEmptyDetails()
		if res.CreatedAt.IsZero() {
			res.CreatedAt = now
		}
		if res.UpdatedAt.IsZero() {
			res.UpdatedAt = now
		}
	}
	rec := &record{Op: opPut, Resources: entries}
	return r.append(rec, func() { rec.apply(r.state) })
}

// append writes rec and applies it in memory, returning once it is durable.
func (r *Recorder) append(rec *record, apply func()) error {
	wait, err := r.write(rec, apply)
	if err != nil {
		return err
	}
	return wait()
}

// write hands rec to the store, which applies it in memory in its order,
// without waiting for it to be durable; it returns the wait.
func (r *Recorder) write(rec *record, apply func()) (func() error, error) {
	if err := rec.checkEntries(); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	// A new state gets its lineage with its first record, so that a plan
	// of a directory never applied binds to "no state yet".
	if r.state.Lineage == "" {
		r.state.Lineage = NewLineage()
	}
	lineage, serial := r.state.Lineage, r.state.Serial
	r.wrote = true
	r.mu.Unlock()
	return r.store.write(rec, lineage, serial, func() {
		r.mu.Lock()
		if r.shared { // the snapshot keeps the state it was given
			r.state, r.shared = r.state.Clone(), false
		}
		apply()
		r.changed = true
		r.mu.Unlock()
	})
}

// Get returns the recorded resource at addr.
func (r *Recorder) Get(addr string) (*Resource, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.state.Resources[addr]
	return res, ok
}

// Snapshot returns a copy of the current state, which later records do
// not change. It shares the state's resources until the next record
// (copied then, not now: a plan's session records nothing, and the state
// of 100,000 is not copied for it). Neither the caller nor the recorder
// changes what is shared.
func (r *Recorder) Snapshot() *File {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shared = true
	c := *r.state
	return &c
}

// Read calls fn with the recorded state, which it must not change nor
// keep: for a reader once every worker has returned, without the copy a
// Snapshot costs the next record.
func (r *Recorder) Read(fn func(*File)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(r.state)
}

// Close ends the recording: the state's serial increases when something
// was recorded (the file backend folds its journal into the state file
// and removes it). Call it once every worker has returned; later calls of
// the other methods fail with ErrClosed.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	wrote, changed := r.wrote, r.changed
	// No writer changes the state once closed: the copy shares its
	// resources rather than cloning them.
	f := *r.state
	r.mu.Unlock()
	if !wrote {
		return nil
	}
	if changed {
		f.Serial++
		f.Version = FormatVersion
		f.VoxformVersion = VoxformVersion
	}
	if err := r.store.commit(&f, changed); err != nil {
		return err
	}
	r.mu.Lock()
	r.state.Serial = f.Serial
	r.mu.Unlock()
	return nil
}

// Move records, in one durable record, that the resource at from is now at
// to (a renamed resource or for_each key taken over without paying again):
// res is stored at to and from is removed.
func (r *Recorder) Move(from, to string, res *Resource) error {
	if from == to {
		return r.Record(to, res)
	}
	if res.Status == "" {
		res.Status = StatusComplete
	}
	res.UpdatedAt = r.now().UTC()
	rec := &record{Op: opPut, Resources: map[string]*Resource{to: res}, Remove: []string{from}}
	return r.append(rec, func() { rec.apply(r.state) })
}
