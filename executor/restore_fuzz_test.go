package executor

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// FuzzRestoreEntry feeds hostile cache entries (from a teammate who can
// write the remote, or a local cache edited by hand) through what a
// restore does with one before writing anything: cache.DecodeEntry, then
// checkEntry, for a resource the state records and for a new one. Nothing
// panics, and an entry accepted is well formed, holds exactly the
// recorded files, and carries only metadata a state may hold.
func FuzzRestoreEntry(f *testing.F) {
	fp := strings.Repeat("ab", 32)
	audio, other := strings.Repeat("01", 32), strings.Repeat("02", 32)
	entry := func(kind, files, meta string) string {
		return `{"version":1,"fingerprint":"` + fp + `","kind":"` + kind + `","files":[` + files + `],"meta":{` + meta + `},"created_at":"2026-11-27T10:00:00Z"}`
	}
	audioFile := `{"role":"audio","sha256":"` + audio + `","size":100}`
	f.Add([]byte(entry("synthesis", audioFile, `"integrated_lufs":-18.3,"true_peak_dbtp":-7.2`)))
	f.Add([]byte(entry("synthesis", `{"role":"audio","sha256":"`+other+`","size":100}`, ``)))
	f.Add([]byte(entry("synthesis", `{"role":"audio","sha256":"`+audio+`","size":99}`, ``)))
	f.Add([]byte(entry("synthesis", audioFile+`,`+audioFile, ``)))
	f.Add([]byte(entry("synthesis", audioFile, `"integrated_lufs":1e300`)))
	f.Add([]byte(entry("synthesis", audioFile, `"integrated_lufs":1e400`)))
	f.Add([]byte(entry("embedding", audioFile, ``)))
	for _, meta := range []string{
		`"model":"stt-v3","detected_language":"hi-IN","duration_seconds":12.5`,
		`"model":"\u001b[2K\u001b[1Astt-v3"`,
		`"detected_language":"en\u202egnp."`,
		`"model":"` + strings.Repeat("m", 200) + `"`,
		`"detected_language":"\xff\xfe"`,
		`"duration_seconds":-1`,
		`"duration_seconds":1e12`,
		`"true_peak_dbtp":-1e300`,
	} {
		f.Add([]byte(entry("transcription", `{"role":"json","sha256":"`+other+`","size":10}`, meta)))
	}
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(entry("synthesis", audioFile, ``) + `{}`))

	recorded := &planner.Action{Address: "synthesis.a", Type: planner.Restore,
		Desired: &planner.Desired{Address: "synthesis.a", Kind: manifest.KindSynthesis, Fingerprint: fp, Outputs: []planner.Output{{Path: "a.wav"}}},
		Prior: &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: fp,
			Outputs: []state.Output{{Path: "a.wav", SHA256: audio, Size: 100}}}}
	fresh := &planner.Action{Address: "transcription.t", Type: planner.Restore,
		Desired: &planner.Desired{Address: "transcription.t", Kind: manifest.KindTranscription, Fingerprint: fp,
			Outputs: []planner.Output{{Path: "t.json", Format: "json"}, {Path: "t.txt", Format: "txt"}}}}

	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := cache.DecodeEntry(bytes.NewReader(data), fp)
		if err != nil {
			return
		}
		for _, a := range []*planner.Action{recorded, fresh} {
			if checkEntry(a, e) != nil {
				continue
			}
			assertRestorable(t, a, e, fp)
		}
	})
}

// assertRestorable fails unless the entry e, accepted for a, is what a
// restore of a may take; each rule is checked here on its own, not by the
// code under test.
func assertRestorable(t *testing.T, a *planner.Action, e *cache.Entry, fp string) {
	t.Helper()
	if e.Version != cache.FormatVersion || e.Fingerprint != fp || e.Kind != string(a.Desired.Kind) {
		t.Fatalf("accepted an entry of version %d, fingerprint %q, kind %q", e.Version, e.Fingerprint, e.Kind)
	}
	roles := map[string]bool{}
	for _, f := range e.Files {
		if !strings.Contains(" audio embedding json txt srt vtt ", " "+f.Role+" ") || roles[f.Role] {
			t.Fatalf("accepted a file of role %q (seen before: %v)", f.Role, roles[f.Role])
		}
		roles[f.Role] = true
		if !cache.ValidKey(f.SHA256) || f.Size < 0 {
			t.Fatalf("accepted file %s: sha256 %q, size %d", f.Role, f.SHA256, f.Size)
		}
	}
	var recorded []state.Output
	if a.Prior != nil {
		recorded = a.Prior.Outputs
	}
	for _, p := range recorded {
		f, ok := e.File(planner.EntryRole(a.Desired.Kind, p.Format))
		if !ok || f.SHA256 != p.SHA256 || f.Size != p.Size {
			t.Fatalf("accepted %+v for the recorded %+v", f, p)
		}
	}
	for name, s := range map[string]string{"model": e.Meta.Model, "detected_language": e.Meta.DetectedLanguage} {
		if len(s) > state.MaxLabel || !utf8.ValidString(s) || strings.ContainsFunc(s, unsafeRune) {
			t.Fatalf("accepted %s %q", name, s)
		}
	}
	if d := e.Meta.DurationSeconds; !(d >= 0 && d <= state.MaxRecordedSeconds) {
		t.Fatalf("accepted duration_seconds %g", d)
	}
	for _, v := range []*float64{e.Meta.IntegratedLUFS, e.Meta.TruePeakDBTP} {
		if v != nil && !(math.Abs(*v) <= state.MaxLoudnessMagnitude) {
			t.Fatalf("accepted a loudness figure of %g", *v)
		}
	}
}

// unsafeRune reports a character that must not reach a terminal from a
// recorded label: C0 and C1 controls, DEL, bidirectional controls.
func unsafeRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f
}
