package planner

import (
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// Entry returns the state entry to record for d once its work is done, with
// what the planner knows filled in: kind, fingerprint, canonical request,
// source (transcriptions and embeddings) and consent. The executor adds the
// outputs with their hashes, the remote identifiers, what was billed, and for
// transcriptions the model, detected language and duration.
func (d *Desired) Entry() *state.Resource {
	r := &state.Resource{
		Kind:        string(d.Kind),
		Status:      state.StatusComplete,
		Fingerprint: d.Fingerprint,
		Request:     d.RequestFields(),
	}
	dt := state.Details{Consent: d.Details().Consent}
	if d.Kind == manifest.KindTranscription || d.Kind == manifest.KindEmbedding {
		for _, s := range d.Details().Sources {
			if s.Role == "source" || s.Role == "reference_audio" {
				dt.Source = &state.Source{Path: s.Path, SHA256: s.SHA256, URL: s.URL}
			}
		}
	}
	r.WithDetails(dt)
	if d.Kind == manifest.KindSynthesis {
		r.BilledCharacters = d.Characters
	}
	return r
}

// OutputFiles lists the recorded outputs, whose hashes a refreshing plan
// needs; callers hash them in parallel up front (other files, such as a
// declared path an output was moved to by hand, are hashed on demand).
func OutputFiles(st *state.File) []string {
	seen := make(map[string]bool, len(st.Resources)) // an output each, most often
	out := make([]string, 0, len(st.Resources))
	for _, r := range st.Resources {
		for _, o := range r.Outputs {
			if o.Path != "" && !seen[o.Path] {
				seen[o.Path] = true
				out = append(out, o.Path)
			}
		}
	}
	return out
}
