package planner

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/voxform/voxform/internal/rare"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// ActionType is what an action does (SPEC section 5).
type ActionType string

// The action types, in the order the plan groups them.
const (
	Create  ActionType = "create"
	Replace ActionType = "replace"
	Repair  ActionType = "repair"
	Restore ActionType = "restore"
	Move    ActionType = "move"
	Resume  ActionType = "resume"
	Delete  ActionType = "delete"
	NoOp    ActionType = "no-op"
)

// ActionOrder is the display order of action groups.
var ActionOrder = []ActionType{Create, Replace, Repair, Restore, Remaster, Check, Move, Resume, Delete}

// Symbol is the one-glyph mark of an action type in plan output.
func (t ActionType) Symbol() string {
	switch t {
	case Create:
		return "+"
	case Replace:
		return "-/+"
	case Repair:
		return "!"
	case Restore:
		return "<"
	case Move:
		return ">"
	case Resume:
		return "~"
	case Delete:
		return "-"
	case Check:
		return "?"
	case Remaster:
		return "*"
	}
	return " "
}

// Action is one change of a plan.
type Action struct {
	Address string     `json:"address"`
	Type    ActionType `json:"action"`
	// Reasons say why, naming each changed field ("text",
	// "voice Kaveri -> Deepak", "embedding founder changed").
	Reasons []string `json:"reasons,omitempty"`
	// Desired is the resource as the manifest wants it; nil for Delete.
	Desired *Desired `json:"desired,omitempty"`
	// Prior is what the state recorded; nil for Create.
	Prior *state.Resource `json:"prior,omitempty"`
	// Cost is what the action bills.
	Cost Cost `json:"cost"`
	// Chunks, for a synthesis whose text is split, says how many of its
	// chunks the action synthesizes (the rest are joined from the cache).
	Chunks *ChunkWork `json:"chunks,omitempty"`
	// Listen, for a synthesis with listen:, is the work of its listening
	// checks (their cost is in Cost, their worst case in Listen.Worst).
	Listen *ListenWork `json:"listen,omitempty"`
	// DependsOn lists the addresses of actions of this plan that must
	// succeed before this one starts.
	DependsOn []string `json:"depends_on,omitempty"`

	// details are the fields most actions leave empty (see
	// ActionDetails), held out of line.
	details rare.Of[ActionDetails]
}

// ActionDetails are the fields of an action that a plain create leaves
// empty: the outputs it moves, removes or overwrites, where it takes its
// outputs from, and why it is refused. An
// Action holds them out of line, as Desired holds its DesiredDetails.
type ActionDetails struct {
	// Moves are renames of existing outputs (Move, and Repair of a
	// transcription whose other outputs moved). A move whose From is gone
	// and whose To already holds the recorded hash only needs recording.
	Moves []Rename `json:"moves,omitempty"`
	// Removes are recorded output paths that nothing declares any more:
	// the executor deletes them once the action's new outputs are in place.
	Removes []string `json:"removes,omitempty"`
	// MovedFrom is set when a new address takes over a recorded resource
	// with the same fingerprint (a renamed resource or for_each key): no
	// API call, the executor renames outputs and records the entry under
	// Address, removing MovedFrom (state.Recorder.Move).
	MovedFrom string `json:"moved_from,omitempty"`
	// RenderFrom is set on a free Repair of a transcription: the intact
	// transcript JSON from which the missing formats are rendered.
	RenderFrom string `json:"render_from,omitempty"`
	// RestoreFrom is where a Restore takes the outputs of its fingerprint
	// from: "local" (the local cache) or the remote cache's URL. A Restore
	// stands for the create, replace or paid repair it saves (its Reasons
	// say why that was needed) and bills nothing.
	RestoreFrom string `json:"restore_from,omitempty"`
	// Overwrite lists the paths this action writes that hold a file voxform
	// recorded (or any file, with Options.Overwrite): the executor replaces
	// them. Every other path it writes must be free when its output is
	// renamed into place; a file that appeared there is refused, never
	// replaced.
	Overwrite []string `json:"overwrite,omitempty"`
	// OverwriteSHA256 is, for each path of Overwrite, the content the plan
	// found there: apply replaces the file only while it still holds it
	// (a file changed after the plan is refused, never replaced).
	OverwriteSHA256 map[string]string `json:"overwrite_sha256,omitempty"`
	// Refused says why the action will not run: a path it writes holds a
	// file that voxform did not make. Apply fails it without calling the
	// service; moving the file away, or Options.Overwrite, lets it run.
	Refused string `json:"refused,omitempty"`
}

// Details returns a's details: a copy, the zero ActionDetails when it
// has none. Change them with Edit.
func (a *Action) Details() ActionDetails { return a.details.Get() }

// Edit returns a's details to change: a copy of them that a now holds,
// for a alone (a copy of a made before keeps the details it had).
func (a *Action) Edit() *ActionDetails { return a.details.Edit() }

// WithDetails gives a the details x (none when x is the zero
// ActionDetails) and returns a.
func (a *Action) WithDetails(x ActionDetails) *Action {
	a.details.Set(x, x.isZero())
	return a
}

// setRemoves sets the outputs a removes: an action that removes none
// (most) is given no details for it.
func (a *Action) setRemoves(paths []string) {
	if len(paths) > 0 || len(a.Details().Removes) > 0 {
		a.Edit().Removes = paths
	}
}

// isZero says whether every field of x is empty, without reflect's
// allocation (TestActionDetailsIsZero checks it knows every field).
func (x *ActionDetails) isZero() bool {
	return len(x.Moves) == 0 && len(x.Removes) == 0 && x.MovedFrom == "" &&
		x.RenderFrom == "" && x.RestoreFrom == "" && len(x.Overwrite) == 0 && len(x.OverwriteSHA256) == 0 && x.Refused == ""
}

// actionJSON is an Action in a plan file: its own fields, then those of
// its details, in the order they have always been written.
type actionJSON struct {
	actionFields
	*ActionDetails
}

// actionFields are an Action's fields without its methods.
type actionFields Action

// MarshalJSON writes a as a plan file holds it.
func (a *Action) MarshalJSON() ([]byte, error) {
	return marshalNoEscape(actionJSON{actionFields(*a), a.details.Peek()})
}

// UnmarshalJSON reads a as MarshalJSON wrote it.
func (a *Action) UnmarshalJSON(b []byte) error {
	var j actionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*a = Action(j.actionFields)
	if j.ActionDetails != nil {
		a.WithDetails(*j.ActionDetails)
	}
	return nil
}

// MayReplace reports whether the action may replace an existing file at p.
func (a *Action) MayReplace(p string) bool { return slices.Contains(a.Details().Overwrite, p) }

// Replaces returns the content the action may replace at p ("" and false
// when it may replace nothing there).
func (a *Action) Replaces(p string) (string, bool) {
	if !a.MayReplace(p) {
		return "", false
	}
	return a.Details().OverwriteSHA256[p], true
}

// Rename is a move of an output file.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
	// SHA256 is the recorded content: a destination already holding it is
	// the output moved before (by hand, or by an interrupted apply).
	SHA256 string `json:"sha256,omitempty"`
	// Adopt is set when the output is already at To and From holds
	// something else (or nothing): only the record changes, From is left
	// alone.
	Adopt bool `json:"adopt,omitempty"`
}

// Options are the plan flags.
type Options struct {
	// Targets limit the plan to these addresses (or whole blocks) and what
	// they depend on.
	Targets []string `json:"targets,omitempty"`
	// Replace forces these addresses to be replaced.
	Replace []string `json:"replace,omitempty"`
	// Destroy plans the deletion of everything recorded.
	Destroy bool `json:"destroy,omitempty"`
	// Restoring says the plan is made for its restores alone (pull):
	// what it would make anew is left for apply, so an encoder that only
	// making it needs (checkEncodings) is not asked for.
	Restoring bool `json:"-"`
	// NoRefresh trusts the state: outputs are not hashed (-refresh=false).
	NoRefresh bool `json:"no_refresh,omitempty"`
	// Overwrite lets actions replace files at their output paths that
	// voxform did not make (-overwrite); without it they are refused.
	Overwrite bool `json:"overwrite,omitempty"`
	// Cache is which output caches the plan may restore from: CacheOn,
	// CacheLocal or CacheOff (see workspace.Session.Plan).
	Cache string `json:"cache,omitempty"`
}

// Cache modes (Options.Cache).
const (
	// CacheOff restores nothing: every change is billed work. It is the
	// library's default; the commands' is CacheOn.
	CacheOff = ""
	// CacheLocal restores from the local cache only.
	CacheLocal = "local"
	// CacheOn restores from the local cache and the manifest's remote.
	CacheOn = "on"
)

// Input is everything Compute needs.
type Input struct {
	Desired []*Desired
	State   *state.File
	// Hash gives the current content of outputs (not called with
	// Options.NoRefresh).
	Hash HashFunc
	// Probe gives the duration of local transcription inputs that will be
	// billed; nil counts them as unknown.
	Probe   ProbeFunc
	Options Options
	// Budget, when set, refuses a plan that costs more.
	Budget *manifest.Budget
	// Cached, when set, tells where the outputs of fingerprints are kept
	// (see Lookup): an action that would bill for a fingerprint it knows
	// becomes a free Restore.
	Cached Lookup
	// Chunks, when set and Cached is not, tells which chunks of chunked
	// syntheses the store an apply without an output cache keeps them in
	// holds (executor.ChunkDir). With neither, the chunks the state
	// records are taken to be kept.
	Chunks Lookup
	// CachedFiles, when set, lists the cached entries of the fingerprints
	// asked (see EntryLookup): any action becomes a Restore only when its
	// entry is of its kind and not refused, and a repair of a resource the
	// state records only when the entry holds exactly the recorded files.
	// Without it such repairs stay billed, and other actions are restored
	// wherever Cached finds their fingerprint.
	CachedFiles EntryLookup
	// Encoder identifies the encoders of delivery profiles (see
	// EncoderFunc); nil: every profile is encoded by an encoder of
	// identity "".
	Encoder EncoderFunc
}

// Lookup reports, for the fingerprints asked (all in one call), where
// the outputs of each are cached: "local" or a remote's URL; fingerprints
// it has nowhere are not in the map. An error (an unreachable remote)
// fails the plan: voxform never pays for work it cannot rule out having.
type Lookup func(fingerprints []string) (map[string]string, error)

// EntryLookup reports, for the fingerprints asked (all in one call), the
// cached entry of each: where it is (as Lookup says) and the files it
// lists. Fingerprints it has nowhere are not in the map; an error fails
// the plan, as Lookup's does.
type EntryLookup func(fingerprints []string) (map[string]CachedEntry, error)

// CachedEntry is what the cache holds for a fingerprint.
type CachedEntry struct {
	// From is "local" or the remote's URL.
	From string
	// Files are the entry's files by role (see EntryRole).
	Files map[string]CachedFile
	// Kind is the kind of resource the entry says it holds.
	Kind string
	// Refused, when set, says why no restore may take the entry whatever
	// the resource (sizes past their bound, metadata a state could not
	// hold): the work stays billed, with that reason, rather than planned
	// as a restore that apply would refuse on every run.
	Refused string
}

// CachedFile is one file of a cached entry.
type CachedFile struct {
	SHA256 string
	Size   int64
}

// Plan is the outcome of Compute.
type Plan struct {
	// Actions are the changes, in dependency order (an action comes after
	// everything in its DependsOn). No-ops are not listed.
	Actions []*Action `json:"actions"`
	// NoOps counts the selected resources that need nothing.
	NoOps int  `json:"no_ops"`
	Cost  Cost `json:"cost"`
	// Worst is what the plan bills at worst: Cost, plus every take
	// regenerate allows for the listening checks to make.
	Worst Cost `json:"worst_case"`
	// ListenFailing names the recorded listening checks of resources the
	// plan leaves as they are that fail at the limits declared now
	// ("synthesis.x: chunk 12 of 30 (143.2 s): ..."); those of actions
	// are in their ListenWork.Failing.
	ListenFailing []string `json:"listen_failing,omitempty"`
	// Pinned are the resources whose replace lifecycle keep_approved
	// turned into a no-op, by address: they are neither actions nor
	// counted in NoOps.
	Pinned  []Pinned `json:"pinned,omitempty"`
	Options Options  `json:"options"`
	// Lineage and Serial identify the state the plan was computed from.
	Lineage string `json:"lineage"`
	Serial  int64  `json:"serial"`

	byAddr map[string]*Action
}

// HasChanges reports whether the plan does anything.
func (p *Plan) HasChanges() bool { return len(p.Actions) > 0 }

// Action returns the action at addr, or nil.
func (p *Plan) Action(addr string) *Action {
	if p.byAddr == nil {
		p.index()
	}
	return p.byAddr[addr]
}

func (p *Plan) index() {
	p.byAddr = make(map[string]*Action, len(p.Actions))
	for _, a := range p.Actions {
		p.byAddr[a.Address] = a
	}
}

// Dependents returns the addresses of the actions that depend on addr.
func (p *Plan) Dependents(addr string) []string {
	var out []string
	for _, a := range p.Actions {
		for _, d := range a.DependsOn {
			if d == addr {
				out = append(out, a.Address)
			}
		}
	}
	return out
}

// Summary counts a plan's actions by type.
type Summary struct {
	Add, Replace, Repair, Restore, Move, Resume, Destroy, NoOp int
	// Check counts the resources whose only work is a listening check.
	Check int
	// Remaster counts the resources whose only work is mastering again.
	Remaster int
	// Pinned counts the replaces kept from happening by keep_approved.
	Pinned int
}

// Summary counts the plan's actions.
func (p *Plan) Summary() Summary {
	s := Summary{NoOp: p.NoOps, Pinned: len(p.Pinned)}
	for _, a := range p.Actions {
		switch a.Type {
		case Create:
			s.Add++
		case Replace:
			s.Replace++
		case Repair:
			s.Repair++
		case Restore:
			s.Restore++
		case Check:
			s.Check++
		case Remaster:
			s.Remaster++
		case Move:
			s.Move++
		case Resume:
			s.Resume++
		case Delete:
			s.Destroy++
		}
	}
	return s
}

// ErrBudget is wrapped by the error of a plan that costs more than the budget.
var ErrBudget = errors.New("plan exceeds the budget")

// Compute diffs the desired resources against the state.
func Compute(in Input) (*Plan, error) {
	st := in.State
	if st == nil {
		st = &state.File{Resources: map[string]*state.Resource{}}
	}
	c := &computer{in: in, st: st}
	if err := c.selectAddresses(); err != nil {
		return nil, err
	}
	if err := c.plan(); err != nil {
		return nil, err
	}
	if err := c.restore(); err != nil {
		return nil, err
	}
	c.dropPinRepairs()
	if err := c.checkEncodings(); err != nil {
		return nil, err
	}
	if err := c.chunkWork(); err != nil {
		return nil, err
	}
	c.listenWork()
	c.repackage()
	if err := c.checkOwnership(); err != nil { // of the actions added since plan
		return nil, err
	}
	p := &Plan{Options: in.Options, Lineage: st.Lineage, Serial: st.Serial, NoOps: c.noops, ListenFailing: c.listenFailing,
		Pinned: c.sortedPinned()}
	actions, err := order(c.actions)
	if err != nil {
		return nil, err
	}
	c.forgetPriors(actions)
	p.Actions = actions
	p.price()
	if err := p.CheckBudget(in.Budget); err != nil {
		return p, err
	}
	return p, nil
}

// price sums the cost and the worst case of the plan's actions.
func (p *Plan) price() {
	p.Cost, p.Worst = Cost{}, Cost{}
	for _, a := range p.Actions {
		p.Cost = p.Cost.Add(a.Cost)
		if a.Listen != nil {
			p.Worst = p.Worst.Add(a.Listen.Worst)
		} else {
			p.Worst = p.Worst.Add(a.Cost)
		}
	}
}

// computer holds the working set of one Compute.
type computer struct {
	in Input
	st *state.File
	// desired are the desired resources by address, made when first
	// asked for (byAddress): the plan of 100,000 unchanged needs none.
	desired map[string]*Desired
	// selected desired addresses and selected state-only addresses
	selDesired []*Desired
	selDeleted []string
	replace    map[string]bool
	actions    []*Action
	noops      int
	// listenNoops are the no-ops with listen:, which may need a Check.
	listenNoops []string
	// listenFailing are the failing recorded checks of no-ops (Plan's).
	listenFailing []string
	// claimed are the paths some desired resource writes or reads: a
	// delete or replace never removes them. Made by the first unclaimed:
	// a plan that removes nothing (the plan of 100,000 unchanged) needs
	// none.
	claimed map[string]bool
	// embeddings maps recorded embedding fingerprints to names (see
	// embeddingName).
	embeddings map[string]string
	// written indexes the state's Written entries by path.
	written map[string][]state.Written
	// identities caches Encoder's answers by profile.
	identities map[string]identity
	// pinned are the resources keep_approved keeps, by address.
	pinned map[string]*Pinned
	// pinnedAs are the pinned resources as they were approved (see pin).
	pinnedAs map[string]*Desired
	// pinRepairs are the repairs of pinned resources' recorded requests
	// (see pin): restored from the cache, or dropped.
	pinRepairs map[*Action]bool
	// ownDecided are the actions checkOwnership has decided.
	ownDecided map[*Action]bool
}

func (c *computer) plan() error {
	c.written = map[string][]state.Written{}
	for _, w := range c.st.Written {
		c.written[w.Path] = append(c.written[w.Path], w)
	}
	if err := c.checkDeliveries(); err != nil {
		return err
	}
	deletes := map[string]*state.Resource{}
	for _, a := range c.selDeleted {
		deletes[a] = c.st.Resources[a]
	}
	for _, d := range c.selDesired {
		addr := d.Address
		a, err := c.planOne(d, deletes)
		if err != nil {
			return fmt.Errorf("plan %s: %w", addr, err)
		}
		if a == nil && c.pinned[addr] != nil {
			if d.Details().Listen != nil {
				c.listenNoops = append(c.listenNoops, addr) // checked as unchanged: see pin
			}
			continue
		}
		if a == nil {
			c.noops++
			if d.Details().Listen != nil {
				c.listenNoops = append(c.listenNoops, addr)
			}
			continue
		}
		c.actions = append(c.actions, a)
	}
	dels := make([]string, 0, len(deletes))
	for a := range deletes {
		dels = append(dels, a)
	}
	sort.Strings(dels)
	for _, addr := range dels {
		c.actions = append(c.actions, c.deleteAction(addr, deletes[addr]))
	}
	if err := c.checkPreventDestroy(); err != nil {
		return err
	}
	if err := c.checkOwnership(); err != nil {
		return err
	}
	return c.addPathDependencies()
}

func (c *computer) deleteAction(addr string, prior *state.Resource) *Action {
	a := &Action{Address: addr, Type: Delete, Prior: prior}
	switch {
	case c.in.Options.Destroy:
		a.Reasons = []string{"destroy requested"}
	default:
		a.Reasons = []string{"no longer in the manifest"}
	}
	if prior.Status == state.StatusPending && prior.Details().JobID != "" {
		a.Reasons = append(a.Reasons, fmt.Sprintf("pending job %s will be cancelled", prior.Details().JobID))
	}
	a.setRemoves(c.unclaimed(prior.Outputs, nil))
	return a
}

// forgetPriors lets go of the records Build kept (see prior): the plan
// must not keep the state it was made from reachable (an apply lets go of
// it as it records).
func (c *computer) forgetPriors(actions []*Action) {
	for _, d := range c.in.Desired {
		d.prior = priorRecord{}
	}
	for _, a := range actions {
		if a.Desired != nil {
			a.Desired.prior = priorRecord{} // a copy made here (asChaptersAre, pin)
		}
	}
}

// byAddress is the desired resources by address.
func (c *computer) byAddress() map[string]*Desired {
	if c.desired == nil {
		c.desired = make(map[string]*Desired, len(c.in.Desired))
		for _, d := range c.in.Desired {
			c.desired[d.Address] = d
		}
	}
	return c.desired
}

// prior is d's record in the state planned against, if there is one:
// the one Build kept when it was built against that state.
func (c *computer) prior(d *Desired) (*state.Resource, bool) {
	if d.prior.in == c.st {
		return d.prior.r, d.prior.r != nil
	}
	r, ok := c.st.Resources[d.Address]
	return r, ok
}

// unclaimed returns the paths of outs that neither keep (the action's own
// new outputs) nor any desired resource writes.
func (c *computer) unclaimed(outs []state.Output, keep []Output) []string {
	if len(outs) == 0 {
		return nil
	}
	if c.claimed == nil {
		c.claimed = c.claims()
	}
	var rm []string
	for _, o := range outs {
		if c.claimed[o.Path] || containsPath(keep, o.Path) {
			continue
		}
		rm = append(rm, o.Path)
	}
	return rm
}

// claims are the paths the desired resources write or read (none for a
// destroy).
func (c *computer) claims() map[string]bool {
	claimed := make(map[string]bool, len(c.in.Desired)) // an output each, most often
	if c.in.Options.Destroy {
		return claimed
	}
	for _, d := range c.in.Desired {
		for _, o := range d.Outputs {
			claimed[o.Path] = true
		}
		// A recorded output the manifest now reads (a recording made by
		// a synthesis, say) is kept: it is an input now.
		for _, src := range d.Details().Sources {
			if src.Path != "" {
				claimed[src.Path] = true
			}
		}
	}
	return claimed
}

func containsPath(outs []Output, p string) bool {
	for _, o := range outs {
		if o.Path == p {
			return true
		}
	}
	return false
}

// CallsService reports whether applying the plan calls the service at all:
// creations, replacements, resumed jobs, paid repairs and the cancelling of
// a pending job; moves, deletes of finished work and repairs rendered from
// a recorded transcript do not.
func (p *Plan) CallsService() bool {
	for _, a := range p.Actions {
		if a.Listen != nil && a.Listen.Make > 0 { // a check may be paid, and its take regenerated
			return true
		}
		if a.Desired != nil && (a.Desired.Kind == manifest.KindPackage || a.Desired.Details().Recorded != nil) {
			continue // packaging is local, and a recording is its own output
		}
		switch a.Type {
		case Create, Replace, Resume:
			return true
		case Repair:
			if a.Details().RenderFrom == "" {
				return true
			}
		case Delete:
			if a.Prior != nil && a.Prior.Status == state.StatusPending {
				return true
			}
		}
	}
	return false
}
