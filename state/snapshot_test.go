package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/voxform/voxform/internal/rare"
	"golang.org/x/sys/unix"
)

func TestSnapshotMatchesJSON(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	f := New()
	f.Serial = 7
	f.JobIntents = []JobIntent{{ID: "i1", Created: fixedNow(), API: "batch", Config: JobIntentConfig{Model: "stt-v2.5", LanguageCode: "hi-IN"}, Files: 3}}
	for i := range snapshotMinResources + 10 {
		r := sampleResource(fmt.Sprintf("<sigh> text %d", i))
		r.Edit().Source = &Source{Path: "a.wav", SHA256: "ab"}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	first, err := b.Read(context.Background()) // JSON, writes the snapshot
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.snapshotPath()); err != nil {
		t.Fatalf("no snapshot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CacheDirName, ".gitignore")); err != nil {
		t.Errorf("snapshot written without .voxform/.gitignore: %v", err)
	}
	key := snapshotKeyOf(t, b.StatePath())
	snap, ok := b.loadSnapshot(key)
	if !ok {
		t.Fatal("snapshot not used")
	}
	for a, r := range first.Resources {
		if diff := cmp.Diff(r.RequestFields(), snap.Resources[a].RequestFields()); diff != "" {
			t.Fatalf("%s request: %s", a, diff)
		}
	}
	ignoreRaw := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".rawRequest" }, cmp.Ignore())
	if diff := cmp.Diff(first, snap, cmp.AllowUnexported(Resource{}, rare.Of[Details]{}), ignoreRaw); diff != "" {
		t.Fatal(diff)
	}
	if len(snap.JobIntents) != 1 || snap.JobIntents[0].Files != 3 {
		t.Errorf("job intents lost in the snapshot: %+v", snap.JobIntents)
	}
	if snap.Resources[`synthesis.m["3"]`].RequestFields()["text"] != "<sigh> text 3" {
		t.Error("request lost in the snapshot")
	}

	// A torn snapshot is ignored.
	sb, _ := os.ReadFile(b.snapshotPath())
	sb[len(sb)-5] ^= 0xff
	os.WriteFile(b.snapshotPath(), sb, 0o644)
	if _, ok := b.loadSnapshot(key); ok {
		t.Error("corrupt snapshot used")
	}
	// A changed state file is read from its JSON, never from an old snapshot.
	f.Serial = 8
	b.writeState(f)
	got, err := b.Read(context.Background())
	if err != nil || got.Serial != 8 {
		t.Errorf("serial %d, %v", got.Serial, err)
	}
}

// snapshotKeyOf is the snapshot key of the state file at path as it is now.
func snapshotKeyOf(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return snapshotKey(sha256.Sum256(data), &st)
}

// largeState writes a state holding more resources than a snapshot is kept
// for, each with the given fingerprint.
func largeState(t *testing.T, b *Local, fingerprint string) *File {
	t.Helper()
	f := New()
	for i := range snapshotMinResources + 10 {
		r := sampleResource(fmt.Sprintf("text %d", i))
		r.Fingerprint = fingerprint
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSnapshotBoundToThisFile: a snapshot is used only for the copy of the
// state file it was made from. A hostile snapshot keyed to a benign state
// file's SHA-256 (as a repository could commit both) is not used, and a
// snapshot copied with its state file is made again.
func TestSnapshotBoundToThisFile(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	largeState(t, b, "hostile")
	if _, err := b.Read(context.Background()); err != nil { // JSON, writes the snapshot
		t.Fatal(err)
	}
	hostile, err := os.ReadFile(b.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	largeState(t, b, "benign")
	benign, err := os.ReadFile(b.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(benign)
	forged := append(sum[:], hostile[32:]...)
	writeFile(t, b.snapshotPath(), string(forged))
	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for a, r := range got.Resources {
		if r.Fingerprint != "benign" {
			t.Fatalf("%s has fingerprint %q from a snapshot keyed to the file's SHA-256 alone; the file says benign", a, r.Fingerprint)
		}
	}

	// A copy of the directory (a clone of a repository that committed
	// .voxform/, say) does not use the snapshot it carries.
	made, err := os.ReadFile(b.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.loadSnapshot(snapshotKeyOf(t, b.StatePath())); !ok {
		t.Fatal("the snapshot of this file is not used")
	}
	copyDir := t.TempDir()
	if err := os.Mkdir(filepath.Join(copyDir, CacheDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(copyDir, StateFileName), string(benign))
	writeFile(t, filepath.Join(copyDir, CacheDirName, snapshotName), string(made))
	c := NewLocal(copyDir)
	if _, ok := c.loadSnapshot(snapshotKeyOf(t, c.StatePath())); ok {
		t.Error("a copied snapshot matches the copied state file")
	}
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(c.snapshotPath()); bytes.Equal(again, made) {
		t.Error("the copied snapshot was used, not made again")
	}
}
