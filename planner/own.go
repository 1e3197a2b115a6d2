package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/state"
)

// checkOwnership decides, for every path an action writes, whether the
// executor may replace a file there. Only voxform's own content may be
// replaced: the file holds what the state recorded at that path for this
// resource, or for a resource of this plan that leaves the path (deleted,
// or moved elsewhere), or what a killed apply wrote there (state.Written).
// Anything else is refused, naming the file, before anything is paid for:
// a file voxform did not make, one changed since voxform wrote it, and the
// output of a resource this plan does not touch (a -target plan). With
// Options.Overwrite such files are replaced, and the plan says which.
// Every action is decided once: actions added later in the plan (a
// package's remaster a chapter's work adds, a listening check) are
// decided when Compute has added them.
func (c *computer) checkOwnership() error {
	if c.ownDecided == nil {
		c.ownDecided = map[*Action]bool{}
	}
	var todo []*Action
	for _, a := range c.actions {
		if !c.ownDecided[a] {
			todo = append(todo, a)
			c.ownDecided[a] = true
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return c.decideOwnership(todo)
}

// decideOwnership is checkOwnership of the actions todo, with the plan's
// actions as they are.
func (c *computer) decideOwnership(todo []*Action) error {
	type record struct{ addr, sha string }
	recorded := map[string][]record{}
	for addr, r := range c.st.Resources {
		for _, o := range r.Outputs {
			recorded[o.Path] = append(recorded[o.Path], record{addr, o.SHA256})
		}
	}
	inPlan := make(map[string]*Action, len(c.actions))
	for _, a := range c.actions {
		inPlan[a.Address] = a
	}
	for _, a := range todo {
		var refused []string
		for _, p := range a.writes() {
			h, err := c.hash(p)
			if err != nil {
				return fmt.Errorf("plan %s: output %s: %w", a.Address, p, err)
			}
			if !h.Exists || a.adopted(p) {
				continue // a free path is written with a rename that replaces nothing
			}
			why := "already exists and voxform did not make it"
			mine := false
			for _, r := range recorded[p] {
				other, planned := inPlan[r.addr]
				switch {
				case r.addr == a.Address && r.sha == h.SHA256:
					mine = true
				case r.addr == a.Address:
					why = "changed since voxform wrote it"
				case planned && r.sha == h.SHA256 && !slices.Contains(other.writes(), p):
					mine = true // that resource leaves the path in this plan
				case !planned && r.sha == h.SHA256:
					why = "holds the output of " + r.addr + ", which this plan does not change"
				}
			}
			if !mine {
				mine = c.writtenHere(p, h.SHA256)
			}
			switch {
			case mine:
				a.overwrite(p, h.SHA256)
			case c.in.Options.Overwrite:
				a.overwrite(p, h.SHA256)
				a.Reasons = append(a.Reasons, fmt.Sprintf("overwrites %s (%s)", p, why))
			default:
				refused = append(refused, p+" "+why)
			}
		}
		if x := a.Details(); !slices.IsSorted(x.Overwrite) {
			a.Edit().Overwrite = slices.Sorted(slices.Values(x.Overwrite))
		}
		if len(refused) > 0 {
			a.Edit().Refused = strings.Join(refused, "; ")
			a.Reasons = append(a.Reasons, "refused: "+a.Details().Refused)
		}
	}
	return nil
}

// adoptWritten finds the output a killed apply renamed into place for
// exactly this request (state.Written, same fingerprint) and still intact,
// and records it as a free move instead of paying for it again. Only
// single-output resources (syntheses, embeddings) are adopted: a
// transcription's record holds what only its answer says (job, file id).
// The old outputs of a replaced resource at other paths are left in place.
func (c *computer) adoptWritten(d *Desired) (*Action, error) {
	if d.Kind == manifest.KindTranscription || len(d.Outputs) != 1 || c.replace[d.Address] {
		return nil, nil
	}
	out := d.Outputs[0]
	for _, w := range c.written[out.Path] {
		if w.Address != d.Address || w.Fingerprint == "" || w.Fingerprint != d.Fingerprint {
			continue
		}
		h, err := c.hash(out.Path)
		if err != nil || !h.Exists || h.SHA256 != w.SHA256 {
			return nil, err
		}
		rec := &state.Resource{Kind: string(d.Kind), Status: state.StatusComplete, Fingerprint: d.Fingerprint,
			Outputs: []state.Output{{Path: w.Path, SHA256: w.SHA256, Size: w.Size}}}
		if d.Details().Recorded != nil {
			rec.Origin = state.OriginRecorded // made from its recording, as the fingerprint says
		}
		req, err := d.RequestJSON()
		if err != nil {
			return nil, err
		}
		rec.SetRequestJSON(req)
		return &Action{Address: d.Address, Type: Move, Desired: d, Prior: rec,
			Reasons: []string{"output written by an interrupted apply: recorded without paying again"}}, nil
	}
	return nil, nil
}

// overwrite lets a replace the file at p while it holds sha.
func (a *Action) overwrite(p, sha string) {
	x := a.Edit()
	x.Overwrite = append(slices.Clip(x.Overwrite), p)
	m := maps.Clone(x.OverwriteSHA256) // what a held before is not written to
	if m == nil {
		m = map[string]string{}
	}
	m[p] = sha
	x.OverwriteSHA256 = m
}

// hash is what is at the manifest-relative path p now.
func (c *computer) hash(p string) (state.FileHash, error) {
	if c.in.Hash == nil {
		return state.FileHash{}, nil
	}
	return c.in.Hash(p)
}

// writtenHere reports whether p holds what a killed apply renamed into
// place there without recording it (state.Written).
func (c *computer) writtenHere(p, sha string) bool {
	for _, w := range c.written[p] {
		if w.SHA256 == sha {
			return true
		}
	}
	return false
}

// pathUse is one path an action touches, with what it is for.
type pathUse struct{ role, path string }

// paths lists every path the action writes, moves, deletes or reads an
// output from.
func (a *Action) paths() []pathUse {
	var out []pathUse
	if a.Desired != nil {
		for _, o := range a.Desired.Outputs {
			out = append(out, pathUse{"output", o.Path})
		}
	}
	if a.Prior != nil {
		for _, o := range a.Prior.Outputs {
			out = append(out, pathUse{"recorded output", o.Path})
		}
	}
	for _, m := range a.Details().Moves {
		out = append(out, pathUse{"move from", m.From}, pathUse{"move to", m.To})
	}
	for _, p := range a.Details().Removes {
		out = append(out, pathUse{"removal of", p})
	}
	for _, p := range a.Details().Overwrite {
		out = append(out, pathUse{"overwrite of", p})
	}
	if a.Details().RenderFrom != "" && !a.RendersFromKept() {
		out = append(out, pathUse{"render from", a.Details().RenderFrom})
	}
	return out
}

// RendersFromKept reports whether a renders from the kept unredacted
// transcript its prior records: a file of voxform's own in .voxform/,
// read only through state.OpenUnredacted (never an output path).
func (a *Action) RendersFromKept() bool {
	r := a.Prior
	return r != nil && r.Details().Redaction != nil && r.Details().Redaction.Unredacted != nil &&
		r.Details().Redaction.Unredacted.Path == a.Details().RenderFrom && a.Details().RenderFrom == state.UnredactedPath(a.Address)
}

// CheckPaths refuses a plan that would touch a path voxform does not own:
// every path of every action must pass owned.CheckRel and then check (nil:
// none), which resolves it on the file system (owned.Root.Check). The
// error names the action and what the path is for. Plan and apply call it
// before anything runs.
func (p *Plan) CheckPaths(check func(string) error) error {
	for _, a := range p.Actions {
		for _, u := range a.paths() {
			err := owned.CheckRel(u.path)
			if err == nil && check != nil {
				err = check(u.path)
			}
			if err != nil {
				return fmt.Errorf("%s: %s %w", a.Address, u.role, err)
			}
		}
	}
	return nil
}

// checkConsistent refuses an action of a saved plan whose file operations
// do not follow from its own records: it may remove or move only outputs
// recorded for it, and replace only paths it writes.
func (a *Action) checkConsistent() error {
	recorded := map[string]bool{}
	if a.Prior != nil {
		for _, o := range a.Prior.Outputs {
			recorded[o.Path] = true
		}
	}
	for _, p := range a.Details().Removes {
		if !recorded[p] {
			return fmt.Errorf("%s: removal of %q, which is not an output recorded for it", a.Address, p)
		}
	}
	for _, m := range a.Details().Moves {
		if !recorded[m.From] {
			return fmt.Errorf("%s: move from %q, which is not an output recorded for it", a.Address, m.From)
		}
	}
	writes := a.writes()
	for _, p := range a.Details().Overwrite {
		if !slices.Contains(writes, p) {
			return fmt.Errorf("%s: overwrite of %q, a path it does not write", a.Address, p)
		}
	}
	return nil
}
