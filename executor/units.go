package executor

import (
	"context"
	"fmt"
	"sort"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// units turns the plan's actions into schedulable units: one per action,
// except that batch transcriptions of one block are sent together as batch
// jobs, and pending batch jobs are resumed one unit per job.
func (x *run) units(plan *planner.Plan) ([]unit, error) {
	unitOf := map[string]string{} // address -> unit id
	var units []unit
	groups := map[string][]*planner.Action{}
	var groupIDs []string
	addGroup := func(id string, a *planner.Action) {
		if _, ok := groups[id]; !ok {
			groupIDs = append(groupIDs, id)
		}
		groups[id] = append(groups[id], a)
		unitOf[a.Address] = id
	}
	for _, a := range plan.Actions {
		if a.Refused != "" {
			unitOf[a.Address] = a.Address
			x.members[a.Address] = []string{a.Address}
			units = append(units, unit{id: a.Address, run: x.refuse(a)})
			continue
		}
		if id, ok := batchGroup(a); ok {
			addGroup(id, a)
			continue
		}
		op, err := x.operation(a)
		if err != nil {
			return nil, err
		}
		unitOf[a.Address] = a.Address
		x.members[a.Address] = []string{a.Address}
		units = append(units, unit{id: a.Address, run: op})
	}
	sort.Strings(groupIDs)
	for _, id := range groupIDs {
		acts := groups[id]
		for _, a := range acts {
			x.members[id] = append(x.members[id], a.Address)
		}
		units = append(units, unit{id: id, run: x.batchOperation(id, acts)})
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

// batchGroup returns the unit a batch transcription action belongs to:
// creations, replacements and paid repairs of one block go to the service
// together; a resumed job is its own unit.
func batchGroup(a *planner.Action) (string, bool) {
	if kindOf(a) != manifest.KindTranscription {
		return "", false
	}
	if a.Type == planner.Resume && a.Prior != nil {
		return "job " + a.Prior.JobAPI + " " + a.Prior.JobID, true
	}
	t := a.Desired
	if t == nil || t.Transcription == nil {
		return "", false
	}
	switch a.Type {
	case planner.Create, planner.Replace:
	case planner.Repair:
		if a.RenderFrom != "" {
			return "", false
		}
	default:
		return "", false
	}
	switch t.Transcription.API {
	case manifest.APIBatch, manifest.APIBatchLegacy:
		return t.Transcription.API + " " + t.Block, true
	}
	return "", false
}

// operation returns the work of a single-resource action.
func (x *run) operation(a *planner.Action) (func(context.Context, *slot) error, error) {
	wrap := func(op func(context.Context, *planner.Action, *slot) (result, error)) func(context.Context, *slot) error {
		return func(ctx context.Context, sl *slot) error {
			start := x.opts.Now()
			x.emit(Event{Kind: EventStart, Address: a.Address, Action: string(a.Type)})
			res, err := op(x.traced(ctx, a.Address), a, sl)
			elapsed := x.opts.Now().Sub(start)
			if err != nil {
				x.fail(a.Address, string(a.Type), elapsed, err)
				return &unitError{n: 1}
			}
			x.done(a.Address, string(a.Type), res.outputs, elapsed, res.chars, res.seconds, res.jobID)
			return nil
		}
	}
	switch a.Type {
	case planner.Delete:
		return wrap(x.delete), nil
	case planner.Move:
		return wrap(x.move), nil
	}
	switch kindOf(a) {
	case manifest.KindSynthesis:
		return wrap(x.synthesize), nil
	case manifest.KindEmbedding:
		return wrap(x.embed), nil
	case manifest.KindTranscription:
		if a.Type == planner.Repair && a.RenderFrom != "" {
			return wrap(x.render), nil
		}
		return wrap(x.transcribe), nil
	}
	return nil, fmt.Errorf("apply: %s: no way to %s a %s", a.Address, a.Type, kindOf(a))
}

// refuse fails an action the plan refused, calling nothing.
func (x *run) refuse(a *planner.Action) func(context.Context, *slot) error {
	return func(context.Context, *slot) error {
		x.fail(a.Address, string(a.Type), 0, fmt.Errorf("refusing to %s: %s; move it away, or plan and apply with -overwrite to replace it", a.Type, a.Refused))
		return &unitError{n: 1}
	}
}

// result is what one resource's operation produced.
type result struct {
	outputs []state.Output
	chars   int64
	seconds float64
	jobID   string
}
