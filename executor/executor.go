package executor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// Options configure Apply.
type Options struct {
	// Dir is the manifest directory; every path of the plan is relative to it.
	Dir string
	// Client calls the speech service.
	Client *speechapi.Client
	// Recorder records every completed operation (and every batch job id
	// the moment it exists) through the state journal.
	Recorder *state.Recorder
	// Parallelism is the number of operations calling the service at once
	// (0: 4). An operation whose calls are done writes, syncs and records
	// its output without holding a slot, so as many more may be finishing.
	Parallelism int
	// Stop, when closed, starts nothing new: in-flight calls finish and are
	// recorded; batch jobs stop being polled and stay pending (first Ctrl-C).
	// Cancelling ctx cancels in-flight calls (second Ctrl-C). The Client's
	// Breaker, when it opens (the service appears down), stops the apply
	// the same way.
	Stop <-chan struct{}
	// Events receives progress reports; nil discards them. It is called
	// from several goroutines.
	Events func(Event)
	// PollInterval overrides the batch polling interval of a service on a
	// loopback address (zero: 50 ms). Against any other service the
	// documented minimums (10 s, 30 s for 100 or more files, 60 s for the
	// older batch API) hold; PollInterval can only lengthen them.
	PollInterval time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Cache, when set, learns the hash of every output written, so that
	// the next plan need not hash it again.
	Cache *state.HashCache
	// Limiter, when set, is the Limiter whose Transport carries Client's
	// HTTP requests. WebSocket sessions (synthesis and realtime
	// recognition), which do not go through that transport, acquire it
	// too, so requests_per_second and -parallelism bound every request;
	// the summary reports how low 429s drove the concurrency.
	Limiter *Limiter
}

// ErrInterrupted is wrapped by errors of work cut short by a stop request.
var ErrInterrupted = errors.New("interrupted")

// run is one Apply in progress.
type run struct {
	opts Options
	ctx  context.Context
	root *owned.Root // the manifest directory: every write goes through it

	// members lists the addresses each unit works on.
	members map[string][]string

	mu      sync.Mutex
	summary Summary
	// intentEnds holds when the create call of each of this run's job
	// intents returned; recordedJobs the job ids this run recorded.
	intentEnds   map[string]time.Time
	recordedJobs map[string]bool
	// sweepBroken is set once the jobs listing failed: the intents stay
	// for a later apply and this one does not ask again.
	sweepBroken bool
}

// Apply runs the plan: every action in dependency order with
// opts.Parallelism workers. A failed action does not stop independent ones;
// its dependents are skipped. Completed work is recorded as it completes.
// The returned summary lists every failure with its address.
func Apply(ctx context.Context, plan *planner.Plan, opts Options) (*Summary, error) {
	if opts.Client == nil && needsService(plan) {
		return nil, errors.New("apply: no service client")
	}
	if opts.Recorder == nil {
		return nil, errors.New("apply: no state recorder")
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = 4
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Events == nil {
		opts.Events = func(Event) {}
	}
	root, err := owned.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Every path is checked as the file system resolves it now, before
	// anything runs; each write then goes through a checked directory handle.
	if err := plan.CheckPaths(root.Check); err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	x := &run{opts: opts, ctx: ctx, root: root, members: map[string][]string{}, intentEnds: map[string]time.Time{}, recordedJobs: map[string]bool{}}
	start := opts.Now()
	sweepTemps(root, outputPaths(plan))
	units, err := x.units(plan)
	if err != nil {
		return nil, err
	}
	x.emit(Event{Kind: EventApplyStart, Total: len(plan.Actions)})
	// Orphans of a process that died are cancelled before anything else;
	// this run's own, once every create call has returned.
	x.sweepOrphans(ctx)
	err = runGraph(ctx, opts.Stop, x.breaker().Open(), opts.Parallelism, units, x.unitDone)
	x.sweepOrphans(ctx)
	s := x.finish(start)
	return s, err
}

func needsService(plan *planner.Plan) bool {
	for _, a := range plan.Actions {
		switch a.Type {
		case planner.Create, planner.Replace, planner.Resume:
			return true
		case planner.Repair:
			if a.RenderFrom == "" {
				return true
			}
		}
	}
	return false
}

// emit stamps and sends an event.
func (x *run) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = x.opts.Now()
	}
	x.opts.Events(e)
}

// unitDone accounts for a unit's outcome. Units report each address's own
// success or failure through done/fail; what is left here are units that
// never ran, and the error of a unit as a whole.
func (x *run) unitDone(o outcome) {
	switch {
	case o.skipped != "":
		why := o.skipped
		if o.halted && x.breaker().Err() != nil {
			why = notStarted
		}
		for _, addr := range x.members[o.id] {
			x.skip(addr, why)
		}
	case o.err != nil:
		var ue *unitError
		if !errors.As(o.err, &ue) { // per-address failures were reported already
			for _, addr := range x.members[o.id] {
				x.fail(addr, "", 0, o.err)
			}
		}
	}
}

// notStarted is why work is skipped once the breaker opened; the summary
// names the host and the last failure.
const notStarted = "not started: the service appears down"

// unitError marks a unit's error as already reported per address.
type unitError struct{ n int }

func (e *unitError) Error() string { return fmt.Sprintf("%d resource(s) failed", e.n) }

func (x *run) done(addr, action string, outs []state.Output, elapsed time.Duration, billedChars int64, billedSecs float64, jobID string) {
	var bytes int64
	for _, o := range outs {
		bytes += o.Size
	}
	x.mu.Lock()
	x.summary.Done++
	x.summary.BilledCharacters += billedChars
	x.summary.BilledAudioSeconds += billedSecs
	x.mu.Unlock()
	x.emit(Event{Kind: EventDone, Address: addr, Action: action, Outputs: outs, Bytes: bytes, Elapsed: elapsed, JobID: jobID})
}

func (x *run) fail(addr, action string, elapsed time.Duration, err error) {
	var down *speechapi.DownError
	if errors.As(err, &down) {
		x.skip(addr, notStarted) // refused before anything was sent
		return
	}
	if errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled) {
		x.skip(addr, err.Error())
		return
	}
	x.mu.Lock()
	x.summary.Failed++
	x.summary.Failures = append(x.summary.Failures, Failure{Address: addr, Err: err})
	x.mu.Unlock()
	x.emit(Event{Kind: EventFailed, Address: addr, Action: action, Elapsed: elapsed, Err: err})
}

func (x *run) skip(addr, why string) {
	x.mu.Lock()
	x.summary.Skipped++
	x.mu.Unlock()
	x.emit(Event{Kind: EventSkipped, Address: addr, Reason: why})
}

func (x *run) finish(start time.Time) *Summary {
	x.mu.Lock()
	s := x.summary
	x.mu.Unlock()
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Address < s.Failures[j].Address })
	select {
	case <-x.opts.Stop:
		s.Interrupted = true
	default:
	}
	if x.ctx.Err() != nil {
		s.Interrupted = true
	}
	s.ServiceDown = x.breaker().Err()
	if l := x.opts.Limiter; l != nil && l.Lowest() < l.Max() {
		s.LowestConcurrency = l.Lowest()
	}
	s.Elapsed = x.opts.Now().Sub(start)
	x.emit(Event{Kind: EventApplyDone, Summary: &s})
	return &s
}

// stopped reports whether a stop was requested or the service appears
// down.
func (x *run) stopped() bool {
	select {
	case <-x.opts.Stop:
		return true
	default:
		return x.breaker().Err() != nil || x.ctx.Err() != nil
	}
}

// breaker is the client's breaker (nil, which never opens, without one).
func (x *run) breaker() *speechapi.Breaker {
	if x.opts.Client == nil {
		return nil
	}
	return x.opts.Client.Breaker()
}

// session runs one WebSocket session under the limiter (a session does not
// go through the HTTP transport the limiter otherwise decorates).
func (x *run) session(ctx context.Context, call func() error) error {
	if x.opts.Limiter == nil {
		return call()
	}
	release, err := x.opts.Limiter.Acquire(ctx)
	if err != nil {
		return err
	}
	err = call()
	release(err)
	return err
}

// traced returns ctx with the client's retries of its calls reported as
// EventRetry for addr.
func (x *run) traced(ctx context.Context, addr string) context.Context {
	return speechapi.WithRetryHook(ctx, func(_ int, err error) {
		x.emit(Event{Kind: EventRetry, Address: addr, Err: err})
	})
}

// abs returns the absolute path of a manifest-relative path (for reading
// inputs; outputs are written through x.root).
func (x *run) abs(rel string) string { return filepath.Join(x.opts.Dir, filepath.FromSlash(rel)) }

// outputPaths lists the paths the plan writes or had recorded, for sweeping
// temporary files a killed apply left beside them.
func outputPaths(plan *planner.Plan) []string {
	var out []string
	for _, a := range plan.Actions {
		if a.Desired != nil {
			for _, o := range a.Desired.Outputs {
				out = append(out, o.Path)
			}
		}
		if a.Prior != nil {
			for _, o := range a.Prior.Outputs {
				out = append(out, o.Path)
			}
		}
	}
	return out
}

// kindOf returns the manifest kind of an action.
func kindOf(a *planner.Action) manifest.Kind {
	if a.Desired != nil {
		return a.Desired.Kind
	}
	if a.Prior != nil {
		return manifest.Kind(a.Prior.Kind)
	}
	return ""
}
