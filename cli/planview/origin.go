package planview

import (
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// withOrigin adds to the reason r of a, when a changes or removes
// outputs that were not made by the service, where they came from
// (originPhrase).
func withOrigin(r string, a *planner.Action) string {
	from := originPhrase(a)
	if from == "" {
		return r
	}
	if r != "" {
		r += "; "
	}
	return r + from
}

// originPhrase says, when a changes or removes outputs that were not
// made by the service, where they came from: an imported file, an
// earlier take put back ('voxform use'), or a human recording
// (recorded:); "" otherwise.
func originPhrase(a *planner.Action) string {
	if a.Prior == nil || a.Type != planner.Replace && a.Type != planner.Repair && a.Type != planner.Delete {
		return ""
	}
	verb := "replaces"
	if a.Type == planner.Delete {
		verb = "removes"
	}
	if path := a.Prior.RecordingPath(); path != "" && (a.Prior.Origin == "" || a.Prior.Origin == state.OriginRecorded) {
		return verb + " the recording " + path
	}
	switch a.Prior.Origin {
	case state.OriginImported:
		return verb + " an imported output"
	case state.OriginTake:
		return verb + " take " + short(a.Prior.Details().Take) + " put back by use"
	}
	return ""
}

// short is the first 12 characters of a fingerprint.
func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
