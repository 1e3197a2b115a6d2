package planner

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/voxform/voxform/state"
)

// Pinned is a resource whose replace the manifest's lifecycle
// keep_approved turned into a no-op: its approval holds, and -replace
// does not name it. Its state stays as it is, so its recorded fingerprint
// keeps differing and every plan shows it pinned.
type Pinned struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
	// Reasons say why the fingerprint changed, as a replace's would.
	Reasons []string `json:"reasons"`
	// Approval is the approval that holds.
	Approval state.Approval `json:"approval"`
	// Drifted are the recorded outputs missing or modified on disk. A
	// pinned resource is never repaired (a repair would be of the request
	// declared now, not of the one approved); it is put back free when the
	// cache holds the approved bytes (Restored), and the plan says which.
	Drifted []string `json:"drifted,omitempty"`
	// Restored: the plan restores the drifted outputs from the cache
	// entry of the recorded fingerprint, which holds the approved bytes.
	Restored bool `json:"restored,omitempty"`
}

// Reason is the pinned resource's reason line: "approved by X at T;
// voice Kaveri -> Deepak".
func (p *Pinned) Reason() string {
	r := fmt.Sprintf("approved by %s at %s", p.Approval.By, p.Approval.At.UTC().Format(time.RFC3339))
	if len(p.Reasons) > 0 {
		r += "; " + strings.Join(p.Reasons, "; ")
	}
	switch {
	case len(p.Drifted) > 0 && p.Restored:
		r += "; missing or modified: " + strings.Join(p.Drifted, ", ") + " (put back from the cache: the approved bytes)"
	case len(p.Drifted) > 0:
		r += "; missing or modified: " + strings.Join(p.Drifted, ", ") + " (not repaired while pinned, and the cache does not hold the approved bytes: -replace makes it anew)"
	}
	return r
}

// pin keeps a replace of d from happening when its lifecycle says
// keep_approved, its recorded approval holds and -replace does not name
// it; it reports whether it did. The pinned resource is then planned as
// an unchanged one of the request approved (pinnedAs): its delivered
// outputs are remastered or moved from the pinned audio, its listening
// check made or kept (listenWork), and its drifted outputs get the
// repair of the recorded request (pinRepair), which restore makes a free
// restore of the approved bytes when the cache holds them, and
// dropPinRepairs drops otherwise: a pinned resource is never billed.
func (c *computer) pin(d *Desired, prior *state.Resource, reasons []string) (bool, *Action, error) {
	if !c.pins(d, prior) {
		return false, nil, nil
	}
	p := &Pinned{Address: d.Address, Kind: string(d.Kind), Reasons: reasons, Approval: *prior.Details().Approval}
	if !c.in.Options.NoRefresh {
		for _, o := range prior.Outputs {
			if o.Delivery != nil {
				continue
			}
			if st, err := c.outputStatus(o.Path, o); err != nil || st != intact {
				p.Drifted = append(p.Drifted, o.Path)
			}
		}
	}
	if c.pinned == nil {
		c.pinned, c.pinnedAs = map[string]*Pinned{}, map[string]*Desired{}
	}
	c.pinned[d.Address] = p
	was, err := pinnedAs(d, prior)
	if err != nil {
		return true, nil, err
	}
	c.pinnedAs[d.Address] = was
	a, err := c.checkOutputs(was, prior)
	switch {
	case err != nil || a == nil:
		return true, nil, err
	case a.Type == Repair || len(p.Drifted) > 0:
		return true, c.pinRepair(was, prior, p), nil
	}
	a.Reasons = append([]string{"pinned (" + p.Reason() + ")"}, a.Reasons...)
	return true, a, nil // its deliveries: free
}

// pins reports whether a replace of d, recorded as prior, is kept from
// happening (see pin).
func (c *computer) pins(d *Desired, prior *state.Resource) bool {
	return !c.replace[d.Address] && pinnable(d, prior)
}

// pinnable reports whether keep_approved keeps prior, the record of d, as
// it is: its approval holds, d declares its outputs (sameOutputs) and the
// words it sends are the ones approved (sameWords).
func pinnable(d *Desired, prior *state.Resource) bool {
	return d.Details().Lifecycle.KeepApproved && prior != nil && prior.Approved() && sameOutputs(d, prior) && sameWords(d, prior)
}

// sameWords reports whether d sends the text prior was made of. A pin
// keeps approved audio through a change of how it is made (a voice, a
// model, a setting), never through a change of what it says: pinned, the
// manifest would declare words no one hears, and every gate would pass.
// A request without text (a recording's) has no words to compare.
func sameWords(d *Desired, prior *state.Resource) bool {
	fields := d.RequestFields()
	if fields == nil { // its request cannot be made again: nothing is kept on its strength
		return false
	}
	old, oldOK := prior.RequestFields()["text"]
	cur, curOK := fields["text"]
	return !oldOK || !curOK || equalJSON(old, cur)
}

// PinnedAs is d as the state records it when keep_approved pins it (its
// request changed, prior's approval holds, its outputs are the declared
// ones): d with prior's fingerprint, what its outputs are judged as (a
// listening check of the pinned audio). nil when d is not pinned, or
// its request cannot be made again.
func PinnedAs(d *Desired, prior *state.Resource) *Desired {
	if prior == nil || prior.Fingerprint == d.Fingerprint || !pinnable(d, prior) {
		return nil
	}
	was, err := pinnedAs(d, prior)
	if err != nil {
		return nil
	}
	return was
}

// asChaptersAre is package d fingerprinted from what its chapters are: a
// pinned chapter (one whose request changed, kept by pin) by the
// fingerprint the state records, whose output the package is made of,
// rather than by the request declared now, which made nothing. d itself
// when no chapter is pinned.
func (c *computer) asChaptersAre(d *Desired) (*Desired, error) {
	req := d.RequestFields()
	chapters, _ := req["chapters"].([]any)
	changed := false
	for _, ch := range chapters {
		m, _ := ch.(map[string]any)
		addr, _ := m["synthesis"].(string)
		cd, prior := c.byAddress()[addr], c.st.Resources[addr]
		if cd == nil || prior == nil || prior.Fingerprint == cd.Fingerprint || !c.pins(cd, prior) {
			continue
		}
		m["fingerprint"], changed = prior.Fingerprint, true
	}
	if !changed {
		return d, nil
	}
	as := *d
	var err error
	as.request, as.Fingerprint, err = encodeRequest(nil, string(d.Kind), req, nil)
	as.derive = nil // a package's request is held, never derived
	return &as, err
}

// pinnedAs is d as it was approved: the fingerprint the state records
// for it (its declared outputs are the recorded ones: see sameOutputs).
// An action on a pinned resource is of that request, so that what apply
// records keeps the recorded fingerprint and the pin.
func pinnedAs(d *Desired, prior *state.Resource) (*Desired, error) {
	was := *d
	if err := was.holdRequest(); err != nil { // its request is no longer that of its fingerprint
		return nil, err
	}
	was.Fingerprint = prior.Fingerprint
	return &was, nil
}

// pinRepair is the repair of a pinned resource's recorded request (was:
// pinnedAs). It keeps the record, so a restore of it takes only the
// recorded bytes (EntryMismatch).
func (c *computer) pinRepair(was *Desired, prior *state.Resource, p *Pinned) *Action {
	a := &Action{Address: was.Address, Type: Repair, Desired: was, Prior: prior, Cost: Cost{Characters: was.Characters},
		Reasons: []string{"pinned (" + p.Reason() + ")"}}
	if c.pinRepairs == nil {
		c.pinRepairs = map[*Action]bool{}
	}
	c.pinRepairs[a] = true
	return a
}

// dropPinRepairs keeps, of the pinned resources' repairs, those restore
// made free restores of the approved bytes; the others are dropped (a
// pinned resource is never billed), and the plan says they drifted.
func (c *computer) dropPinRepairs() {
	if len(c.pinRepairs) == 0 {
		return
	}
	dropped := map[string]bool{}
	kept := c.actions[:0]
	for _, a := range c.actions {
		switch {
		case !c.pinRepairs[a]:
			kept = append(kept, a)
		case a.Type == Restore:
			p := c.pinned[a.Address]
			p.Restored = true
			a.Reasons = []string{"pinned (" + p.Reason() + ")"}
			kept = append(kept, a)
		default:
			dropped[a.Address] = true
		}
	}
	c.actions = kept
	for _, a := range c.actions {
		a.DependsOn = slices.DeleteFunc(a.DependsOn, func(dep string) bool { return dropped[dep] })
	}
}

// sortedPinned is the pinned resources by address.
func (c *computer) sortedPinned() []Pinned {
	out := make([]Pinned, 0, len(c.pinned))
	for _, p := range c.pinned {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	if len(out) == 0 {
		return nil
	}
	return out
}

// approvalLost is the reason a replace of prior gives when prior's
// approval holds: the new outputs will not be the bytes approved.
func approvalLost(prior *state.Resource) []string {
	if !prior.Approved() {
		return nil
	}
	a := prior.Details().Approval
	return []string{fmt.Sprintf("approval by %s of %s will no longer hold", a.By, a.At.UTC().Format(time.RFC3339))}
}

// approvalKept is the reason a move of prior gives when prior's approval
// holds: the same bytes at the new paths, so the approval is re-based on
// them (state.Approval.Moved).
func approvalKept(prior *state.Resource) []string {
	if !prior.Approved() {
		return nil
	}
	a := prior.Details().Approval
	return []string{fmt.Sprintf("approval by %s of %s kept (the same bytes, moved)", a.By, a.At.UTC().Format(time.RFC3339))}
}

// ErrPreventDestroy is wrapped by the error of a plan that would delete
// or replace a resource whose lifecycle says prevent_destroy.
var ErrPreventDestroy = errors.New("lifecycle prevent_destroy")

// checkPreventDestroy refuses the plan when it would destroy a resource
// whose lifecycle says prevent_destroy: delete it, declared so in the
// manifest (with voxform destroy) or recorded so in the state when it was
// applied (a resource no longer declared), or replace a made one declared
// so (a replace destroys the outputs, -replace or not; a pinned resource
// is not replaced). Every such resource is named.
func (c *computer) checkPreventDestroy() error {
	var deleted, replaced []string
	for _, a := range c.actions {
		d := c.byAddress()[a.Address]
		switch {
		case a.Type == Replace && d != nil && d.Details().Lifecycle.PreventDestroy && a.Prior != nil && a.Prior.Status == state.StatusComplete:
			replaced = append(replaced, fmt.Sprintf("%s: %s", d.Details().LifecyclePos, a.Address))
		case a.Type != Delete:
		case d != nil && d.Details().Lifecycle.PreventDestroy:
			deleted = append(deleted, fmt.Sprintf("%s: %s (declared)", d.Details().LifecyclePos, a.Address))
		case a.Prior != nil && a.Prior.PreventDestroy:
			deleted = append(deleted, fmt.Sprintf("%s (recorded in the state when it was applied)", a.Address))
		}
	}
	var why []string
	if len(deleted) > 0 {
		sort.Strings(deleted)
		why = append(why, fmt.Sprintf("the plan would delete %s that must not be: %s; to delete it, set lifecycle.prevent_destroy: false (declaring it again if it was removed) and apply first, or 'voxform state rm' it to forget it and keep its files",
			fmt.Sprintf("%d resource%s", len(deleted), plural(len(deleted))), strings.Join(deleted, "; ")))
	}
	if len(replaced) > 0 {
		sort.Strings(replaced)
		why = append(why, fmt.Sprintf("the plan would replace %s that must not be destroyed (a replace destroys the outputs made): %s; to replace it, set lifecycle.prevent_destroy: false, or keep it with lifecycle.keep_approved and an approval",
			fmt.Sprintf("%d resource%s", len(replaced), plural(len(replaced))), strings.Join(replaced, "; ")))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrPreventDestroy, strings.Join(why, "; and "))
}

// sameOutputs reports whether d declares the outputs prior records, path
// and format alike (delivered outputs aside): a pin keeps the approved
// files, so it cannot stand for files declared elsewhere or in another
// format, which the replace makes.
func sameOutputs(d *Desired, prior *state.Resource) bool {
	declared := map[string]string{}
	for _, o := range d.Outputs {
		if _, delivered := IsDelivery(o.Format); !delivered {
			declared[o.Path] = o.Format
		}
	}
	n := 0
	for _, o := range prior.Outputs {
		if o.Delivery != nil {
			continue
		}
		if f, ok := declared[o.Path]; !ok || f != o.Format {
			return false
		}
		n++
	}
	return n == len(declared)
}
