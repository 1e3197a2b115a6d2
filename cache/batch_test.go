package cache_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/cache"
)

// flushes counts the flushes of Batches, each reported on a channel.
func flushes(t *testing.T, at int, after time.Duration) <-chan int {
	t.Helper()
	done := make(chan int, 100)
	cache.SetFlushes(t, at, after, func(n int, err error) {
		if err != nil {
			t.Errorf("flush: %v", err)
		}
		done <- n
	})
	return done
}

// flushed waits for the next flush reported on done and returns how many
// entries it wrote.
func flushed(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case n := <-done:
		return n
	case <-time.After(time.Minute):
		t.Fatal("no flush in a minute")
		return 0
	}
}

// TestBatchHoldsEntries: a Batch puts each blob in place at once (usable)
// and writes the entry only when it flushes, as Store writes it, whether
// its flushes sync the file system or each file.
func TestBatchHoldsEntries(t *testing.T) {
	t.Run("sync the file system", testBatchHoldsEntries)
	t.Run("sync each file", func(t *testing.T) {
		cache.SetSyncEach(t)
		testBatchHoldsEntries(t)
	})
}

func testBatchHoldsEntries(t *testing.T) {
	done := flushes(t, 1000, time.Hour)
	l := openLocal(t)
	b := l.Batch()
	e, paths := outputs(t, fpOf("x"), "transcription", map[string]string{"json": `{"text":"hi"}`, "txt": "hi"})
	if err := b.Store(e, paths); err != nil {
		t.Fatal(err)
	}
	if l.Has(e.Fingerprint) {
		t.Error("the entry is visible before a flush")
	}
	if diff := cmp.Diff(e, b.Held(e.Fingerprint)); diff != "" {
		t.Errorf("Held (-stored +held):\n%s", diff)
	}
	for _, f := range e.Files {
		if data, err := copyOut(t, l, f.SHA256); err != nil || sum(data) != f.SHA256 {
			t.Errorf("%s blob before a flush: %v", f.Role, err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := flushed(t, done); n != 1 {
		t.Errorf("Close flushed %d entries, want 1", n)
	}
	got, err := l.Entry(e.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, got); diff != "" {
		t.Errorf("entry after Close (-stored +read):\n%s", diff)
	}
	for _, f := range files(t, l.Dir()) {
		if strings.Contains(f, ".voxform-tmp-") {
			t.Errorf("temporary file left: %s", f)
		}
	}
	if err := b.Store(e, paths); err == nil {
		t.Error("Store after Close succeeded")
	}
}

// TestBatchFlushes: a Batch writes its entries once flushAt are held, and
// once flushAfter has passed since the first was, without waiting for
// Close.
func TestBatchFlushes(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		done := flushes(t, 3, time.Hour)
		l := openLocal(t)
		b := l.Batch()
		defer b.Close()
		var fps []string
		for i := range 3 {
			e, paths := outputs(t, fpOf(string(rune('a'+i))), "synthesis", map[string]string{"audio": strings.Repeat("x", i+1)})
			if err := b.Store(e, paths); err != nil {
				t.Fatal(err)
			}
			fps = append(fps, e.Fingerprint)
		}
		if n := flushed(t, done); n != 3 {
			t.Fatalf("flushed %d entries, want 3", n)
		}
		for _, fp := range fps {
			if !l.Has(fp) {
				t.Errorf("%s not written by the flush", fp[:8])
			}
		}
	})
	t.Run("time", func(t *testing.T) {
		done := flushes(t, 1000, time.Millisecond)
		l := openLocal(t)
		b := l.Batch()
		defer b.Close()
		e, paths := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "x"})
		if err := b.Store(e, paths); err != nil {
			t.Fatal(err)
		}
		if n := flushed(t, done); n != 1 || !l.Has(e.Fingerprint) {
			t.Fatalf("flushed %d entries, the entry there: %v; want it written", n, l.Has(e.Fingerprint))
		}
	})
}

// TestBatchLostBlob: an entry whose blob was removed before the flush (a
// read found it corrupt) is not written; the others are.
func TestBatchLostBlob(t *testing.T) {
	for _, each := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync each file %v", each), func(t *testing.T) {
			if each {
				cache.SetSyncEach(t)
			}
			done := flushes(t, 1000, time.Hour)
			l := openLocal(t)
			b := l.Batch()
			lost, paths := outputs(t, fpOf("lost"), "synthesis", map[string]string{"audio": "hello"})
			if err := b.Store(lost, paths); err != nil {
				t.Fatal(err)
			}
			kept, paths := outputs(t, fpOf("kept"), "synthesis", map[string]string{"audio": "world"})
			if err := b.Store(kept, paths); err != nil {
				t.Fatal(err)
			}
			os.Remove(blobPath(l, lost.Files[0].SHA256))
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if n := flushed(t, done); n != 1 {
				t.Errorf("the flush wrote %d entries, want 1", n)
			}
			if l.Has(lost.Fingerprint) || !l.Has(kept.Fingerprint) {
				t.Errorf("entries written: without its blob %v, the other %v; want only the other", l.Has(lost.Fingerprint), l.Has(kept.Fingerprint))
			}
		})
	}
}

// TestBatchRefusesMismatch: content that is not what the entry says is
// not stored, as with Store.
func TestBatchRefusesMismatch(t *testing.T) {
	l := openLocal(t)
	b := l.Batch()
	defer b.Close()
	e, paths := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "hello"})
	os.WriteFile(paths["audio"], []byte("HELLO"), 0o644)
	if err := b.Store(e, paths); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("Store = %v, want ErrCorrupt", err)
	}
	if b.Held(e.Fingerprint) != nil {
		t.Error("entry held")
	}
	if _, err := os.Stat(blobPath(l, e.Files[0].SHA256)); !os.IsNotExist(err) {
		t.Errorf("blob stored: %v", err)
	}
}

// TestGCWaitsForBatch: GC waits for a Batch holding entries to close, and
// so never removes a blob whose entry is about to be written.
func TestGCWaitsForBatch(t *testing.T) {
	flushes(t, 1000, time.Hour)
	l := openLocal(t)
	b := l.Batch()
	e, paths := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "hello"})
	if err := b.Store(e, paths); err != nil {
		t.Fatal(err)
	}
	waits := make(chan struct{}, 1)
	cache.SetGCHook(func() { waits <- struct{}{} })
	defer cache.SetGCHook(nil)
	gc := make(chan cache.GCReport, 1)
	go func() {
		rep, err := l.GC(cache.GCOptions{Keep: func(string) bool { return true }})
		if err != nil {
			t.Errorf("GC: %v", err)
		}
		gc <- rep
	}()
	select {
	case <-waits:
	case rep := <-gc:
		t.Fatalf("GC ran while the batch held an entry: %+v", rep)
	case <-time.After(time.Minute):
		t.Fatal("GC neither waited nor ran")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := <-gc; rep.Blobs != 0 || rep.Entries != 0 {
		t.Errorf("GC removed %+v, want nothing", rep)
	}
	if data, err := copyOut(t, l, e.Files[0].SHA256); err != nil || string(data) != "hello" {
		t.Errorf("blob after GC: %q, %v", data, err)
	}
}

// TestFetchInto: a fetch through a Batch puts the blobs in place at once
// and holds the entry until the batch flushes; fetched again meanwhile,
// the entry held is returned without asking the remote.
func TestFetchInto(t *testing.T) {
	flushes(t, 1000, time.Hour)
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "remote")
	os.Mkdir(dir, 0o755)
	r, err := cache.OpenRemote(cache.RemoteConfig{URL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	a := &cache.Cache{Local: openLocal(t), Remote: r}
	e := store(t, a.Local, "x", map[string]string{"audio": "hello"})
	if err := a.Push(ctx, e.Fingerprint); err != nil {
		t.Fatal(err)
	}
	c := &cache.Cache{Local: openLocal(t), Remote: r}
	b := c.Local.Batch()
	got, err := c.FetchInto(ctx, b, e.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, got); diff != "" {
		t.Errorf("FetchInto (-pushed +fetched):\n%s", diff)
	}
	if data, err := copyOut(t, c.Local, e.Files[0].SHA256); err != nil || string(data) != "hello" {
		t.Errorf("blob after FetchInto: %q, %v", data, err)
	}
	if c.Local.Has(e.Fingerprint) {
		t.Error("entry visible before the batch flushed")
	}
	if err := r.DeleteEntry(ctx, e.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if again, err := c.FetchInto(ctx, b, e.Fingerprint); err != nil || again == nil {
		t.Errorf("FetchInto of the entry held = %v, %v; want it", again, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !c.Local.Has(e.Fingerprint) {
		t.Error("entry not written by Close")
	}
}

// TestBatchRefusesALink: a file kept is read where it is, never through a
// symbolic link put at an output's path (voxform never makes one).
func TestBatchRefusesALink(t *testing.T) {
	l := openLocal(t)
	b := l.Batch()
	defer b.Close()
	e, paths := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "hello"})
	real := paths["audio"] + ".real"
	if err := os.Rename(paths["audio"], real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, paths["audio"]); err != nil {
		t.Fatal(err)
	}
	if err := b.Store(e, paths); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Store through a link = %v, want a refusal", err)
	}
	if _, err := os.Stat(blobPath(l, e.Files[0].SHA256)); !os.IsNotExist(err) {
		t.Errorf("blob stored: %v", err)
	}
}

// TestBatchKeepsShardDirectories: a Batch opens each blob shard directory
// once, for all the blobs it stores there, and closes them at Close.
func TestBatchKeepsShardDirectories(t *testing.T) {
	l := openLocal(t)
	b := l.Batch()
	shards := map[string]bool{}
	for i := range 40 {
		e, paths := outputs(t, fpOf(fmt.Sprint(i)), "synthesis", map[string]string{"audio": fmt.Sprint("audio ", i)})
		if err := b.Store(e, paths); err != nil {
			t.Fatal(err)
		}
		shards[e.Files[0].SHA256[:2]] = true
	}
	kept := cache.KeptDirs(b)
	if len(kept) != len(shards) {
		t.Errorf("%d shard directories kept for blobs in %d", len(kept), len(shards))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range kept {
		if _, err := d.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s left open after Close: %v", d.Name(), err)
		}
	}
	for i := range 40 {
		if _, err := copyOut(t, l, sum([]byte(fmt.Sprint("audio ", i)))); err != nil {
			t.Errorf("blob %d: %v", i, err)
		}
	}
}
