package owned

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Every change is durable when its Wait returns, and changes that complete
// together share syncs.
func TestSyncGroupCoversEachChange(t *testing.T) {
	var (
		g       SyncGroup
		mu      sync.Mutex
		made    = map[uint64]bool{} // counted, not yet covered by a sync
		durable = map[uint64]bool{}
		syncs   int
	)
	syncAll := func() error {
		mu.Lock()
		defer mu.Unlock()
		syncs++
		for n := range made { // what a sync sees: every change made before it
			durable[n] = true
		}
		clear(made)
		time.Sleep(50 * time.Microsecond) // an fsync takes time: writers queue behind it
		return nil
	}
	const workers, each = 16, 200
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				mu.Lock()
				n := g.Made()
				made[n] = true
				mu.Unlock()
				if err := g.Wait(n, syncAll); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ok := durable[n]
				mu.Unlock()
				if !ok {
					t.Errorf("change %d reported durable before a sync covered it", n)
					return
				}
			}
		})
	}
	wg.Wait()
	if syncs >= workers*each {
		t.Errorf("%d syncs for %d changes made by %d writers at once: none was shared", syncs, workers*each, workers)
	}
	t.Logf("%d syncs for %d changes", syncs, workers*each)
}

// A failed sync fails every change it covered, whenever its Wait comes;
// a change counted after it is synced anew.
func TestSyncGroupFailure(t *testing.T) {
	var g SyncGroup
	boom := errors.New("boom")
	a, b := g.Made(), g.Made()
	if err := g.Wait(b, func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Wait = %v, want %v", err, boom)
	}
	if err := g.Wait(a, func() error { return nil }); !errors.Is(err, boom) {
		t.Fatalf("Wait of a change the failed sync covered = %v, want %v", err, boom)
	}
	synced := false
	c := g.Made()
	if err := g.Wait(c, func() error { synced = true; return nil }); err != nil || !synced {
		t.Fatalf("Wait of a later change = %v (synced %v), want a sync of its own", err, synced)
	}
	if err := g.Wait(b, func() error { return nil }); !errors.Is(err, boom) {
		t.Fatalf("a later sync that succeeded made a lost change durable: Wait = %v", err)
	}
}

// Handles of one directory share its syncs; handles of two do not.
func TestDirHandlesShareSyncs(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	open := func(rel string) *Dir {
		d, err := r.OpenDir(rel, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	a, b, c := open("out/a.wav"), open("out/b.wav"), open("other/c.wav")
	if a.group == nil || a.group != b.group {
		t.Fatalf("two handles of out/ have sync groups %p and %p, want one", a.group, b.group)
	}
	if c.group == a.group {
		t.Fatal("out/ and other/ share a sync group")
	}
	for _, w := range []struct {
		d    *Dir
		name string
	}{{a, "a.wav"}, {b, "b.wav"}} {
		f, err := w.d.CreateTemp(w.name)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := w.d.Commit(filepath.Base(f.Name()), w.name, false); err != nil {
			t.Fatal(err)
		}
	}
	// b's sync covers a's rename as well: a's wait finds it done.
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if a.made > a.group.synced {
		t.Fatalf("a's change %d not covered by b's sync (synced to %d)", a.made, a.group.synced)
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.wav", "b.wav"} {
		if _, err := os.Stat(filepath.Join(dir, "out", n)); err != nil {
			t.Fatal(err)
		}
	}
}

// twoApart makes a change and waits for it while another writer makes
// one 20 ms later and waits for it.
func twoApart(t *testing.T, g *SyncGroup, sync func() error) {
	t.Helper()
	a := g.Made()
	later := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		later <- g.Wait(g.Made(), sync)
	}()
	if err := g.Wait(a, sync); err != nil {
		t.Fatal(err)
	}
	if err := <-later; err != nil {
		t.Fatal(err)
	}
}

// With Gather, changes from several writers that complete a little apart
// share one sync: the waiter that is to sync waits for them first. A lone
// writer, each sync answering only its own wait, does not wait.
func TestSyncGroupGathers(t *testing.T) {
	const gather = 200 * time.Millisecond
	g := SyncGroup{Gather: gather}
	syncs := 0
	count := func() error { syncs++; return nil }
	// Two writers' changes covered by one sync: the second waits while
	// the first's sync runs, and finds its change covered.
	a, b := g.Made(), g.Made()
	running, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() { first <- g.Wait(a, func() error { close(running); <-release; return count() }) }()
	<-running
	second := make(chan error, 1)
	go func() { second <- g.Wait(b, count) }()
	time.Sleep(20 * time.Millisecond) // the second waits for the sync
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil || syncs != 1 {
		t.Fatalf("first sync: %v, %d syncs", err, syncs)
	}
	// A change made 20 ms after the one whose Wait syncs shares its sync.
	twoApart(t, &g, count)
	if syncs != 2 {
		t.Fatalf("%d syncs for two changes made 20 ms apart with Gather %v, want them to share one", syncs-1, gather)
	}
	// That sync covered both, so the next one gathers too; it covers one
	// change, and the one after it does not wait.
	if err := g.Wait(g.Made(), count); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := g.Wait(g.Made(), count); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= gather {
		t.Errorf("a lone writer's sync waited %v", d)
	}
	if syncs != 4 {
		t.Errorf("%d syncs in all, want 4", syncs)
	}
}

// A sync gathers while another writer counted by Start is at work (an
// output being written into the same directory), even when the sync
// before covered one change; a writer alone does not wait.
func TestSyncGroupGathersForWritersAtWork(t *testing.T) {
	const gather = 200 * time.Millisecond
	g := SyncGroup{Gather: gather}
	syncs := 0
	count := func() error { syncs++; return nil }
	done := g.Start()
	start := time.Now()
	if err := g.Wait(g.Made(), count); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= gather {
		t.Errorf("a lone writer's sync waited %v", d)
	}
	done()
	first, second := g.Start(), g.Start()
	twoApart(t, &g, count)
	first()
	second()
	second() // a second call does nothing
	if syncs != 2 {
		t.Errorf("%d syncs for the changes of two writers made 20 ms apart, want them to share one", syncs-1)
	}
	if g.writers != 0 {
		t.Errorf("%d writers counted once all are done", g.writers)
	}
}

// A lone writer that makes a change it does not wait for before each it
// does (the state journal's note of a file written, then its record)
// never waits to gather: each sync answers one wait, however many
// changes it covers.
func TestSyncGroupLoneWriterOfTwoChanges(t *testing.T) {
	const gather = 200 * time.Millisecond
	g := SyncGroup{Gather: gather}
	syncs := 0
	for i := range 3 {
		start := time.Now()
		g.Made() // not waited for
		if err := g.Wait(g.Made(), func() error { syncs++; return nil }); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d >= gather {
			t.Errorf("change %d of a lone writer waited %v", i+1, d)
		}
	}
	if syncs != 3 {
		t.Errorf("%d syncs for 3 waits, want 3", syncs)
	}
}
