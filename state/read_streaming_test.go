package state

import (
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// allocated is what fn allocates on the heap, in bytes.
func allocated(fn func()) int64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestSnapshotHitReadsTheFileStreaming: a state file with a snapshot is
// hashed as it is read, never held whole: reading it allocates what
// taking the snapshot does and little more (a state of 100,000 resources
// held its 100 MB file beside the snapshot it decoded).
func TestSnapshotHitReadsTheFileStreaming(t *testing.T) {
	l := NewLocal(t.TempDir())
	f := New()
	for i := range snapshotMinResources {
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = sampleResource(strings.Repeat("a long prompt ", 200) + fmt.Sprint(i))
	}
	if err := l.writeState(f); err != nil {
		t.Fatal(err)
	}
	real, err := l.RealStatePath()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		t.Fatal(err)
	}
	key := snapshotKey(sha256.Sum256(data), &st)
	size := int64(len(data))
	data = nil
	snap := allocated(func() {
		if _, ok := l.loadSnapshot(key); !ok {
			t.Fatal("no snapshot of the state file written")
		}
	})
	read := allocated(func() {
		if got, _, err := l.readStateFile(real); err != nil || len(got.Resources) != snapshotMinResources {
			t.Fatalf("read: %v", err)
		}
	})
	t.Logf("state file %d B; the snapshot allocates %d B, reading the state %d B", size, snap, read)
	if read-snap > size/4 {
		t.Errorf("reading a state file with a snapshot allocates %d B more than the snapshot, for a file of %d B", read-snap, size)
	}
}
