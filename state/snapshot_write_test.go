package state

import (
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSnapshotKeptOnWrite: writing a large state keeps the snapshot of the
// file just written, so that the read after an apply decodes no JSON; the
// snapshot holds what the JSON does.
func TestSnapshotKeptOnWrite(t *testing.T) {
	b := NewLocal(t.TempDir())
	f := New()
	f.Serial = 3
	f.MovedTo = &Moved{Backend: "pg", Where: "pg workspace default", At: fixedNow(), Who: "ci"}
	for i := range snapshotMinResources + 10 {
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = sampleResource(fmt.Sprintf("<sigh> text %d", i))
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	snap, ok := b.loadSnapshot(snapshotKeyOf(t, b.StatePath()))
	if !ok {
		t.Fatal("writing the state kept no snapshot of it: the next read decodes the JSON")
	}
	data, err := os.ReadFile(b.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := decodeBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	for a, r := range fromJSON.Resources {
		if diff := cmp.Diff(r.RequestFields(), snap.Resources[a].RequestFields()); diff != "" {
			t.Fatalf("%s request: %s", a, diff)
		}
	}
	ignoreRaw := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".rawRequest" }, cmp.Ignore())
	if diff := cmp.Diff(fromJSON, snap, cmp.AllowUnexported(Resource{}), ignoreRaw); diff != "" {
		t.Fatal(diff)
	}
}
