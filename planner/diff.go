package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// planOne decides the action of one selected desired resource; nil is a
// no-op. deletes holds the state-only entries of this plan: a new address
// whose fingerprint equals one of them takes it over (a rename) for free.
func (c *computer) planOne(d *Desired, deletes map[string]*state.Resource) (*Action, error) {
	if d.Kind == manifest.KindPackage {
		as, err := c.asChaptersAre(d)
		if err != nil {
			return nil, err
		}
		d, c.byAddress()[d.Address] = as, as
	}
	a, err := c.planResource(d, deletes)
	recordedCreate(a)
	if a != nil && a.Type == Move && a.Prior != nil {
		a.Reasons = append(a.Reasons, approvalKept(a.Prior)...)
	}
	if err != nil || d.Kind != manifest.KindPackage {
		return a, err
	}
	switch {
	case a == nil:
		return c.packageStatus(d, c.st.Resources[d.Address])
	case a.Type == Replace || a.Type == Repair:
		a.Type = Remaster // packaging is local: free
	}
	return a, nil
}

// notInState is the reason of every create, shared: its capacity is its
// length, so a reason appended to it is appended to a copy.
var notInState = []string{"not in state"}

// planResource decides the action of one desired resource as planOne
// does, packages aside.
func (c *computer) planResource(d *Desired, deletes map[string]*state.Resource) (*Action, error) {
	prior, ok := c.prior(d)
	if !ok || (prior.Fingerprint != d.Fingerprint && prior.Status != state.StatusPending) {
		if a, err := c.adoptWritten(d); a != nil || err != nil {
			return a, err
		}
	}
	if !ok {
		if a, err := c.takeOver(d, deletes); a != nil || err != nil {
			return a, err
		}
		cost, err := c.billed(d)
		return &Action{Address: d.Address, Type: Create, Desired: d, Cost: cost, Reasons: notInState}, err
	}
	if prior.Fingerprint != d.Fingerprint {
		if a, err := c.rerender(d, prior); a != nil || err != nil {
			return a, err
		}
	}
	switch {
	case c.replace[d.Address] || prior.Fingerprint != d.Fingerprint:
		var reasons []string
		if c.replace[d.Address] {
			reasons = append(reasons, "replacement requested")
		}
		if prior.Fingerprint != d.Fingerprint {
			reasons = append(reasons, changeReasons(prior.RequestFields(), d, c.embeddingName)...)
		}
		if prior.Status == state.StatusPending && prior.Details().JobID != "" {
			reasons = append(reasons, fmt.Sprintf("pending job %s will be cancelled", prior.Details().JobID))
		}
		if pinned, a, err := c.pin(d, prior, reasons); pinned {
			return a, err
		}
		reasons = append(reasons, approvalLost(prior)...)
		cost, err := c.billed(d)
		a := &Action{Address: d.Address, Type: Replace, Desired: d, Prior: prior, Cost: cost, Reasons: reasons}
		a.setRemoves(c.unclaimed(prior.Outputs, d.Outputs))
		return a, err
	case prior.Status == state.StatusPending && prior.Details().JobID == "":
		// state.Recorder.RecordPending always names the job; an entry
		// without one (written by hand) has no job to resume.
		cost, err := c.billed(d)
		a := &Action{Address: d.Address, Type: Replace, Desired: d, Prior: prior, Cost: cost,
			Reasons: []string{"pending, but no job id recorded"}}
		a.setRemoves(c.unclaimed(prior.Outputs, d.Outputs))
		return a, err
	case prior.Status == state.StatusPending:
		reason := fmt.Sprintf("%s job %s pending", orWord(prior.Details().JobAPI, "remote"), prior.Details().JobID)
		return &Action{Address: d.Address, Type: Resume, Desired: d, Prior: prior, Reasons: []string{reason}}, nil
	}
	a, err := c.checkOutputs(d, prior)
	if a != nil || err != nil {
		return a, err
	}
	return c.dropKept(d, prior)
}

// embeddingName returns the name of a recorded embedding with fingerprint
// fp ("" when none), indexing the state's embeddings on first use. Two
// embeddings of one recording share a fingerprint: the first name wins.
func (c *computer) embeddingName(fp string) string {
	if c.embeddings == nil {
		c.embeddings = map[string]string{}
		for addr, r := range c.st.Resources {
			if r.Kind != string(manifest.KindEmbedding) {
				continue
			}
			name := strings.TrimPrefix(addr, "embedding.")
			if prev, ok := c.embeddings[r.Fingerprint]; !ok || name < prev {
				c.embeddings[r.Fingerprint] = name
			}
		}
	}
	return c.embeddings[fp]
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// takeOver finds a state-only entry of the same kind and fingerprint whose
// outputs are intact and turns the create into a free move.
func (c *computer) takeOver(d *Desired, deletes map[string]*state.Resource) (*Action, error) {
	names := make([]string, 0)
	for addr, r := range deletes {
		if r.Kind == string(d.Kind) && r.Fingerprint == d.Fingerprint && r.Status == state.StatusComplete {
			names = append(names, addr)
		}
	}
	sort.Strings(names)
	for _, old := range names {
		prior := deletes[old]
		moves, ok, err := c.sameOutputs(d, prior)
		if err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		delete(deletes, old)
		reasons := []string{"moved from " + old}
		for _, m := range moves {
			reasons = append(reasons, fmt.Sprintf("output %s -> %s", m.From, m.To))
		}
		return (&Action{Address: d.Address, Type: Move, Desired: d, Prior: prior, Reasons: reasons}).WithDetails(ActionDetails{MovedFrom: old, Moves: moves}), nil
	}
	return nil, nil
}

// sameOutputs reports whether prior's outputs are intact and correspond one
// to one (by format) to d's, returning the renames needed.
func (c *computer) sameOutputs(d *Desired, prior *state.Resource) ([]Rename, bool, error) {
	if len(prior.Outputs) != len(d.Outputs) {
		return nil, false, nil
	}
	var moves []Rename
	for _, o := range d.Outputs {
		p, ok := findFormat(prior.Outputs, o.Format)
		if !ok {
			return nil, false, nil
		}
		st, err := c.outputStatus(p.Path, p)
		if err != nil || st != intact {
			return nil, false, err
		}
		if p.Path != o.Path {
			moves = append(moves, Rename{From: p.Path, To: o.Path, SHA256: p.SHA256})
		}
	}
	return moves, true, nil
}

func findPath(outs []state.Output, p string) (state.Output, bool) {
	for _, o := range outs {
		if o.Path == p {
			return o, true
		}
	}
	return state.Output{}, false
}

func findFormat(outs []state.Output, format string) (state.Output, bool) {
	for _, o := range outs {
		if o.Format == format {
			return o, true
		}
	}
	return state.Output{}, false
}

type outputState int

const (
	intact outputState = iota
	missing
	modified
)

// outputStatus compares the file at path with the recorded output rec.
// With NoRefresh the state is trusted.
func (c *computer) outputStatus(path string, rec state.Output) (outputState, error) {
	if c.in.Options.NoRefresh {
		return intact, nil
	}
	if c.in.Hash == nil {
		return missing, fmt.Errorf("plan: no file hasher")
	}
	h, err := c.in.Hash(path)
	switch {
	case err != nil:
		return missing, err
	case !h.Exists:
		return missing, nil
	case h.SHA256 != rec.SHA256:
		return modified, nil
	}
	return intact, nil
}

func describe(st outputState, path string) string {
	if st == missing {
		return fmt.Sprintf("output %s missing", path)
	}
	return fmt.Sprintf("output %s modified outside voxform", path)
}

// checkOutputs plans a resource whose fingerprint is unchanged: repair
// damaged or missing outputs, move renamed ones, remove dropped formats.
func (c *computer) checkOutputs(d *Desired, prior *state.Resource) (*Action, error) {
	a := Action{Address: d.Address, Desired: d, Prior: prior} // on the stack: most resources are unchanged
	changed, err := c.outputsChanged(&a, d, prior)
	if !changed {
		return nil, err
	}
	kept := a
	return &kept, err
}

// outputsChanged fills a, the action of d, from its outputs as recorded
// in prior and as found now, reporting whether it does anything.
func (c *computer) outputsChanged(a *Action, d *Desired, prior *state.Resource) (bool, error) {
	var damaged []string
	var dropped []state.Output
	jsonOK := ""
	remaster := false
	for _, o := range d.Outputs {
		p, ok := findFormat(prior.Outputs, o.Format)
		_, delivered := IsDelivery(o.Format)
		if !ok && delivered {
			if _, err := c.deliveryStatus(a, d, prior, o, p, false, missing); err != nil {
				return false, err
			}
			remaster = true
			continue
		}
		if !ok {
			damaged = append(damaged, o.Format)
			if o.Format == "" {
				a.Reasons = append(a.Reasons, fmt.Sprintf("output %s not recorded", o.Path))
			} else {
				a.Reasons = append(a.Reasons, fmt.Sprintf("format %s added", o.Format))
			}
			continue
		}
		st, err := c.outputStatus(p.Path, p)
		if err != nil {
			return false, err
		}
		at := p.Path
		if p.Path != o.Path {
			note, adopt := "", false
			// Perhaps it was already moved (or copied) there: the new
			// path holds the recorded content. Whatever is at the old
			// path now is not voxform's and stays where it is.
			if !c.in.Options.NoRefresh {
				if st2, err := c.outputStatus(o.Path, p); err != nil {
					return false, err
				} else if st2 == intact {
					st, note, adopt = intact, " (already moved)", true
				}
			}
			if st == intact {
				a.Edit().Moves = append(a.Details().Moves, Rename{From: p.Path, To: o.Path, SHA256: p.SHA256, Adopt: adopt})
				a.Reasons = append(a.Reasons, fmt.Sprintf("output %s -> %s%s", p.Path, o.Path, note))
				if adopt {
					at = o.Path
				}
			}
		}
		if delivered {
			again, err := c.deliveryStatus(a, d, prior, o, p, true, st)
			if err != nil {
				return false, err
			}
			if again && st != intact && p.Path != o.Path {
				dropped = append(dropped, p) // made again at the new path
			}
			remaster = remaster || again
			continue
		}
		if st != intact {
			damaged = append(damaged, o.Format)
			reason := describe(st, p.Path)
			if p.Path != o.Path {
				reason += " (now " + o.Path + ")"
			}
			a.Reasons = append(a.Reasons, reason)
			if p.Path != o.Path {
				// Regenerated at the new path; the old file is no
				// longer declared.
				dropped = append(dropped, p)
			}
		} else if o.Format == "json" {
			jsonOK = at
		}
	}
	formatGone, deliveryGone := false, false
	for _, p := range prior.Outputs {
		if containsFormat(d.Outputs, p.Format) {
			continue
		}
		dropped = append(dropped, p)
		if name, ok := IsDelivery(p.Format); ok {
			deliveryGone = true
			a.Reasons = append(a.Reasons, fmt.Sprintf("deliver %s removed", name))
			continue
		}
		formatGone = true
		a.Reasons = append(a.Reasons, fmt.Sprintf("format %s removed", p.Format))
	}
	if len(damaged) > 0 {
		// A repair writes every output at its declared path; the old
		// copies of outputs it would have moved are then left over.
		for _, m := range a.Details().Moves {
			if p, ok := findPath(prior.Outputs, m.From); ok && !m.Adopt {
				dropped = append(dropped, p)
			}
		}
	}
	a.setRemoves(c.unclaimed(dropped, d.Outputs))
	switch {
	case len(damaged) > 0:
		a.Type = Repair
		if d.Kind == manifest.KindTranscription && jsonOK != "" {
			a.Edit().RenderFrom = jsonOK
			a.Reasons = append(a.Reasons, "rendered from the recorded transcript")
			return true, nil
		}
		cost, err := c.billed(d)
		a.Cost = cost
		return true, err
	case len(a.Details().Moves) > 0:
		a.Type = Move
		return true, nil
	case formatGone:
		// The outputs are made again without the dropped one: the work
		// is billed (unless the cache holds it: see restore), and priced
		// so, never run unpriced.
		a.Type = Repair
		cost, err := c.billed(d)
		a.Cost = cost
		return true, err
	case remaster || deliveryGone:
		// Only delivered outputs change: made again from the recorded
		// audio, or removed. Free.
		a.Type = Remaster
		return true, nil
	}
	return false, nil
}

func containsFormat(outs []Output, format string) bool {
	for _, o := range outs {
		if o.Format == format {
			return true
		}
	}
	return false
}

// billed is what running d costs: its characters, or the duration of its
// source audio (unknown for URLs and files the probe cannot read).
func (c *computer) billed(d *Desired) (Cost, error) {
	switch d.Kind {
	case manifest.KindSynthesis:
		return Cost{Characters: d.Characters}, nil
	case manifest.KindTranscription:
		src := d.Details().Sources[0]
		if src.Path == "" || c.in.Probe == nil {
			return Cost{UnknownAudio: 1}, nil
		}
		secs, err := c.in.Probe(src.Path)
		if err != nil || secs < 0 {
			return Cost{UnknownAudio: 1}, nil
		}
		return Cost{AudioSeconds: secs}, nil
	}
	return Cost{}, nil
}
