package planner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/voxform/voxform/owned"
)

// FuzzReadSaved: any bytes give a saved plan or an error, never a panic; a
// plan that decodes names only paths voxform may own, every action has
// what its type needs, and it removes or moves only outputs it recorded.
func FuzzReadSaved(f *testing.F) {
	const good = `{"format":"voxform-plan","version":1,"plan":{"actions":[` +
		`{"address":"synthesis.a","action":"move","desired":{"address":"synthesis.a","kind":"synthesis","fingerprint":"f","outputs":[{"path":"b.wav"}]},` +
		`"prior":{"kind":"synthesis","status":"complete","fingerprint":"f","outputs":[{"path":"a.wav","sha256":"00","size":1}],"created_at":"2026-11-22T05:00:00Z","updated_at":"2026-11-22T05:00:00Z"},` +
		`"moves":[{"from":"a.wav","to":"b.wav","sha256":"00"}],"removes":["a.wav"]}],"no_ops":0,"cost":{},"options":{},"lineage":"l","serial":1}}`
	f.Add([]byte(good))
	for _, p := range []string{"../victim.txt", "/etc/passwd", "a/../../b", ".voxform/x", "voxform.state.json.lock", "main.yaml"} {
		f.Add([]byte(strings.Replace(good, `"to":"b.wav"`, `"to":"`+p+`"`, 1)))
		f.Add([]byte(strings.Replace(good, `"removes":["a.wav"]`, `"removes":["`+p+`"]`, 1)))
		f.Add([]byte(strings.Replace(good, `"outputs":[{"path":"b.wav"}]`, `"outputs":[{"path":"`+p+`"}]`, 1)))
	}
	f.Add([]byte(`{"format":"voxform-plan","version":1,"plan":{"actions":[{"address":"x","action":"create"}]}}`))
	f.Add([]byte(`{"format":"voxform-plan","version":1,"plan":{"actions":[null]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSaved(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, a := range s.Plan.Actions {
			for _, u := range a.paths() {
				if err := owned.CheckRel(u.path); err != nil {
					t.Fatalf("%s: %s %q decoded: %v", a.Address, u.role, u.path, err)
				}
			}
			if err := a.checkShape(); err != nil {
				t.Fatalf("decoded: %v", err)
			}
			if err := a.checkConsistent(); err != nil {
				t.Fatalf("decoded: %v", err)
			}
		}
	})
}
