package state

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/voxform/voxform/internal/rare"
)

// Closing a recorder of a large state keeps the snapshot of the file it
// wrote, so that the first read after an apply is not a JSON decode; the
// snapshot holds what the JSON does.
func TestSnapshotKeptAtClose(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	defer lk.Unlock()
	rec.RecordJobIntent(JobIntent{API: "batch", Config: JobIntentConfig{Model: "stt", LanguageCode: "hi-IN"}, Files: 2})
	for i := range snapshotMinResources {
		r := sampleResource(fmt.Sprintf("<sigh> text %d", i))
		r.Edit().Source = &Source{Path: "a.wav", SHA256: "ab"}
		if err := rec.Record(fmt.Sprintf(`synthesis.m["%d"]`, i), r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	snapshotMatchesFile(t, b, "no snapshot of the state file written at close")
	if got, err := b.Read(context.Background()); err != nil || got.Serial != 1 || len(got.Resources) != snapshotMinResources {
		t.Fatalf("read: %v", err)
	}
}

// A snapshot of more resources than one chunk holds reads back as the
// JSON does, fields a resource leaves empty included (gob omits them).
func TestSnapshotChunksMatchJSON(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	f := New()
	for i := range 2*snapshotChunk + 7 {
		r := sampleResource(fmt.Sprintf("text %d", i))
		if i%2 == 0 {
			details := r.Edit()
			details.JobID, details.Source, r.BilledCharacters, r.Outputs = fmt.Sprintf("job-%d", i), &Source{Path: "a.wav", SHA256: "ab"}, int64(i), nil
		}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	decoded, err := b.Read(context.Background()) // JSON, writes the snapshot
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := b.loadSnapshot(snapshotKeyOf(t, b.StatePath()))
	if !ok {
		t.Fatal("snapshot not used")
	}
	ignoreRaw := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".rawRequest" }, cmp.Ignore())
	if diff := cmp.Diff(decoded, snap, cmp.AllowUnexported(Resource{}, rare.Of[Details]{}), ignoreRaw); diff != "" {
		t.Fatal(diff)
	}
}

// A snapshot keeps what gob would drop: a pointer to a zero value (a true
// peak of 0.00 dBTP, an integrated loudness of 0 LUFS, with_denoise:
// false, num_speakers: 0). Read back from the snapshot, the state is the
// one its JSON holds, and an apply that opens it writes them back.
func TestSnapshotKeepsZeroValues(t *testing.T) {
	dir := t.TempDir()
	b := NewLocal(dir)
	f := New()
	no, zero, peak := false, 0, 0.0
	f.JobIntents = []JobIntent{{ID: "i1", Created: fixedNow(), API: "batch", Files: 2,
		Config: JobIntentConfig{Model: "stt", LanguageCode: "hi-IN", NumSpeakers: &zero, WithDenoise: &no}}}
	for i := range snapshotMinResources + 10 {
		r := sampleResource(fmt.Sprintf("text %d", i))
		r.Outputs[0].Loudness = &Loudness{Integrated: &peak, TruePeak: &peak}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	snapshotMatchesFile(t, b, "no snapshot kept")
}

// snapshotMatchesFile fails unless b keeps a snapshot of its state file
// (else it fails with missing) holding exactly what the file's JSON does,
// the requests field by field first.
func snapshotMatchesFile(t *testing.T, b *Local, missing string) {
	t.Helper()
	snap, ok := b.loadSnapshot(snapshotKeyOf(t, b.StatePath()))
	if !ok {
		t.Fatal(missing)
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
	if diff := cmp.Diff(fromJSON, snap, cmp.AllowUnexported(Resource{}, rare.Of[Details]{}), ignoreRaw); diff != "" {
		t.Fatalf("the snapshot differs from the state file (-json +snapshot):\n%s", diff)
	}
}
