package planner

import (
	"fmt"

	"github.com/voxform/voxform/manifest"
)

// restore turns each action that would bill for outputs the cache holds
// into a free Restore: a create, a replace, or a repair that is not
// rendered from a recorded transcript. A replacement forced with -replace
// is the work asked for again, never a restore. The cache is asked once,
// for every such fingerprint. A resource whose request depends on an output of this
// plan (a vc-v1 synthesis whose embedding is made first) has no final
// fingerprint yet and is left as it is.
func (c *computer) restore() error {
	if c.in.Cached == nil {
		return nil
	}
	var fps []string
	var candidates []*Action
	for _, a := range c.actions {
		if restorable(a) && !c.replace[a.Address] { // -replace asks for the work again
			fps = append(fps, a.Desired.Fingerprint)
			candidates = append(candidates, a)
		}
	}
	if len(fps) == 0 {
		return nil
	}
	where, err := c.in.Cached(fps)
	if err != nil {
		return fmt.Errorf("look up the cache: %w", err)
	}
	for _, a := range candidates {
		if from, ok := where[a.Desired.Fingerprint]; ok {
			a.Type, a.RestoreFrom, a.Cost = Restore, from, Cost{}
		}
	}
	return nil
}

// restorable reports whether the outputs of a could come from the cache.
func restorable(a *Action) bool {
	switch {
	case a.Desired == nil || a.Desired.Fingerprint == "" || a.Desired.Kind == manifest.KindVoice:
		return false
	case a.Type == Create, a.Type == Replace:
	case a.Type == Repair && a.RenderFrom == "" && len(a.Moves) == 0:
	default:
		return false
	}
	if len(a.Desired.Chunks) > 0 && len(a.Desired.Outputs) > 1 {
		// The cue files of a chunked synthesis need its chunks' audio:
		// it is joined again from the chunks the cache holds.
		return false
	}
	for _, src := range a.Desired.Sources {
		if src.From != "" && src.SHA256 == "" {
			return false // made by this plan: the request is not final
		}
	}
	return true
}

// Subset is the plan of the actions keep selects, priced again; what they
// depend on outside it must be done already (a Restore depends on nothing).
func (p *Plan) Subset(keep func(*Action) bool) *Plan {
	sub := &Plan{Options: p.Options, Lineage: p.Lineage, Serial: p.Serial, NoOps: p.NoOps}
	for _, a := range p.Actions {
		if keep(a) {
			sub.Actions = append(sub.Actions, a)
			sub.Cost = sub.Cost.Add(a.Cost)
		}
	}
	return sub
}
