package state

// RecordingPath is the path of the human recording whose copy r's
// outputs are (a synthesis with recorded:, as its request names it), ""
// for any other.
func (r *Resource) RecordingPath() string {
	rec, _ := r.RequestFields()["recorded"].(map[string]any)
	path, _ := rec["path"].(string)
	return path
}

// OriginLabel names where r's outputs came from in a table cell: ""
// (the service), "imported", "recorded", or "take" and the first 12
// digits of the take's fingerprint (a take put back). The sentences
// that say it at length are the views' own.
func (r *Resource) OriginLabel() string {
	switch {
	case r.Origin == OriginTake && len(r.Details().Take) >= 12:
		return "take " + r.Details().Take[:12]
	case r.Origin == "" && r.RecordingPath() != "":
		return OriginRecorded // recorded before its origin was
	}
	return r.Origin
}
