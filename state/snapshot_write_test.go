package state

import (
	"fmt"
	"testing"
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
	snapshotMatchesFile(t, b, "writing the state kept no snapshot of it: the next read decodes the JSON")
}
