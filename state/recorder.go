package state

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Recorder is the single way the state changes. Every method appends one
// journal record and returns only once it is durable; the cost of a record
// does not grow with the number of resources. It is safe for concurrent use
// by apply's workers. Close folds the journal into the state file.
type Recorder struct {
	store store
	now   func() time.Time

	mu      sync.Mutex // guards state and j creation
	state   *File
	j       *journalWriter
	changed bool
	closed  bool
}

// store is what a Recorder needs from a backend.
type store interface {
	// createJournal starts a journal on top of state (lineage, serial).
	createJournal(lineage string, serial int64) (*journalWriter, error)
	// fold writes f as the new state and removes the journal.
	fold(f *File, j *journalWriter) error
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
// status are filled in.
func (r *Recorder) Record(addr string, res *Resource) error {
	if res.Status == "" {
		res.Status = StatusComplete
	}
	return r.put(map[string]*Resource{addr: res})
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
		res.JobID = jobID
		res.JobAPI = jobAPI
	}
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
	j, seq, err := r.write(rec, apply)
	if err != nil {
		return err
	}
	return j.wait(seq)
}

// write appends rec to the journal and applies it in memory, without
// waiting for a sync; it returns what wait needs.
func (r *Recorder) write(rec *record, apply func()) (*journalWriter, uint64, error) {
	line, err := encodeRecord(rec)
	if err != nil {
		return nil, 0, err
	}
	j, err := r.journal()
	if err != nil {
		return nil, 0, err
	}
	seq, err := j.write(line, func() {
		r.mu.Lock()
		apply()
		r.changed = true
		r.mu.Unlock()
	})
	return j, seq, err
}

// journal returns the open journal, creating it on the first record.
func (r *Recorder) journal() (*journalWriter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.j == nil {
		// A new state gets its lineage with its first record, so that a
		// plan of a directory never applied binds to "no state yet".
		if r.state.Lineage == "" {
			r.state.Lineage = NewLineage()
		}
		j, err := r.store.createJournal(r.state.Lineage, r.state.Serial)
		if err != nil {
			return nil, err
		}
		r.j = j
	}
	return r.j, nil
}

// Get returns the recorded resource at addr.
func (r *Recorder) Get(addr string) (*Resource, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.state.Resources[addr]
	return res, ok
}

// Snapshot returns a copy of the current state.
func (r *Recorder) Snapshot() *File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.Clone()
}

// Close folds the journal into the state file (serial + 1) and removes the
// journal. With nothing recorded it writes nothing. Call it once every
// worker has returned; later calls of the other methods fail with ErrClosed.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	j, changed := r.j, r.changed
	f := r.state.Clone()
	r.mu.Unlock()
	if j == nil {
		return nil
	}
	if !changed {
		j.close()
		if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove journal: %w", err)
		}
		return nil
	}
	f.Serial++
	f.Version = FormatVersion
	f.VoxformVersion = VoxformVersion
	if err := r.store.fold(f, j); err != nil {
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
