package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Cache is the output cache the session's plan opened (nil: none).
func (s *Session) Cache() *cache.Cache { return s.outputs }

// Pull materialises from the output cache (in mode: planner.CacheOn or
// CacheLocal) every output the plan of m can restore, calling no service:
// on a fresh clone whose state is committed and whose outputs are not,
// every recorded output, the state left as it was. A cached entry whose
// files are not the ones the state records is never written: the plan
// keeps it a billed repair. It returns the summary of the restores and
// the plan of what is left for apply (billed work among it). It consumes
// m's syntheses, as Plan does.
func (s *Session) Pull(ctx context.Context, m *manifest.Manifest, mode string, opts executor.Options) (*executor.Summary, *planner.Plan, error) {
	if mode == planner.CacheOff {
		return nil, nil, errors.New("pull: the cache is off")
	}
	p, err := s.Plan(ctx, m, planner.Options{Cache: mode, Restoring: true})
	if err != nil {
		return nil, nil, err
	}
	restores := withoutChecks(p.Subset(func(a *planner.Action) bool { return a.Type == planner.Restore }))
	left := p.Subset(func(a *planner.Action) bool { return a.Type != planner.Restore })
	opts.Client = nil // nothing here calls the service
	if opts.Parallelism == 0 {
		opts.Parallelism = pullParallelism
	}
	sum, err := s.Apply(ctx, restores, opts)
	return sum, left, err
}

// withoutChecks is p with the listening checks of its actions left out:
// pull calls no service, so a restored take whose check is not recorded
// is restored unchecked, and the next plan makes its check a Check
// action, for apply. A restore that keeps its record keeps the checks
// the record holds.
func withoutChecks(p *planner.Plan) *planner.Plan {
	for i, a := range p.Actions {
		if a.Listen == nil {
			continue
		}
		c := *a
		c.Cost.AudioSeconds -= c.Listen.AudioSeconds
		c.Listen = nil
		if c.Desired != nil {
			d := *c.Desired
			d.Edit().Listen = nil
			c.Desired = &d
		}
		p.Actions[i] = &c
	}
	p.Cost, p.Worst = planner.Cost{}, planner.Cost{}
	for _, a := range p.Actions {
		p.Cost = p.Cost.Add(a.Cost)
	}
	p.Worst = p.Cost
	return p
}

// pullParallelism is how many restores Pull starts at once unless told
// (the executor lets as many more finish their files meanwhile): each
// waits on the remote, then on the disk, not on the service.
const pullParallelism = 16

// PushReport is what Push did.
type PushReport struct {
	// Pushed entries were sent; Present ones the remote had already.
	Pushed, Present int
	// Problems are resources left out, each with why (an output changed
	// since it was recorded, say).
	Problems []error
}

// pushLimit is how many entries Push sends at once.
const pushLimit = 8

// Push sends to the remote cache of m every recorded output the remote
// lacks: each complete resource of the state whose outputs still hold
// what was recorded is kept in the local cache (if it is not already),
// then pushed, under its state.Resource.CacheKey (an imported file under
// its content key, never the request's fingerprint; a take put back
// under the take's own). It needs a remote.
func (w *Workspace) Push(ctx context.Context, m *manifest.Manifest) (PushReport, error) {
	var rep PushReport
	if m.Cache.Remote == "" {
		return rep, advise(errors.New("push: no remote cache"), "set cache.remote in the manifest or VOXFORM_CACHE_REMOTE")
	}
	c, err := w.openCache(ctx, m, planner.CacheOn)
	if err != nil {
		return rep, err
	}
	st, err := w.ReadState(ctx)
	if err != nil {
		return rep, err
	}
	var addrs, fps []string
	for _, addr := range sortedAddrs(st) {
		r := st.Resources[addr]
		if r.Status == state.StatusComplete && r.Fingerprint != "" && len(r.Outputs) > 0 {
			addrs, fps = append(addrs, addr), append(fps, r.CacheKey())
		}
	}
	// What the local cache lacks is kept first, through one batch (its
	// entries written at its close), and pushed from memory.
	local := c.Local.HasEntries(fps)
	batch := c.Local.Batch()
	held := map[string]*cache.Entry{}
	fps = fps[:0]
	for _, addr := range addrs {
		r := st.Resources[addr]
		key := r.CacheKey() // an imported file under its content, a take under its own request
		if !local[key] && held[key] == nil {
			e, paths := executor.Entry(manifest.Kind(r.Kind), key, r, w.Dir)
			if err := batch.Store(e, paths); err != nil {
				rep.Problems = append(rep.Problems, fmt.Errorf("%s: %w", addr, err))
				continue
			}
			held[key] = e
		}
		fps = append(fps, key)
	}
	err = pushMissing(ctx, c, fps, held, &rep)
	if cerr := batch.Close(); cerr != nil {
		rep.Problems = append(rep.Problems, cerr)
	}
	return rep, err
}

// pushMissing sends the entries fps that the remote of c lacks: those of held
// from memory, the others from the local cache.
func pushMissing(ctx context.Context, c *cache.Cache, fps []string, held map[string]*cache.Entry, rep *PushReport) error {
	has, err := c.RemoteHas(ctx, fps)
	if err != nil {
		return err
	}
	var missing []string
	for _, fp := range fps {
		if !has[fp] {
			missing = append(missing, fp)
		}
	}
	if err := c.Announce(ctx, missing); err != nil {
		return err
	}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(pushLimit)
	for _, fp := range fps {
		if has[fp] {
			rep.Present++
			continue
		}
		g.Go(func() error {
			var err error
			if e := held[fp]; e != nil {
				err = c.PushEntry(ctx, e)
			} else {
				err = c.Push(ctx, fp)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Errorf("push %s: %w", fp[:12], err))
			} else {
				rep.Pushed++
			}
			return nil
		})
	}
	g.Wait()
	return ctx.Err()
}

// GCOptions say what the local cache's garbage collection keeps.
type GCOptions struct {
	// Projects are other manifest directories whose states' entries are
	// kept too (the cache is shared by every project of the user).
	Projects []string
	// OlderThan: an entry no state given references is removed only once
	// unused for this long (0: at once).
	OlderThan time.Duration
	DryRun    bool
}

// GC removes from the local cache of m the entries that neither this
// project's state (read from its backend) nor those of opts.Projects
// reference (state.File.Fingerprints: chunks included), and that have not
// been used for opts.OlderThan, then the files no entry references; the
// emulator's local cache (EmulatedCacheDir) likewise, when there is one.
// The remote is never touched.
func (w *Workspace) GC(ctx context.Context, m *manifest.Manifest, opts GCOptions) (cache.GCReport, error) {
	dir, err := CacheDir(m, w.CacheDir)
	if err != nil {
		return cache.GCReport{}, err
	}
	c, err := OpenCache(ctx, m, planner.CacheLocal, dir)
	if err != nil {
		return cache.GCReport{}, err
	}
	keep := map[string]bool{}
	states := []*Workspace{w} // the others on their local state files
	for _, dir := range opts.Projects {
		states = append(states, New(dir))
	}
	for _, ws := range states {
		st, err := ws.ReadState(ctx)
		if err != nil {
			return cache.GCReport{}, fmt.Errorf("gc: state of %s: %w", ws.Dir, err)
		}
		st.Fingerprints(func(fp string) { keep[fp] = true })
	}
	gcOpts := cache.GCOptions{Keep: func(fp string) bool { return keep[fp] },
		OlderThan: opts.OlderThan, Now: time.Now(), DryRun: opts.DryRun}
	rep, err := c.Local.GC(gcOpts)
	if err != nil {
		return rep, err
	}
	erep, err := gcEmulated(filepath.Join(dir, EmulatedCacheDir), gcOpts)
	rep.Entries, rep.Blobs, rep.Segments, rep.Bytes = rep.Entries+erep.Entries, rep.Blobs+erep.Blobs, rep.Segments+erep.Segments, rep.Bytes+erep.Bytes
	return rep, err
}

// gcEmulated collects the emulator's local cache in dir (EmulatedCacheDir)
// as GC collects the service's, when there is one.
func gcEmulated(dir string, opts cache.GCOptions) (cache.GCReport, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return cache.GCReport{}, nil
	}
	l, err := cache.OpenLocal(dir)
	if err != nil {
		return cache.GCReport{}, fmt.Errorf("gc: the emulator's cache: %w", err)
	}
	return l.GC(opts)
}

// openCache opens the output cache of m in mode, its directory from the
// manifest or w.CacheDir. When w.Emulated, it is the emulator's own local
// cache (EmulatedCacheDir below that directory) and never the remote.
func (w *Workspace) openCache(ctx context.Context, m *manifest.Manifest, mode string) (*cache.Cache, error) {
	dir, err := CacheDir(m, w.CacheDir)
	if err != nil {
		return nil, err
	}
	if w.Emulated {
		dir = filepath.Join(dir, EmulatedCacheDir)
		if mode == planner.CacheOn && m.Cache.Remote != "" {
			mode = planner.CacheLocal
			if w.Notify != nil {
				w.Notify("-emulate: the remote output cache is not used: the emulator's outputs are neither looked up in it nor sent to it, and are kept apart from the service's locally")
			}
		}
	}
	return OpenCache(ctx, m, mode, dir)
}

func sortedAddrs(st *state.File) []string {
	out := make([]string, 0, len(st.Resources))
	for a := range st.Resources {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}
