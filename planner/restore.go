package planner

import (
	"fmt"
	"sort"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// restore turns each action that would bill for outputs the cache holds
// into a free Restore: a create, a replace, or a repair that is not
// rendered from a recorded transcript (of a recorded synthesis, a repair
// only; see restorable). A replacement forced with -replace
// is the work asked for again, never a restore. A resource whose request
// depends on an output of this plan (a vc-v1 synthesis whose embedding is
// made first) has no final fingerprint yet and is left as it is. A repair
// of outputs the state records is a restore only when the cache holds
// exactly the recorded files (see restoreRecorded).
func (c *computer) restore() error {
	if c.in.Cached == nil {
		return nil
	}
	var fresh, recorded []*Action
	for _, a := range c.actions {
		switch {
		case !restorable(a) || c.replace[a.Address]: // -replace asks for the work again
		case a.KeepsRecord():
			recorded = append(recorded, a)
		default:
			fresh = append(fresh, a)
		}
	}
	if err := c.restoreFresh(fresh); err != nil {
		return err
	}
	return c.restoreRecorded(recorded)
}

// restoreFresh makes a Restore of each action whose fingerprint the
// cache holds, asking it once for all of them: with CachedFiles, only
// where the entry is of the resource's kind and not refused.
func (c *computer) restoreFresh(acts []*Action) error {
	if len(acts) == 0 {
		return nil
	}
	if c.in.CachedFiles != nil {
		return c.restoreEntries(acts, nil)
	}
	where, err := c.in.Cached(fingerprints(acts))
	if err != nil {
		return fmt.Errorf("look up the cache: %w", err)
	}
	for _, a := range acts {
		if from, ok := where[a.CacheKey()]; ok {
			a.Type, a.Edit().RestoreFrom, a.Cost = Restore, from, Cost{}
		}
	}
	return nil
}

// restoreRecorded makes a Restore of each repair whose cached entry holds
// the files the state records, asking the cache once for all of them. A
// cached entry that holds other content stays a billed repair, and its
// reasons say why: a restore puts back what the state recorded or
// nothing.
func (c *computer) restoreRecorded(acts []*Action) error {
	if len(acts) == 0 || c.in.CachedFiles == nil {
		return nil
	}
	return c.restoreEntries(acts, (*Action).EntryMismatch)
}

// restoreEntries makes a Restore of each action of acts whose cached
// entry (CachedFiles, asked once for all) a restore may take: of its
// kind, not refused, and, with mismatch, holding what mismatch asks. An
// entry that may not be taken leaves the action billed, with the reason.
func (c *computer) restoreEntries(acts []*Action, mismatch func(*Action, map[string]CachedFile) string) error {
	found, err := c.in.CachedFiles(fingerprints(acts))
	if err != nil {
		return fmt.Errorf("look up the cache: %w", err)
	}
	for _, a := range acts {
		e, ok := found[a.CacheKey()]
		if !ok {
			continue
		}
		why := e.Refused
		if why == "" && e.Kind != string(a.Desired.Kind) {
			why = fmt.Sprintf("the cached entry is of a %q, not a %s", e.Kind, a.Desired.Kind)
		}
		if why == "" && mismatch != nil {
			why = mismatch(a, e.Files)
		}
		if why != "" {
			a.Reasons = append(a.Reasons, "not restored: "+why)
			continue
		}
		a.Type, a.Edit().RestoreFrom, a.Cost = Restore, e.From, Cost{}
	}
	return nil
}

// fingerprints returns the cache keys of acts (Action.CacheKey), each
// once.
func fingerprints(acts []*Action) []string {
	seen := make(map[string]bool, len(acts))
	fps := make([]string, 0, len(acts))
	for _, a := range acts {
		if fp := a.CacheKey(); !seen[fp] {
			seen[fp] = true
			fps = append(fps, fp)
		}
	}
	return fps
}

// EntryRole is the role, in a cache entry of a resource of kind, of the
// file that holds its output of format: audio for a synthesis's audio,
// embedding for an embedding, the format for a transcript. "" for an
// output made from the others (a synthesis's cue files), which no entry
// holds; nor a synthesis's delivered outputs, kept under their own
// fingerprints (DeliveryFingerprint).
func EntryRole(kind manifest.Kind, format string) string {
	switch kind {
	case manifest.KindSynthesis:
		if format == "" {
			return "audio"
		}
		return ""
	case manifest.KindEmbedding:
		return "embedding"
	case manifest.KindPackage:
		return "" // made again from its chapters, locally and free
	}
	return format
}

// KeepsRecord reports whether restoring a puts back outputs that the
// state records, complete, for the same request (a repair of a recorded
// resource): the record stays as it is, history included, and the cached
// files must be the recorded ones. A new resource, one whose request
// changed, or one left pending, is recorded with what its cached entry
// holds.
func (a *Action) KeepsRecord() bool {
	return a.Prior != nil && a.Desired != nil && a.Prior.Fingerprint == a.Desired.Fingerprint &&
		a.Prior.Status == state.StatusComplete
}

// CacheKey is where a restore of a looks its outputs up in the output
// cache: for one that keeps its record, where the recorded bytes live
// (state.Resource.CacheKey: a take's own fingerprint, an imported
// file's content key); otherwise the desired fingerprint, whose entry is
// the service's answer to the request. Planning and applying a restore
// both ask.
func (a *Action) CacheKey() string {
	if a.KeepsRecord() {
		if k := a.Prior.CacheKey(); k != "" {
			return k
		}
	}
	return a.Desired.Fingerprint
}

// RecordedFiles returns, for an action that keeps its record, the
// recorded output of each file a restore takes from the cache, by entry
// role: those of the outputs the resource still declares. nil otherwise.
func (a *Action) RecordedFiles() map[string]state.Output {
	if !a.KeepsRecord() {
		return nil
	}
	out := map[string]state.Output{}
	for _, d := range a.Desired.Outputs {
		role := EntryRole(a.Desired.Kind, d.Format)
		if role == "" {
			continue
		}
		if o, ok := findFormat(a.Prior.Outputs, d.Format); ok {
			out[role] = o
		}
	}
	return out
}

// EntryMismatch says why a restore of a may not take the files of a
// cached entry (by role): "" when each file the state records for it is
// in the entry with the recorded SHA-256 and size. A transcript format
// the entry lacks is rendered from the entry's JSON, which must then be
// the recorded one. Planning and applying a restore both ask (the entry
// may change between the two).
func (a *Action) EntryMismatch(files map[string]CachedFile) string {
	rec := a.RecordedFiles()
	roles := make([]string, 0, len(rec))
	for role := range rec {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		want := rec[role]
		got, ok := files[role]
		switch {
		case !ok && a.Desired.Kind == manifest.KindTranscription && rec["json"].SHA256 != "" && files["json"].SHA256 != "":
			// Rendered from the entry's JSON, which is compared in turn.
		case !ok:
			return fmt.Sprintf("the cached entry has no %s file for %s", role, want.Path)
		case got.SHA256 != want.SHA256 || got.Size != want.Size:
			return fmt.Sprintf("the cached %s (sha256 %.12s, %d bytes) is not the recorded %s (sha256 %.12s, %d bytes)",
				role, got.SHA256, got.Size, want.Path, want.SHA256, want.Size)
		}
	}
	return ""
}

// restorable reports whether the outputs of a could come from the cache.
// A recorded synthesis's only when a puts back what the state records
// (KeepsRecord: the cached bytes must be the recorded ones): its
// fingerprint is predictable (the recording's hash, path, convert, the
// converter and the format), so an entry under it may hold any audio,
// and making it from the recording is free and exact.
func restorable(a *Action) bool {
	switch {
	case a.Desired == nil || a.Desired.Fingerprint == "" || a.Desired.Kind == manifest.KindVoice || a.Desired.Kind == manifest.KindPackage:
		return false
	case a.Desired.Details().Recorded != nil && !a.KeepsRecord():
		return false
	case a.Type == Create, a.Type == Replace:
	case a.Type == Repair && a.Details().RenderFrom == "" && len(a.Details().Moves) == 0:
	default:
		return false
	}
	if len(a.Desired.Details().Chunks) > 0 && a.Desired.Details().Written != "" {
		// The cue files of a chunked synthesis need its chunks' audio:
		// it is joined again from the chunks the cache holds.
		return false
	}
	for _, src := range a.Desired.Details().Sources {
		if src.From != "" && src.SHA256 == "" {
			return false // made by this plan: the request is not final
		}
	}
	return true
}

// Subset is the plan of the actions keep selects, priced again (its cost
// and its worst case); what they
// depend on outside it must be done already (a Restore depends on nothing).
func (p *Plan) Subset(keep func(*Action) bool) *Plan {
	sub := &Plan{Options: p.Options, Lineage: p.Lineage, Serial: p.Serial, NoOps: p.NoOps}
	for _, a := range p.Actions {
		if keep(a) {
			sub.Actions = append(sub.Actions, a)
		}
	}
	sub.price()
	return sub
}
