package planview

import (
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// withOrigin adds to the reason r of a, when a changes or removes
// outputs that were not made by the service, where they came from: an
// imported file, or an earlier take put back ('voxform use').
func withOrigin(r string, a *planner.Action) string {
	if a.Prior == nil || a.Type != planner.Replace && a.Type != planner.Repair && a.Type != planner.Delete {
		return r
	}
	var from string
	switch a.Prior.Origin {
	case state.OriginImported:
		from = "replaces an imported output"
		if a.Type == planner.Delete {
			from = "removes an imported output"
		}
	case state.OriginTake:
		from = "replaces take " + short(a.Prior.Take) + " put back by use"
		if a.Type == planner.Delete {
			from = "removes take " + short(a.Prior.Take) + " put back by use"
		}
	default:
		return r
	}
	if r != "" {
		r += "; "
	}
	return r + from
}

// short is the first 12 characters of a fingerprint.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
