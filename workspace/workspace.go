// Package workspace is voxform's workflow: a manifest directory with its
// state, lock and hash cache, and the steps every command takes on it —
// load the manifest, lock the state, plan, apply, verify, save and re-check
// plans, import existing files and put earlier takes back (takes.go,
// use.go). The commands (package cli) add flags and rendering; tests and
// benchmarks call the same steps instead of copying them.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/state"
)

// Workspace is a manifest directory and the state beside it.
type Workspace struct {
	// Dir is the manifest directory; every path of a plan is relative to it.
	Dir string
	// CacheDir is the local output cache's directory when the manifest
	// names none (the commands set the user's cache directory).
	CacheDir string
	// Emulated says that the outputs are made by the built-in emulator
	// (-emulate), never to be taken for the service's: the local output
	// cache is then the EmulatedCacheDir below the cache directory, which
	// no other command reads, and the remote is neither asked nor sent to.
	Emulated bool
	// LockTimeout is how long Lock waits for a lock another process
	// holds (0: it fails at once, naming the holder).
	LockTimeout time.Duration
	// Notify, when set, is told what the workspace is waiting for, and
	// what it leaves out that the manifest asks for.
	Notify func(string)
	// Encoder identifies the encoders of delivery profiles for the plan
	// (planner.Input.Encoder); nil: identity "" for every profile.
	Encoder planner.EncoderFunc
	backend state.Backend
}

// New returns the workspace of the manifest directory dir, its state in
// the local file beside the manifests.
func New(dir string) *Workspace {
	return &Workspace{Dir: dir, backend: state.NewLocal(dir)}
}

// On returns the workspace of the manifest directory dir, its state in be.
func On(dir string, be state.Backend) *Workspace {
	return &Workspace{Dir: dir, backend: be}
}

// NewBackend is the state backend b names: the local file of dir, or a
// PostgreSQL database whose connection string is the value of the
// variable b.ConnStrEnv (read through getenv, never printed).
func NewBackend(dir string, b manifest.Backend, getenv func(string) string) (state.Backend, error) {
	switch b.Type {
	case "", manifest.BackendLocal:
		return state.NewLocal(dir), nil
	case manifest.BackendPG:
		conn := getenv(b.ConnStrEnv)
		if conn == "" {
			return nil, advise(fmt.Errorf("backend pg: %s is not set", b.ConnStrEnv),
				fmt.Sprintf("set %s to the PostgreSQL connection string (postgres://user:password@host/db), or VOXFORM_BACKEND=local", b.ConnStrEnv))
		}
		return state.NewPG(state.PGConfig{ConnString: conn, Env: b.ConnStrEnv, Schema: b.Schema, Workspace: b.Workspace, Lease: b.Lease, Dir: dir})
	default:
		return nil, fmt.Errorf("backend.type %q: want local or pg", b.Type)
	}
}

// Backend is where the workspace keeps its state.
func (w *Workspace) Backend() state.Backend { return w.backend }

// Close releases the backend's connections.
func (w *Workspace) Close() error { return w.backend.Close() }

// Load loads, expands and validates the manifest. The manifest is nil when
// any diagnostic is an error. The JSON Schema editors read (named by the
// manifest's "# yaml-language-server" line) is kept current in .voxform/.
func (w *Workspace) Load(opts manifest.LoadOptions) (*manifest.Manifest, manifest.Diagnostics) {
	if names, err := manifest.ManifestFiles(w.Dir); err == nil && len(names) > 0 {
		state.KeepSchema(w.Dir, schema.JSON) // for editors only: a failure changes nothing else
	}
	m, ds := manifest.Load(w.Dir, opts, schema.Validator{})
	if ds.HasErrors() {
		return nil, ds
	}
	return m, ds
}

// ReadState reads the state without locking it, folding in a journal a
// process that died left (for show, verify and state list).
func (w *Workspace) ReadState(ctx context.Context) (*state.File, error) { return w.backend.Read(ctx) }

// Error is an error of the workflow with advice on what to do next.
type Error struct {
	Err    error
	Advice string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Hint is the advice, printed after the error.
func (e *Error) Hint() string { return e.Advice }

func advise(err error, advice string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Advice: advice}
}

// Session is a workspace whose state is locked for one operation. The state
// and the hash cache are read in the background: the hash cache from the
// moment the lock is taken, the state then too (Lock) or once the caller
// has loaded the manifest (LockUnread, Start).
type Session struct {
	ws   *Workspace
	lock state.Unlocker

	opened    chan struct{} // closed once rec, st, cache and openErr are set
	start     func()        // starts reading them (see Start)
	startOnce sync.Once
	rec       *state.Recorder
	st        *state.File
	cache     *state.HashCache
	err       error
	// outputs is the output cache the plan opened (nil: none).
	outputs *cache.Cache

	closeOnce sync.Once
	closeErr  error
}

// Lock locks the state for op ("plan", "apply", "destroy"), explaining what
// to do when someone else holds it, and starts reading the state (folding a
// journal left by a process that died) and the hash cache. The caller
// closes the session.
func (w *Workspace) Lock(ctx context.Context, op string) (*Session, error) {
	s, err := w.LockUnread(ctx, op)
	if err == nil {
		s.Start()
	}
	return s, err
}

// LockUnread is Lock without starting to read the state: the caller
// calls Start once it has loaded and checked the manifest, so that a
// state of 100,000 resources is not held beside the manifest's expansion
// and check (the plan after an apply of 100,000 reached a peak RSS about
// 30 MB higher so, and takes about 0.15 s less). The hash cache is read
// at once. Closing a session never started reads nothing.
func (w *Workspace) LockUnread(ctx context.Context, op string) (*Session, error) {
	lk, err := state.LockWithin(ctx, w.backend, op, w.LockTimeout, w.Notify)
	var le *state.LockedError
	if errors.As(err, &le) {
		advice := "wait for it to finish (or wait for the lock with -lock-timeout)"
		if le.Info.ID != "" {
			advice += fmt.Sprintf("; if it is stuck, stop it, then run 'voxform force-unlock %s'", le.Info.ID)
		}
		return nil, advise(err, advice)
	}
	if err != nil {
		return nil, err
	}
	s := &Session{ws: w, lock: lk, opened: make(chan struct{})}
	cacheCh := make(chan *state.HashCache, 1)
	go func() { cacheCh <- state.OpenHashCache(w.Dir) }()
	s.start = func() {
		go func() {
			s.rec, s.err = w.backend.Open(ctx, lk, nil)
			if s.err == nil {
				s.st = s.rec.Snapshot()
			}
			s.cache = <-cacheCh
			close(s.opened)
		}()
	}
	return s, nil
}

// Start starts reading the state (see LockUnread), if it has not
// started. Every method of the session that needs the state starts it.
func (s *Session) Start() { s.startOnce.Do(s.start) }

// open waits until the state and the hash cache are read.
func (s *Session) open() error {
	s.Start()
	<-s.opened
	return s.err
}

// State is the locked state as it was read. After Apply it is an error:
// Apply lets go of the state it planned from (the apply's own record is
// what the backend now holds).
func (s *Session) State() (*state.File, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	if s.st == nil {
		return nil, errors.New("the session's state was let go of by its apply: read the state again")
	}
	return s.st, nil
}

// Recorder records results into the locked state.
func (s *Session) Recorder() (*state.Recorder, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	return s.rec, nil
}

// Close saves what was recorded and releases the lock; closing again does
// nothing. The error is that of saving the state.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.startOnce.Do(func() { close(s.opened) }) // never read: nothing to save
		<-s.opened
		if s.rec != nil {
			if err := s.rec.Close(); err != nil {
				s.closeErr = fmt.Errorf("save state: %w", err)
			}
		}
		s.lock.Unlock()
	})
	return s.closeErr
}

// SaveHashes writes the hash cache, so that the next plan need not hash
// again what this one hashed. A failure costs only time: callers warn.
func (s *Session) SaveHashes() error {
	s.Start()
	<-s.opened
	if s.cache == nil {
		return nil
	}
	return s.cache.Save()
}

// Plan computes the plan of m against the locked state: it hashes the
// inputs (and, unless opts.NoRefresh, the recorded outputs, while the
// desired resources are built) in parallel through the hash cache, diffs,
// prices and checks every path of the plan as the file system resolves it
// now (apply checks again). On a budget error the plan is returned with
// the error. It consumes m's syntheses (m.Syntheses holds nils after it):
// callers read only m's settings afterwards.
func (s *Session) Plan(ctx context.Context, m *manifest.Manifest, opts planner.Options) (*planner.Plan, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	hashes, err := s.startHashes(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	defer hashes.stop()
	hash := hashes.hash
	// Once built, the desired resources hold what the plan needs of the
	// manifest's: only its settings are read after. Build lets go of each
	// synthesis as it is built (m keeps its settings).
	in := planner.Input{State: s.st, Hash: hash, Probe: probe(m), Options: opts, Budget: m.Budget, Encoder: s.ws.Encoder}
	settings := Settings(m)
	if in.Desired, err = planner.BuildWith(m, hash, planner.BuildOptions{State: s.st, Release: true}); err != nil {
		return nil, err
	}
	if err := hashes.recorded(); err != nil {
		return nil, err
	}
	if opts.Cache != planner.CacheOff {
		if s.outputs == nil {
			var err error
			if s.outputs, err = s.ws.openCache(ctx, settings, opts.Cache); err != nil {
				return nil, err
			}
		}
		in.Cached = func(fps []string) (map[string]string, error) { return s.outputs.Lookup(ctx, fps) }
		in.CachedFiles = cachedFiles(ctx, s.outputs)
	} else {
		in.Chunks = chunkLookup(s.ws.Dir)
	}
	p, err := planner.Compute(in)
	if err == nil {
		err = s.ws.checkPaths(p)
	}
	return p, err
}

// planHashes are the hashes of the files a plan reads: its inputs', then
// the recorded outputs', hashed in the background while the desired
// resources are built (the plan after an apply of 100,000 stats every
// output: on the second core while the first builds).
type planHashes struct {
	cache   *state.HashCache
	inputs  map[string]state.FileHash
	outputs map[string]state.FileHash // once recorded has returned
	done    chan struct{}
	found   map[string]state.FileHash // the background's
	err     error
	cancel  context.CancelFunc
}

// startHashes hashes m's inputs and starts hashing the recorded outputs,
// unless opts.NoRefresh. The caller stops it.
func (s *Session) startHashes(ctx context.Context, m *manifest.Manifest, opts planner.Options) (*planHashes, error) {
	inputs, err := s.cache.HashAll(ctx, planner.InputFiles(m))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &planHashes{cache: s.cache, inputs: inputs, done: make(chan struct{}), cancel: cancel}
	if opts.NoRefresh {
		close(h.done)
		return h, nil
	}
	go func() {
		defer close(h.done)
		h.found, h.err = s.cache.HashAll(ctx, planner.OutputFiles(s.st))
	}()
	return h, nil
}

// recorded waits for the recorded outputs' hashes, which hash gives from
// then on.
func (h *planHashes) recorded() error {
	<-h.done
	h.outputs = h.found
	return h.err
}

// stop stops the hashing and waits for it to end.
func (h *planHashes) stop() {
	h.cancel()
	<-h.done
}

// hash is the plan's planner.HashFunc: the hashes made up front, or the
// file hashed now.
func (h *planHashes) hash(p string) (state.FileHash, error) {
	if fh, ok := h.inputs[p]; ok {
		return fh, nil
	}
	if fh, ok := h.outputs[p]; ok {
		return fh, nil
	}
	return h.cache.Hash(p)
}

// cachedFiles is the planner's view of the entries c holds (cache.Cache.
// Entries), whose files a restore of recorded outputs must match.
func cachedFiles(ctx context.Context, c *cache.Cache) planner.EntryLookup {
	return func(fps []string) (map[string]planner.CachedEntry, error) {
		found, err := c.Entries(ctx, fps)
		if err != nil {
			return nil, err
		}
		out := make(map[string]planner.CachedEntry, len(found))
		for fp, f := range found {
			ce := planner.CachedEntry{From: f.From, Files: executor.EntryFiles(f.Entry), Kind: f.Entry.Kind}
			if err := executor.CheckEntry(f.Entry); err != nil {
				ce.Refused = untrusted.Escape(err.Error())
			}
			out[fp] = ce
		}
		return out, nil
	}
}

// Settings is m without its resources, which a plan holds in its own
// shape (planner.Desired): what is read of a manifest once its plan is
// made (its service, cache, budget, hash and variables), so that a large
// manifest's resources are not kept beside the plan's.
func Settings(m *manifest.Manifest) *manifest.Manifest {
	if m == nil {
		return nil
	}
	c := *m
	c.Voices, c.Embeddings, c.Syntheses, c.Transcriptions, c.TranscriptionSettings = nil, nil, nil, nil, nil
	return &c
}

// probe measures transcription inputs for the cost line.
// Each is opened as validate opens it (owned.OpenInputWithin: inside the
// manifest directory or its block's input_dirs, and a regular file).
func probe(m *manifest.Manifest) planner.ProbeFunc {
	root := m.Dir
	dirs := map[string][]string{}
	for _, t := range m.Transcriptions {
		if !t.IsURL {
			dirs[t.Input] = t.InputDirs
		}
	}
	return func(p string) (float64, error) {
		f, err := owned.OpenInputWithin(root, filepath.FromSlash(p), dirs[p])
		if err != nil {
			return 0, err
		}
		defer f.Close()
		info, err := audio.Probe(owned.HandlePath(f))
		if err != nil {
			return 0, err
		}
		return info.Duration.Seconds(), nil
	}
}

// checkPaths refuses a plan that would touch a path voxform does not own,
// as the file system resolves it now.
func (w *Workspace) checkPaths(p *planner.Plan) error {
	root, err := owned.Open(w.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := p.CheckPaths(root.Check); err != nil {
		return advise(fmt.Errorf("plan: %w", err), "voxform writes, moves and deletes only its own outputs inside the manifest directory")
	}
	return nil
}

// Replan checks the saved plan (named name in messages) against the locked
// state and m, the manifest loaded with the saved plan's variables, and
// computes the plan again with its options: the saved plan is refused
// unless the fresh one does exactly the same (planner.CompareSaved). The
// budget is checked again on the way. It returns the fresh plan, to run.
// It consumes m's syntheses, as Plan does.
func (s *Session) Replan(ctx context.Context, name string, saved *planner.SavedPlan, m *manifest.Manifest) (*planner.Plan, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	again := "run 'voxform plan -out " + name + "' again"
	if err := saved.Check(s.st, m); err != nil {
		return nil, advise(fmt.Errorf("%s: %w", name, err), again)
	}
	fresh, err := s.Plan(ctx, m, saved.Plan.Options)
	if err != nil {
		return fresh, err
	}
	if err := planner.CompareSaved(fresh, saved.Plan); err != nil {
		return nil, advise(fmt.Errorf("%s: %w", name, err), again)
	}
	return fresh, nil
}

// Apply carries out p, recording each result as it completes, then saves
// the state and settles the hash cache (state.HashCache.Settle). opts gives the service client, parallelism, stop channel,
// events and limiter; the workspace fills in its directory, recorder and
// hash cache.
func (s *Session) Apply(ctx context.Context, p *planner.Plan, opts executor.Options) (*executor.Summary, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	opts.Dir, opts.Recorder, opts.Hashes, opts.Cache = s.ws.Dir, s.rec, s.cache, s.outputs
	var takes *state.TakesJournal
	opts.Recorded, takes = journalTakes(s.ws.Dir, opts.Recorded, opts.Events, opts.Now)
	defer takes.Close()
	// The state as read (the plan's) is not read again: its resources
	// that apply replaces are let go of as they are.
	s.st = nil
	lost, stopWatch := s.watchLock(&opts)
	summary, err := executor.Apply(ctx, p, opts)
	stopWatch()
	if err != nil {
		return nil, err
	}
	if err := s.rec.Close(); err != nil {
		return summary, fmt.Errorf("save state: %w", err)
	}
	// The outputs just written are hashed again once their racy window
	// has passed, so that the plan a CI job runs next reads none of them.
	// A failure costs that plan only time.
	s.cache.Settle(ctx)
	if err := lost(); err != nil {
		return summary, advise(fmt.Errorf("apply stopped: %w", err),
			"what was done is recorded; run apply again once the state's database is reachable")
	}
	return summary, nil
}

// watchLock makes opts.Stop also close when the session's lock is lost
// (a pg backend's connection or lease gone), so that apply starts nothing
// new and records what is in flight while the lease lets it. lost reports
// the loss, if any; stop ends the watch.
func (s *Session) watchLock(opts *executor.Options) (lost func() error, stop func()) {
	w, ok := s.lock.(state.Watched)
	if !ok {
		return func() error { return nil }, func() {}
	}
	merged := make(chan struct{})
	done := make(chan struct{})
	orig := opts.Stop
	go func() {
		select {
		case <-orig:
		case <-w.Lost():
		case <-done:
			return
		}
		close(merged)
	}()
	opts.Stop = merged
	var once sync.Once
	return w.LostErr, func() { once.Do(func() { close(done) }) }
}
