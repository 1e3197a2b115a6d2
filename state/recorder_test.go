package state

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/internal/heaptest"
)

func fixedNow() time.Time { return time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC) }

// openLocked locks dir and opens its recorder.
func openLocked(t testing.TB, dir string) (*Local, Unlocker, *Recorder) {
	t.Helper()
	b := NewLocal(dir)
	lk, err := b.Lock(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.Open(context.Background(), lk, fixedNow)
	if err != nil {
		lk.Unlock()
		t.Fatal(err)
	}
	return b, lk, rec
}

func TestRecorderFoldAndReload(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordPending("job-1", "batch", map[string]*Resource{
		`transcription.calls["a.wav"]`: {Kind: "transcription", Fingerprint: "f1"},
		`transcription.calls["b.wav"]`: {Kind: "transcription", Fingerprint: "f2"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(`transcription.calls["a.wav"]`, (&Resource{Kind: "transcription", Fingerprint: "f1"}).WithDetails(Details{JobID: "job-1"})); err != nil {
		t.Fatal(err)
	}
	if err := rec.Move("synthesis.a", "synthesis.z", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	// Before Close: the journal holds everything, a reader sees it.
	mid, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if mid.Serial != 0 || len(mid.Resources) != 3 {
		t.Fatalf("mid-apply read: serial %d, %d resources", mid.Serial, len(mid.Resources))
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	if _, err := os.Stat(b.JournalPath()); !os.IsNotExist(err) {
		t.Errorf("journal not removed after fold: %v", err)
	}
	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Serial != 1 || got.Lineage == "" {
		t.Errorf("serial %d lineage %q", got.Serial, got.Lineage)
	}
	want := map[string]string{
		"synthesis.z":                  StatusComplete,
		`transcription.calls["a.wav"]`: StatusComplete,
		`transcription.calls["b.wav"]`: StatusPending,
	}
	for a, st := range want {
		r, ok := got.Resources[a]
		if !ok || r.Status != st {
			t.Errorf("%s: %+v", a, r)
		}
	}
	if r := got.Resources[`transcription.calls["b.wav"]`]; r.Details().JobID != "job-1" || r.Details().JobAPI != "batch" {
		t.Errorf("pending entry lost its job: %+v", r)
	}
	if len(got.Resources) != 3 {
		t.Errorf("resources: %v", got.Addresses())
	}
}

func TestRecorderNothingRecordedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	defer lk.Unlock()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.StatePath()); !os.IsNotExist(err) {
		t.Errorf("state written for an empty run: %v", err)
	}
}

// A process that died leaves a journal: Read replays it in memory, Open
// folds it, a torn last line is ignored.
func TestJournalReplayAfterCrash(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	for i := range 5 {
		if err := rec.Record(fmt.Sprintf("synthesis.s%d", i), sampleResource("t")); err != nil {
			t.Fatal(err)
		}
	}
	// Die without Close, with half a record at the end.
	rec.store.(*journalStore).j.f.Write([]byte(`1234abcd {"op":"put","resources":{"synthesis.torn"`))
	lk.Unlock()

	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 5 || got.Resources["synthesis.torn"] != nil {
		t.Fatalf("replay: %v", got.Addresses())
	}
	if _, err := os.Stat(b.JournalPath()); err != nil {
		t.Fatalf("Read must not remove the journal: %v", err)
	}
	_, lk2, rec2 := openLocked(t, dir)
	defer lk2.Unlock()
	if _, err := os.Stat(b.JournalPath()); !os.IsNotExist(err) {
		t.Errorf("Open did not fold the journal")
	}
	if s := rec2.Snapshot(); s.Serial != 1 || len(s.Resources) != 5 {
		t.Errorf("after fold: serial %d, %d resources", s.Serial, len(s.Resources))
	}
	rec2.Close()
}

// A journal whose fold completed (state renamed) but which was not removed
// is stale: replaying it again must not happen.
func TestStaleJournalDiscarded(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	rec.Record("synthesis.a", sampleResource("a"))
	journal, _ := os.ReadFile(b.JournalPath())
	rec.Close()
	lk.Unlock()
	// Resurrect the folded journal, then forget synthesis.a.
	os.WriteFile(b.JournalPath(), journal, 0o644)
	_, lk2, rec2 := openLocked(t, dir)
	rec2.Remove("synthesis.a")
	rec2.Close()
	lk2.Unlock()
	os.WriteFile(b.JournalPath(), journal, 0o644)
	got, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 0 {
		t.Errorf("stale journal replayed: %v", got.Addresses())
	}
}

func TestJournalAheadOfStateRefused(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	rec.Record("synthesis.a", sampleResource("a"))
	rec.Close()
	lk.Unlock()
	// A journal continuing serial 5 while the state is at 1.
	line, _ := encodeRecord(&record{Op: opBegin, Lineage: mustRead(t, b).Lineage, BaseSerial: 5})
	os.WriteFile(b.JournalPath(), line, 0o644)
	if _, err := b.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "serial 5") {
		t.Errorf("err = %v", err)
	}
}

func mustRead(t *testing.T, b *Local) *File {
	t.Helper()
	f, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRecorderConcurrent(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	defer lk.Unlock()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := rec.Record(fmt.Sprintf("synthesis.w%d_%d", w, i), sampleResource("x")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(mustRead(t, b).Resources); n != 400 {
		t.Errorf("%d resources, want 400", n)
	}
	if err := rec.Record("synthesis.late", sampleResource("x")); err != ErrClosed {
		t.Errorf("record after close: %v", err)
	}
}

func TestOpenRequiresLock(t *testing.T) {
	b := NewLocal(t.TempDir())
	if _, err := b.Open(context.Background(), &FileLock{path: b.LockPath()}, nil); err == nil {
		t.Error("Open without a held lock succeeded")
	}
}

// A snapshot is the state as it was: records after it change the
// recorder's state, not the snapshot's. It is taken without copying the
// resources (a plan's session of 100,000 records nothing): they are copied
// at the next record instead.
func TestSnapshotKeptFromLaterRecords(t *testing.T) {
	dir := t.TempDir()
	_, lk, rec := openLocked(t, dir)
	defer lk.Unlock()
	entry := func(i int) *Resource {
		r := sampleResource(fmt.Sprint(i))
		r.Outputs[0].Path = fmt.Sprintf("build/%d.wav", i)
		return r
	}
	for i := range 2000 {
		if err := rec.Record(fmt.Sprintf("synthesis.s%d", i), entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	var snap *File
	if b := heaptest.Allocated(func() { snap = rec.Snapshot() }); b > 4096 {
		t.Errorf("a snapshot of 2,000 resources allocated %d B; want the resources shared, not copied", b)
	}
	if err := rec.Record("synthesis.new", entry(9999)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Remove("synthesis.s0"); err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Resources["synthesis.new"]; ok || len(snap.Resources) != 2000 || snap.Resources["synthesis.s0"] == nil {
		t.Errorf("the snapshot changed with later records: %d resources", len(snap.Resources))
	}
	if _, ok := rec.Get("synthesis.new"); !ok {
		t.Error("the recorder lost its record")
	}
	if _, ok := rec.Get("synthesis.s0"); ok {
		t.Error("the recorder kept a removed resource")
	}
	again := rec.Snapshot()
	if len(again.Resources) != 2000 || again.Resources["synthesis.new"] == nil {
		t.Errorf("a second snapshot has %d resources", len(again.Resources))
	}
}
