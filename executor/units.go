package executor

import (
	"context"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// operation is the work of one resource's action. It releases sl once its
// calls to the service are done (see slot) and returns what it recorded;
// the unit that runs it reports the start, the outcome and the time taken.
type operation interface {
	apply(ctx context.Context, a *planner.Action, sl *slot) (result, error)
}

// result is what one resource's operation produced.
type result struct {
	outputs []state.Output
	chars   int64
	seconds float64
	jobID   string
	// takes counts the takes made beyond the first (regeneration).
	takes int
	// checkErr is why a declared listening check was not made of an
	// output recorded without it (see unchecked): the resource is
	// recorded and billed, and fails.
	checkErr error
}

// reporter accounts for resources: the run implements it, and a unit
// that works on many resources (a batch job) reports each one's start and
// outcome through it.
type reporter interface {
	emit(Event)
	done(a *planner.Action, r result, elapsed time.Duration)
	fail(addr, action string, elapsed time.Duration, err error)
	skip(addr, why string)
}

// operations are the operations of one apply, one per kind of work, each
// given what it needs.
type operations struct {
	synthesis     *synthesisOp
	embedding     *embeddingOp
	transcription *transcriptionOp
	render        *renderOp
	restore       *restoreOp
	recorded      *recordedOp
	move          *moveOp
	delete        *deleteOp
	batch         *batchOp
	// files is the manifest directory every operation works in.
	files *outputs
	// orphans is the batch operation's orphan sweep, which also runs
	// before and after the graph.
	orphans *orphans
	// deliver makes the delivered outputs of syntheses after their work.
	deliver *deliverOp
	// pkg makes packages' files.
	pkg *packageOp
}

// newOperations builds the operations of an apply of plan with opts over
// the manifest directory root: what stops a batch job early is stops, each
// resource of a batch unit is accounted for by report, and pushes to the
// remote cache run under ctx.
func newOperations(ctx context.Context, opts Options, plan *planner.Plan, root *owned.Root, stops stopper, report reporter) *operations {
	ws := &outputs{dir: opts.Dir, root: root, recorder: opts.Recorder, cache: opts.Hashes, emit: report.emit,
		kept: newKeeper(ctx, opts.Cache, opts.Dir, report.emit, plan), onRecord: opts.Recorded, loudness: opts.MeasureLoudness}
	sweep := newOrphans(opts.Client, opts.Recorder, opts.Now)
	synth := &synthesisOp{client: opts.Client, sessions: opts.Limiter, files: ws, parallelism: opts.Parallelism, stops: stops,
		listen: &listener{client: opts.Client, emit: report.emit}}
	ops := &operations{
		synthesis:     synth,
		embedding:     &embeddingOp{client: opts.Client, files: ws},
		transcription: &transcriptionOp{client: opts.Client, sessions: opts.Limiter, files: ws},
		render:        &renderOp{files: ws},
		restore:       &restoreOp{files: ws, checks: synth},
		move:          &moveOp{files: ws, now: opts.Now},
		delete:        &deleteOp{client: opts.Client, files: ws},
		batch: &batchOp{
			client:          opts.Client,
			files:           ws,
			report:          report,
			stops:           stops,
			now:             opts.Now,
			pollOverride:    opts.PollInterval,
			documentedPolls: opts.DocumentedPolling,
			parallelism:     opts.Parallelism,
			orphans:         sweep,
		},
		orphans: sweep,
		files:   ws,
		deliver: &deliverOp{files: ws, enc: opts.Encoder, synth: synth},
		pkg:     &packageOp{files: ws, enc: opts.Encoder, books: opts.Books},
	}
	// Before the first orphan sweep: the check jobs its journal records
	// are never orphans.
	ops.recorded = &recordedOp{files: ws, checks: ops.restore, enc: opts.Encoder}
	synth.listen.batcher = checkBatcherOf(ctx, ops.batch)
	return ops
}

// of returns the operation of a single-resource action: a synthesis
// with delivered outputs has them made after it (deliverOp).
func (ops *operations) of(a *planner.Action) (operation, error) {
	op, err := ops.base(a)
	if err != nil || !delivers(a) {
		return op, err
	}
	return delivering{op: op, d: ops.deliver}, nil
}

// base returns the operation of a single-resource action, its delivered
// outputs aside (nil for a Remaster: it has nothing else).
func (ops *operations) base(a *planner.Action) (operation, error) {
	switch a.Type {
	case planner.Remaster:
		if kindOf(a) == manifest.KindPackage {
			return ops.pkg, nil
		}
		if !delivers(a) {
			return nil, fmt.Errorf("apply: %s: remaster of a resource without delivered outputs", a.Address)
		}
		return nil, nil
	case planner.Delete:
		return ops.delete, nil
	case planner.Move:
		return ops.move, nil
	case planner.Restore:
		if listenChunks(a) {
			return ops.synthesis, nil
		}
		return ops.restore, nil
	case planner.Check:
		return ops.synthesis, nil
	}
	switch kindOf(a) {
	case manifest.KindSynthesis:
		if a.Desired.Details().Recorded != nil {
			return ops.recorded, nil
		}
		return ops.synthesis, nil
	case manifest.KindEmbedding:
		return ops.embedding, nil
	case manifest.KindPackage:
		return ops.pkg, nil
	case manifest.KindTranscription:
		if a.Type == planner.Repair && a.Details().RenderFrom != "" {
			return ops.render, nil
		}
		return ops.transcription, nil
	}
	return nil, fmt.Errorf("apply: %s: no way to %s a %s", a.Address, a.Type, kindOf(a))
}

// group is the unit of batch transcriptions sent or followed together.
type group struct {
	actions []*planner.Action
	// resume is set for the group of one pending batch job an earlier
	// apply recorded; otherwise the group is a block's transcriptions, for
	// new batch jobs.
	resume bool
}

// units turns the plan's actions into schedulable units: one per action,
// except that batch transcriptions of one block are sent together as batch
// jobs, and pending batch jobs are resumed one unit per job.
func (x *run) units(plan *planner.Plan, ops *operations) ([]*unit, error) {
	unitOf := map[string]string{}                // address -> unit id
	units := make([]*unit, 0, len(plan.Actions)) // each let go of as it finishes (see runGraph)
	groups := map[string]*group{}
	var groupIDs []string
	for _, a := range plan.Actions {
		if a.Details().Refused != "" {
			unitOf[a.Address] = a.Address
			units = append(units, &unit{id: a.Address, run: x.refuse(a)})
			continue
		}
		if id, resume, ok := batchGroup(a); ok {
			g := groups[id]
			if g == nil {
				g = &group{resume: resume}
				groups[id] = g
				groupIDs = append(groupIDs, id)
			}
			g.actions = append(g.actions, a)
			unitOf[a.Address] = id
			continue
		}
		op, err := ops.of(a)
		if err != nil {
			return nil, err
		}
		unitOf[a.Address] = a.Address
		units = append(units, &unit{id: a.Address, run: x.single(a, op), dir: outputDir(a)})
	}
	sort.Strings(groupIDs)
	for _, id := range groupIDs {
		g := groups[id]
		members := make([]string, len(g.actions))
		for i, a := range g.actions {
			members[i] = a.Address
		}
		units = append(units, &unit{id: id, run: ops.batch.unit(g), members: members})
	}
	// Dependencies between units follow the actions' dependencies.
	depsOf := map[string]map[string]bool{}
	for _, a := range plan.Actions {
		u := unitOf[a.Address]
		for _, d := range a.DependsOn {
			if du, ok := unitOf[d]; ok && du != u {
				if depsOf[u] == nil {
					depsOf[u] = map[string]bool{}
				}
				depsOf[u][du] = true
			}
		}
	}
	for i := range units {
		for d := range depsOf[units[i].id] {
			units[i].deps = append(units[i].deps, d)
		}
		sort.Strings(units[i].deps)
	}
	return units, nil
}

// batchGroup returns the unit a batch transcription action belongs to, and
// whether that unit resumes a pending job: creations, replacements and
// paid repairs of one block go to the service together; a resumed job is
// its own unit.
func batchGroup(a *planner.Action) (id string, resume, ok bool) {
	if kindOf(a) != manifest.KindTranscription {
		return "", false, false
	}
	if a.Type == planner.Resume && a.Prior != nil {
		return "job " + a.Prior.Details().JobAPI + " " + a.Prior.Details().JobID, true, true
	}
	t := a.Desired
	if t == nil || t.Details().Transcription == nil {
		return "", false, false
	}
	switch a.Type {
	case planner.Create, planner.Replace:
	case planner.Repair:
		if a.Details().RenderFrom != "" {
			return "", false, false
		}
	default:
		return "", false, false
	}
	switch t.Details().Transcription.API {
	case manifest.APIBatch, manifest.APIBatchLegacy:
		return t.Details().Transcription.API + " " + t.Block, false, true
	}
	return "", false, false
}

// single is the unit of a single-resource action: op's work, reported.
func (x *run) single(a *planner.Action, op operation) func(context.Context, *slot) error {
	return func(ctx context.Context, sl *slot) error {
		start := x.opts.Now()
		x.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type)})
		if a.Desired != nil {
			// What will be recorded is checked before anything is paid for.
			if err := a.Desired.CheckRequest(); err != nil {
				x.fail(a.Address, string(a.Type), 0, err)
				return &unitError{n: 1}
			}
		}
		res, err := op.apply(traced(ctx, x.emit, a.Address), a, sl)
		elapsed := x.opts.Now().Sub(start)
		if err != nil {
			x.fail(a.Address, string(a.Type), elapsed, err)
			return &unitError{n: 1}
		}
		if res.checkErr != nil { // recorded and billed: a failure, never a skip
			x.billed(res)
			x.failed(a.Address, string(a.Type), elapsed, res.checkErr)
			return &unitError{n: 1}
		}
		x.done(a, res, elapsed)
		return nil
	}
}

// refuse fails an action the plan refused, calling nothing.
func (x *run) refuse(a *planner.Action) func(context.Context, *slot) error {
	return func(context.Context, *slot) error {
		x.fail(a.Address, string(a.Type), 0, fmt.Errorf("refusing to %s: %s; move it away, or plan and apply with -overwrite to replace it", a.Type, a.Details().Refused))
		return &unitError{n: 1}
	}
}

// outputDir is the directory of a's first output ("" when it writes none):
// see unit.dir.
func outputDir(a *planner.Action) string {
	if a.Desired == nil || len(a.Desired.Outputs) == 0 {
		return ""
	}
	return path.Dir(a.Desired.Outputs[0].Path)
}
