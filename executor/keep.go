package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// The cache roles of outputs that are not transcripts (a transcript's
// role is its format).
const (
	roleAudio     = "audio"
	roleEmbedding = "embedding"
)

// keeper keeps every output an apply makes in the cache under its
// fingerprint, then pushes it to the remote, in the background: the
// apply's workers hand their outputs over and go on. Neither ever fails
// the paid work: a failure is a warning, and 'voxform push' sends later
// what the remote lacks. The local cache is written through one batch,
// which shares its syncs between outputs (see cache.Batch); restores
// fetch through it too.
type keeper struct {
	cache *cache.Cache
	batch *cache.Batch
	dir   string // the manifest directory, where outputs are read from
	ctx   context.Context
	emit  func(Event)
	// docs holds, by address, the transcript JSON of a transcription whose
	// json output was not asked for (a scratch file the entry keeps, so
	// that a later restore can render any format).
	docs sync.Map
	work *queue
	// announced is closed once the fingerprints this apply may push are
	// announced in the remote's index (see announce).
	announced chan struct{}
	// checks are the check documents kept and not yet handed to work to
	// push (see keepCheck).
	checksMu sync.Mutex
	checks   []*cache.Entry
}

// pushLimit is how many outputs are kept and pushed to a remote at once.
const pushLimit = 8

// keepLimit is how many outputs are kept at once without a remote: a
// copy into the local cache waits on nothing but the CPU and the disk.
const keepLimit = 2

// newKeeper returns the keeper of c (nil without a cache) for the outputs
// of the manifest directory dir that an apply of plan makes; its pushes
// run under ctx, once plan's fingerprints are announced (see announce).
func newKeeper(ctx context.Context, c *cache.Cache, dir string, emit func(Event), plan *planner.Plan) *keeper {
	if c == nil {
		return nil
	}
	workers := keepLimit
	if c.Remote != nil {
		workers = pushLimit
	}
	k := &keeper{cache: c, batch: c.Local.Batch(), dir: dir, ctx: ctx, emit: emit, work: newQueue(workers), announced: make(chan struct{})}
	k.announce(plan)
	return k
}

// announce adds to the remote's index, in one segment and in the
// background, the fingerprint of every action of plan whose outputs may
// be pushed (all but those restored from the remote), so that the pushes
// need not announce each their own (see cache.Announce). Pushes wait for
// it; the apply's work does not. A failure is a warning: each push then
// announces its own fingerprint.
func (k *keeper) announce(plan *planner.Plan) {
	if k.cache.Remote == nil {
		close(k.announced)
		return
	}
	var fps []string
	for _, a := range plan.Actions {
		if a.Desired == nil || a.Type == planner.Delete || a.Type == planner.Move ||
			a.Type == planner.Restore && a.Details().RestoreFrom != "local" || !cache.ValidKey(a.Desired.Fingerprint) {
			continue
		}
		if a.Type == planner.Restore {
			fps = append(fps, a.CacheKey()) // pushed from where it was found
			continue
		}
		fps = append(fps, a.Desired.Fingerprint)
	}
	go func() {
		defer close(k.announced)
		if err := k.cache.Announce(k.ctx, fps); err != nil {
			k.emit(Event{Kind: EventWarning, Err: fmt.Errorf("announce this apply's outputs in %s: %w", k.cache.Remote, err)})
		}
	}()
}

// push pushes the entry fp of addr (e, when it is held in memory) once
// the apply's fingerprints are announced.
func (k *keeper) push(addr, fp string, e *cache.Entry) {
	select {
	case <-k.announced:
	case <-k.ctx.Done():
	}
	var err error
	if e != nil {
		err = k.cache.PushEntry(k.ctx, e)
	} else {
		err = k.cache.Push(k.ctx, fp)
	}
	if err != nil {
		k.warnPush(addr, err)
	}
}

// docFile is a scratch transcript JSON with its hash.
type docFile struct {
	path, sha string
	size      int64
}

// keepDoc writes the transcript JSON of a's transcription to a scratch
// file for the cache entry, when its json output was not asked for.
func (k *keeper) keepDoc(a *planner.Action, write func(io.Writer) error) {
	f, err := os.CreateTemp("", "voxform-doc-*.json")
	if err != nil {
		k.warn(a.Address, fmt.Errorf("keep the transcript of %s in the cache: %w", a.Address, err))
		return
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	err = write(cw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		k.warn(a.Address, fmt.Errorf("keep the transcript of %s in the cache: %w", a.Address, err))
		return
	}
	if old, loaded := k.docs.Swap(a.Address, docFile{path: f.Name(), sha: hex.EncodeToString(h.Sum(nil)), size: cw.n}); loaded {
		os.Remove(old.(docFile).path)
	}
}

// keep stores the outputs a recorded (res) under its fingerprint, then
// pushes them, in the background. A restore from the local cache is only
// pushed (the remote may lack it); one from the remote needs neither. The
// work queued holds no action, so that a lagging queue keeps no plan alive.
func (k *keeper) keep(a *planner.Action, res *state.Resource) {
	if k == nil || a.Desired == nil || res.Status == state.StatusPending || len(res.Outputs) == 0 {
		return
	}
	addr, fp := a.Address, a.Desired.Fingerprint
	if a.Type == planner.Restore {
		if a.Details().RestoreFrom == "local" && k.cache.Remote != nil {
			fp = a.CacheKey()
			k.work.add(func() { k.push(addr, fp, nil) })
		}
		return
	}
	e, paths := Entry(a.Desired.Kind, fp, res, k.dir)
	if len(e.Files) == 0 {
		return // a package: made again from its chapters
	}
	var scratch string
	if d, ok := k.docs.LoadAndDelete(addr); ok {
		doc := d.(docFile)
		scratch = doc.path
		if _, has := paths["json"]; !has {
			e.Files = append(e.Files, cache.File{Role: "json", SHA256: doc.sha, Size: doc.size})
			paths["json"] = doc.path
		}
	}
	k.work.add(func() {
		if scratch != "" {
			defer os.Remove(scratch)
		}
		if err := k.batch.Store(e, paths); err != nil {
			k.warn(addr, fmt.Errorf("keep %s in the cache: %w", addr, err))
			return
		}
		if k.cache.Remote == nil {
			return
		}
		k.push(addr, fp, e)
	})
}

// Entry is the cache entry of the outputs res recorded for fingerprint fp
// of a resource of kind, with the path of each file below the manifest
// directory dir, by role: a synthesis's audio (not its cue files), an
// embedding's JSON, each transcript format.
func Entry(kind manifest.Kind, fp string, res *state.Resource, dir string) (*cache.Entry, map[string]string) {
	e := &cache.Entry{Version: cache.FormatVersion, Fingerprint: fp, Kind: string(kind), CreatedAt: time.Now().UTC(),
		Meta: cache.Meta{DurationSeconds: res.Details().DurationSeconds, DetectedLanguage: res.Details().DetectedLanguage, Model: res.Details().Model}}
	paths := map[string]string{}
	for _, o := range res.Outputs {
		role := planner.EntryRole(kind, o.Format)
		if role == "" {
			continue // a cue file: made again from the audio and the text as written
		}
		e.Files = append(e.Files, cache.File{Role: role, SHA256: o.SHA256, Size: o.Size})
		paths[role] = filepath.Join(dir, filepath.FromSlash(o.Path))
		if role == roleAudio {
			metaLoudness(&e.Meta, o.Loudness)
		}
	}
	return e, paths
}

// checkPushGroup is how many check documents are pushed together, their
// fingerprints announced in one segment of the remote's index: a check's
// fingerprint is known only once its take is made, too late for announce.
const checkPushGroup = 32

// keepCheck pushes e, a check document the local cache of k holds
// (checkStore.keep), to the remote, with others: every checkPushGroup
// documents, and the rest when the apply ends (wait). A check the remote
// holds is never paid again by a teammate who shares the remote, not the
// state.
func (k *keeper) keepCheck(e *cache.Entry) {
	if k == nil || k.cache.Remote == nil {
		return
	}
	k.checksMu.Lock()
	k.checks = append(k.checks, e)
	var group []*cache.Entry
	if len(k.checks) >= checkPushGroup {
		group, k.checks = k.checks, nil
	}
	k.checksMu.Unlock()
	if group != nil {
		k.work.add(func() { k.pushChecks(group) })
	}
}

// pushChecks announces the fingerprints of es in one segment of the
// remote's index, then pushes each. A failure is a warning: the check
// stays in the local cache.
func (k *keeper) pushChecks(es []*cache.Entry) {
	select {
	case <-k.announced:
	case <-k.ctx.Done():
	}
	fps := make([]string, len(es))
	for i, e := range es {
		fps[i] = e.Fingerprint
	}
	if err := k.cache.Announce(k.ctx, fps); err != nil {
		k.warn("", fmt.Errorf("announce %d listening checks in %s: %w", len(es), k.cache.Remote, err))
		return
	}
	for _, e := range es {
		if err := k.cache.PushEntry(k.ctx, e); err != nil {
			k.warn("", fmt.Errorf("push the listening check %.12s to %s: %w", e.Fingerprint, k.cache.Remote, err))
		}
	}
}

// wait returns once every output handed over is kept and pushed, and the
// local cache's batch is flushed.
func (k *keeper) wait() {
	if k == nil {
		return
	}
	k.checksMu.Lock()
	group := k.checks
	k.checks = nil
	k.checksMu.Unlock()
	if len(group) > 0 {
		k.work.add(func() { k.pushChecks(group) })
	}
	k.work.wait()
	if err := k.batch.Close(); err != nil {
		k.emit(Event{Kind: EventWarning, Err: fmt.Errorf("keep outputs in the cache %s: %w", k.cache.Local.Dir(), err)})
	}
	k.docs.Range(func(addr, d any) bool { // of transcriptions that failed
		os.Remove(d.(docFile).path)
		k.docs.Delete(addr)
		return true
	})
}

func (k *keeper) warnPush(addr string, err error) {
	k.warn(addr, fmt.Errorf("push %s to %s: %w; 'voxform push' sends it later", addr, k.cache.Remote, err))
}

func (k *keeper) warn(addr string, err error) {
	k.emit(Event{Kind: EventWarning, Address: addr, Err: err})
}

// countWriter counts what it writes.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// queue runs the tasks added to it on up to a fixed number of goroutines,
// started as tasks come; add never blocks.
type queue struct {
	mu      sync.Mutex
	tasks   []func()
	idle    int // goroutines not started yet
	running sync.WaitGroup
}

func newQueue(workers int) *queue { return &queue{idle: workers} }

// add queues task, starting a goroutine for it if one may start.
func (q *queue) add(task func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tasks = append(q.tasks, task)
	if q.idle > 0 {
		q.idle--
		q.running.Add(1)
		go q.run()
	}
}

// run runs tasks until none is queued.
func (q *queue) run() {
	defer q.running.Done()
	for {
		q.mu.Lock()
		if len(q.tasks) == 0 {
			q.idle++
			q.mu.Unlock()
			return
		}
		task := q.tasks[0]
		q.tasks[0] = nil
		q.tasks = q.tasks[1:]
		q.mu.Unlock()
		task()
	}
}

// wait returns once every task added has run.
func (q *queue) wait() { q.running.Wait() }
