package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
)

// Options configure Apply.
type Options struct {
	// ListenVerdicts, when set, lists the failing listening checks and
	// seams of the state at the end of the apply, at the manifest's
	// current limits (workspace.ListenVerdicts): the summary's
	// ListenFailed. Without it, the verdicts the state records.
	ListenVerdicts func(*state.File) ([]ListenFailure, int)
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
	// loopback address (zero: 50 ms). Against any other service, and with
	// DocumentedPolling, the documented minimums (10 s, 30 s for 100 or
	// more files, 60 s for the older batch API) hold; PollInterval can only
	// lengthen them.
	PollInterval time.Duration
	// DocumentedPolling polls a service on a loopback address at the
	// documented intervals too, as any other service is polled: an
	// emulator standing in for the real service (a benchmark) is then
	// asked exactly as often as the service would be.
	DocumentedPolling bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Hashes, when set, learns the hash of every output written, so that
	// the next plan need not hash it again.
	Hashes *state.HashCache
	// Cache, when set, keeps every output made by fingerprint (and pushes
	// it to its remote), and is where Restore actions take theirs from.
	Cache *cache.Cache
	// Limiter, when set, is the Limiter whose Transport carries Client's
	// HTTP requests. WebSocket sessions (synthesis and realtime
	// recognition), which do not go through that transport, acquire it
	// too, so requests_per_second and -parallelism bound every request;
	// the summary reports how low 429s drove the concurrency.
	Limiter *Limiter
	// Encoder is the outside encoder delivery profiles use for MP3, AAC
	// and Opus (audio/encode's ffmpeg); nil: none (the plan refuses the
	// profiles that need one).
	Encoder master.Encoder
	// Books writes packages' M4B and MP3 files (audio/encode's ffmpeg);
	// nil: none (the plan refuses packages that need it).
	Books Bookmaker
	// MeasureLoudness measures the loudness of every audio output a
	// synthesis writes, from its bytes as they are written, and records
	// it with the output (state.Output.Loudness). cli sets it when the
	// manifest declares loudness: (the limits verify -loudness checks):
	// measuring is a fifth of an apply's CPU, and without it verify
	// -loudness and report -loudness measure the files when they run.
	MeasureLoudness bool
	// Recorded, when set, is told of every complete resource an
	// operation recorded with its outputs (res), and of what the state
	// recorded before (prior, nil when nothing): the takes journal. It is
	// called from several goroutines.
	Recorded func(addr string, prior, res *state.Resource)
}

// ErrInterrupted is wrapped by errors of work cut short by a stop request.
var ErrInterrupted = errors.New("interrupted")

// run is one Apply in progress: it schedules the plan's units and accounts
// for what became of every resource. The work itself is the operations'
// (see operations).
type run struct {
	opts  Options
	stops stopper

	mu      sync.Mutex
	summary Summary
	// seams are the seam limits of the chunked syntheses with listen:
	// this apply works on, by address (see listenFailures).
	seams map[string]manifest.Seams
}

// Apply runs the plan: every action in dependency order with
// opts.Parallelism workers. A failed action does not stop independent ones;
// its dependents are skipped. Completed work is recorded as it completes.
// The returned summary lists every failure with its address.
func Apply(ctx context.Context, plan *planner.Plan, opts Options) (*Summary, error) {
	if opts.Client == nil && plan.CallsService() {
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
	x := &run{opts: opts, stops: stopper{stop: opts.Stop, breaker: breakerOf(opts.Client)}, seams: seamLimits(plan)}
	start := opts.Now()
	sweepTemps(root, outputPaths(plan))
	state.SweepUnredactedTemps(opts.Dir)
	ops := newOperations(ctx, opts, plan, root, x.stops, x)
	units, err := x.units(plan, ops)
	if err != nil {
		return nil, err
	}
	x.emit(Event{Kind: EventApplyStart, Total: len(plan.Actions)})
	// Orphans of a process that died are cancelled before anything else;
	// this run's own, once every create call has returned.
	x.sweepOrphans(ctx, ops.orphans)
	err = runGraph(ctx, opts.Stop, x.stops.breaker.Open(), opts.Parallelism, units, x.unitDone)
	x.sweepOrphans(ctx, ops.orphans)
	ops.files.kept.wait() // outputs made are pushed before the apply ends
	s := x.finish(ctx, start)
	return s, err
}

// breakerOf is the client's breaker (nil, which never opens, without one).
func breakerOf(c *speechapi.Client) *speechapi.Breaker {
	if c == nil {
		return nil
	}
	return c.Breaker()
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
		if o.halted && x.stops.breaker.Err() != nil {
			why = notStarted
		}
		for _, addr := range o.addresses() {
			x.skip(addr, why)
		}
	case o.err != nil:
		var ue *unitError
		if !errors.As(o.err, &ue) { // per-address failures were reported already
			for _, addr := range o.addresses() {
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

// done accounts for the completed action a.
func (x *run) done(a *planner.Action, r result, elapsed time.Duration) {
	var bytes int64
	for _, o := range r.outputs {
		bytes += o.Size
	}
	x.mu.Lock()
	x.summary.Done++
	x.mu.Unlock()
	x.billed(r)
	x.emit(Event{Kind: EventDone, Address: a.Address, Action: string(a.Type), Outputs: r.outputs, Bytes: bytes, Elapsed: elapsed, JobID: r.jobID})
}

// billed accounts for what r's work was billed.
func (x *run) billed(r result) {
	x.mu.Lock()
	x.summary.BilledCharacters += r.chars
	x.summary.BilledAudioSeconds += r.seconds
	x.summary.Takes += r.takes
	x.mu.Unlock()
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
	x.failed(addr, action, elapsed, err)
}

// failed accounts for addr as failed with err, whatever err wraps.
func (x *run) failed(addr, action string, elapsed time.Duration, err error) {
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

// warn reports a problem that does not fail the apply.
func (x *run) warn(err error) {
	x.mu.Lock()
	x.summary.Warnings = append(x.summary.Warnings, err.Error())
	x.mu.Unlock()
	x.emit(Event{Kind: EventWarning, Err: err})
}

// sweepOrphans runs the orphan sweep and accounts for what it found.
func (x *run) sweepOrphans(ctx context.Context, o *orphans) {
	cancelled, warnings := o.sweep(ctx)
	for _, err := range warnings {
		x.warn(err)
	}
	if cancelled > 0 {
		x.mu.Lock()
		x.summary.OrphansCancelled += cancelled
		x.mu.Unlock()
		x.emit(Event{Kind: EventOrphansCancelled, Count: cancelled})
	}
}

func (x *run) finish(ctx context.Context, start time.Time) *Summary {
	x.mu.Lock()
	s := x.summary
	x.mu.Unlock()
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Address < s.Failures[j].Address })
	select {
	case <-x.opts.Stop:
		s.Interrupted = true
	default:
	}
	if ctx.Err() != nil {
		s.Interrupted = true
	}
	s.ServiceDown = x.stops.breaker.Err()
	if l := x.opts.Limiter; l != nil && l.Lowest() < l.Max() {
		s.LowestConcurrency = l.Lowest()
	}
	if v := x.opts.ListenVerdicts; v != nil {
		x.opts.Recorder.Read(func(st *state.File) { s.ListenFailed, s.ListenFailing = v(st) })
	} else {
		x.opts.Recorder.Read(func(st *state.File) { s.ListenFailed, s.ListenFailing = listenFailures(st, x.seams) })
	}
	s.Elapsed = x.opts.Now().Sub(start)
	x.emit(Event{Kind: EventApplyDone, Summary: &s})
	return &s
}

// stopper is what ends an apply early for work that runs long inside one
// unit (a batch job): a stop request, or the service appearing down (its
// breaker, nil for none). Cancellation is the context's.
type stopper struct {
	stop    <-chan struct{}
	breaker *speechapi.Breaker
}

// stopped reports whether a stop was requested, the service appears down
// or ctx is cancelled.
func (s stopper) stopped(ctx context.Context) bool {
	select {
	case <-s.stop:
		return true
	default:
		return s.breaker.Err() != nil || ctx.Err() != nil
	}
}

// pause waits for d, or until a stop request, the service appearing down
// or cancellation.
func (s stopper) pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.stop:
		return ErrInterrupted
	case <-s.breaker.Open():
		return ErrInterrupted
	case <-ctx.Done():
		return ctx.Err()
	}
}

// traced returns ctx with the client's retries of its calls reported
// through emit as EventRetry for addr.
func traced(ctx context.Context, emit func(Event), addr string) context.Context {
	return speechapi.WithRetryHook(ctx, func(_ int, err error) {
		emit(Event{Kind: EventRetry, Address: addr, Err: err})
	})
}

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
