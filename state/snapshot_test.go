package state

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSnapshotMatchesJSON(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	f := New()
	f.Serial = 7
	f.JobIntents = []JobIntent{{ID: "i1", Created: fixedNow(), API: "batch", Config: JobIntentConfig{Model: "stt-v2.5", LanguageCode: "hi-IN"}, Files: 3}}
	for i := range snapshotMinResources + 10 {
		r := sampleResource(fmt.Sprintf("<sigh> text %d", i))
		r.Source = &Source{Path: "a.wav", SHA256: "ab"}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	first, err := b.Read() // JSON, writes the snapshot
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.snapshotPath()); err != nil {
		t.Fatalf("no snapshot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CacheDirName, ".gitignore")); err != nil {
		t.Errorf("snapshot written without .voxform/.gitignore: %v", err)
	}
	data, _ := os.ReadFile(b.StatePath())
	snap, ok := b.loadSnapshot(sha256Sum(data))
	if !ok {
		t.Fatal("snapshot not used")
	}
	for a, r := range first.Resources {
		if diff := cmp.Diff(r.RequestFields(), snap.Resources[a].RequestFields()); diff != "" {
			t.Fatalf("%s request: %s", a, diff)
		}
	}
	ignoreRaw := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".rawRequest" }, cmp.Ignore())
	if diff := cmp.Diff(first, snap, cmp.AllowUnexported(Resource{}), ignoreRaw); diff != "" {
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
	if _, ok := b.loadSnapshot(sha256Sum(data)); ok {
		t.Error("corrupt snapshot used")
	}
	// A changed state file is read from its JSON, never from an old snapshot.
	f.Serial = 8
	b.writeState(f)
	got, err := b.Read()
	if err != nil || got.Serial != 8 {
		t.Errorf("serial %d, %v", got.Serial, err)
	}
}
