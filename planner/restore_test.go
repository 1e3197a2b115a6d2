package planner_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// A repair of outputs the state records is a free restore only when the
// cached entry holds exactly the recorded files; otherwise it stays the
// billed repair it is, and its reasons say why. Without the entries'
// files to compare (no CachedFiles), no such repair is restored.
func TestRestoreOnlyWhatTheStateRecords(t *testing.T) {
	const welcome, calls = "synthesis.welcome", `transcription.calls["recordings/a.wav"]`
	recorded := func(st *state.File, addr, format string) planner.CachedFile {
		for _, o := range st.Resources[addr].Outputs {
			if o.Format == format {
				return planner.CachedFile{SHA256: o.SHA256, Size: o.Size}
			}
		}
		t.Fatalf("%s records no %q output", addr, format)
		return planner.CachedFile{}
	}
	forged := planner.CachedFile{SHA256: strings.Repeat("0f", 32), Size: 10}
	for _, tc := range []struct {
		name    string
		addr    string
		files   func(st *state.File) map[string]planner.CachedFile // nil: no CachedFiles
		restore bool
		reason  string
		refused string // the entry's Refused
	}{
		{name: "the recorded audio", addr: welcome, restore: true, files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"audio": recorded(st, welcome, "")}
		}},
		{name: "other audio", addr: welcome, reason: "not restored: the cached audio (sha256 0f0f0f0f0f0f, 10 bytes) is not the recorded build/ivr/welcome.wav", files: func(*state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"audio": forged}
		}},
		{name: "the recorded size", addr: welcome, reason: "is not the recorded build/ivr/welcome.wav", files: func(st *state.File) map[string]planner.CachedFile {
			f := recorded(st, welcome, "")
			f.Size++
			return map[string]planner.CachedFile{"audio": f}
		}},
		{name: "no files to compare", addr: welcome},
		{name: "an entry refused", addr: welcome, refused: "meta: loudness out of bounds", reason: "not restored: meta: loudness out of bounds", files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"audio": recorded(st, welcome, "")}
		}},
		{name: "a format rendered from the recorded JSON", addr: calls, restore: true, files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"json": recorded(st, calls, "json"), "txt": recorded(st, calls, "txt")}
		}},
		{name: "a format rendered from other JSON", addr: calls, reason: "the cached json", files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"json": forged, "txt": recorded(st, calls, "txt")}
		}},
		{name: "no JSON to render from", addr: calls, reason: "the cached entry has no json file", files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"txt": recorded(st, calls, "txt"), "srt": recorded(st, calls, "srt")}
		}},
		{name: "another transcript", addr: calls, reason: "the cached txt", files: func(st *state.File) map[string]planner.CachedFile {
			return map[string]planner.CachedFile{"json": recorded(st, calls, "json"), "txt": forged, "srt": recorded(st, calls, "srt")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseProject()
			st := p.apply(t)
			for _, o := range st.Resources[tc.addr].Outputs {
				delete(p.fs, o.Path) // a fresh clone: the outputs are not committed
			}
			in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Options: planner.Options{Cache: planner.CacheOn}}
			fp := st.Resources[tc.addr].Fingerprint
			in.Cached = func([]string) (map[string]string, error) { return map[string]string{fp: "local"}, nil }
			if tc.files != nil {
				in.CachedFiles = func(fps []string) (map[string]planner.CachedEntry, error) {
					return map[string]planner.CachedEntry{fp: {From: "local", Files: tc.files(st), Kind: st.Resources[tc.addr].Kind, Refused: tc.refused}}, nil
				}
			}
			plan, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			a := plan.Action(tc.addr)
			switch {
			case a == nil:
				t.Fatal("no action")
			case tc.restore && (a.Type != planner.Restore || a.Details().RestoreFrom != "local" || !a.Cost.IsZero()):
				t.Errorf("%s %v (%+v); want a free restore", a.Type, a.Reasons, a.Cost)
			case !tc.restore && (a.Type != planner.Repair || a.Cost.IsZero()):
				t.Errorf("%s %v (%+v); want a billed repair", a.Type, a.Reasons, a.Cost)
			case !tc.restore && !strings.Contains(strings.Join(a.Reasons, "; "), tc.reason):
				t.Errorf("reasons %q; want one saying %q", a.Reasons, tc.reason)
			}
		})
	}
}

// A repair of a missing output looks the recorded bytes up where the
// record keeps them (state.Resource.CacheKey): an imported file under its
// content key, a take put back under the take's own fingerprint, never
// the request's entry, which is the service's answer (here: holding the
// very bytes, as a poisoned cache might). What it finds there is taken
// only when it holds the recorded files.
func TestRestoreLooksUpTheRecordsCacheKey(t *testing.T) {
	const welcome = "synthesis.welcome"
	take := strings.Repeat("7a", 32)
	for _, tc := range []struct {
		name, origin, take string
		under              func(r *state.Resource) string // the key the entry is under
		other              bool                           // the entry holds other bytes
		restore            bool
	}{
		{name: "imported, under its content", origin: state.OriginImported, under: (*state.Resource).CacheKey, restore: true},
		{name: "imported, under the request", origin: state.OriginImported, under: func(r *state.Resource) string { return r.Fingerprint }},
		{name: "imported, other bytes under its content", origin: state.OriginImported, under: (*state.Resource).CacheKey, other: true},
		{name: "a take, under its own fingerprint", origin: state.OriginTake, take: take, under: func(*state.Resource) string { return take }, restore: true},
		{name: "a take, under the request", origin: state.OriginTake, take: take, under: func(r *state.Resource) string { return r.Fingerprint }},
		{name: "the service's, under the request", under: func(r *state.Resource) string { return r.Fingerprint }, restore: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseProject()
			st := p.apply(t)
			r := st.Resources[welcome]
			r.Origin, r.Edit().Take = tc.origin, tc.take
			delete(p.fs, r.Outputs[0].Path)
			files := map[string]planner.CachedFile{"audio": {SHA256: r.Outputs[0].SHA256, Size: r.Outputs[0].Size}}
			if tc.other {
				files["audio"] = planner.CachedFile{SHA256: strings.Repeat("0f", 32), Size: 10}
			}
			key := tc.under(r)
			in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Options: planner.Options{Cache: planner.CacheOn}}
			in.Cached = func([]string) (map[string]string, error) { return map[string]string{}, nil }
			in.CachedFiles = func(fps []string) (map[string]planner.CachedEntry, error) {
				return map[string]planner.CachedEntry{key: {From: "local", Files: files, Kind: r.Kind}}, nil
			}
			plan, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			a := plan.Action(welcome)
			switch {
			case a == nil:
				t.Fatal("no action")
			case tc.restore && (a.Type != planner.Restore || !a.Cost.IsZero() || a.CacheKey() != key):
				t.Errorf("%s %v (%+v), key %.12s; want a free restore from %.12s", a.Type, a.Reasons, a.Cost, a.CacheKey(), key)
			case !tc.restore && (a.Type != planner.Repair || a.Cost.IsZero()):
				t.Errorf("%s %v (%+v); want a billed repair", a.Type, a.Reasons, a.Cost)
			}
		})
	}
}
