package state

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSettle: a hash Put as a file is written is within its racy window,
// so a plan would read the file again; Settle hashes it once the window
// has passed, and the entry is then trusted. A file changed after Put is
// hashed as it is now, never trusted to the hash Put gave.
func TestSettle(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.wav": "hello", "b.wav": "world"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := OpenHashCache(dir)
	c.Put("a.wav", sha("hello"))
	c.Put("b.wav", sha("world"))
	if c.Fresh("a.wav") {
		t.Fatal("an entry put as the file was written is trusted within its racy window")
	}
	os.WriteFile(filepath.Join(dir, "b.wav"), []byte("WORLD"), 0o644) // same size
	if err := c.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !c.Fresh("a.wav") {
		t.Error("a.wav: not trusted after Settle")
	}
	if h, err := c.Hash("b.wav"); err != nil || h.SHA256 != sha("WORLD") {
		t.Errorf("b.wav changed after Put: hash %+v, %v; want that of its new content", h, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	os.WriteFile(filepath.Join(dir, "a.wav"), []byte("hello"), 0o644)
	c.Put("a.wav", sha("hello"))
	if err := c.Settle(ctx); err == nil {
		t.Error("Settle with a cancelled context waited for the window")
	}
	if c.Fresh("a.wav") {
		t.Fatal("a.wav trusted after a Settle that was stopped")
	}
	if err := c.Settle(context.Background()); err != nil || !c.Fresh("a.wav") {
		t.Errorf("a Settle after one that was stopped: %v, a.wav trusted %v; want what was left settled", err, c.Fresh("a.wav"))
	}
}

// TestRacyAtTheEndOfTime: an entry hashed within the window of a file
// whose times are near the largest a cache entry holds is racy, and the
// window's end Settle waits for does not wrap around.
func TestRacyAtTheEndOfTime(t *testing.T) {
	last := int64(math.MaxInt64 - 10)
	e := cacheEntry{MtimeNS: last, CtimeNS: last, HashedNS: last + 1}
	if !racy(e) {
		t.Error("an entry hashed 1 ns after its file's change is trusted")
	}
	if end := windowEnd(e); end != math.MaxInt64 {
		t.Errorf("windowEnd = %d, want the largest time", end)
	}
	if end := windowEnd(cacheEntry{MtimeNS: 5e8, CtimeNS: 1e9}); end != 1e9+int64(racyWindow(5e8))+1 {
		t.Errorf("windowEnd = %d", end)
	}
}

// TestSettleGoesPastAFileItCannotHash: one entry whose file cannot be
// hashed now (made a directory since) leaves the others settled.
func TestSettleGoesPastAFileItCannotHash(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.wav", "b.wav", "c.wav", "d.wav", "e.wav", "f.wav"}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := OpenHashCache(dir)
	for _, name := range names {
		c.Put(name, sha(name))
	}
	os.Remove(filepath.Join(dir, "c.wav"))
	os.Mkdir(filepath.Join(dir, "c.wav"), 0o755)
	if err := c.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name != "c.wav" && !c.Fresh(name) {
			t.Errorf("%s: not trusted after Settle", name)
		}
	}
}

// TestPutHoldsOnlyThePath: a file Put within its racy window is held as
// its path only, for Settle, not as an entry nothing would trust (100,000
// of them were apply's largest cost in memory after its records), and the
// entry of the file's earlier content goes. One Put after the window is
// entered as it is.
func TestPutHoldsOnlyThePath(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.wav")
	if err := os.WriteFile(a, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := OpenHashCache(dir)
	if _, err := c.Hash("a.wav"); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.entries["a.wav"]; !ok {
		t.Fatal("Hash entered nothing")
	}
	if err := os.WriteFile(a, []byte("after!"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Put("a.wav", sha("after!"))
	c.Put("a.wav", sha("after!"))
	if e, ok := c.entries["a.wav"]; ok {
		t.Errorf("Put within the racy window holds an entry: %+v", e)
	}
	if !slices.Equal(c.written, []string{"a.wav", "a.wav"}) {
		t.Errorf("written = %q, want a.wav for Settle", c.written)
	}
	if err := c.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e := c.entries["a.wav"]; e.SHA256 != sha("after!") || racy(e) {
		t.Errorf("after Settle: %+v, want the new content's hash, trusted", e)
	}
	if c.written != nil {
		t.Errorf("Settle left %q to hash again", c.written)
	}

	later := OpenHashCache(dir)
	later.now = func() time.Time { return time.Now().Add(time.Hour) }
	later.Put("a.wav", sha("after!"))
	if e, ok := later.entries["a.wav"]; !ok || e.SHA256 != sha("after!") || len(later.written) != 0 {
		t.Errorf("Put after the window: entry %+v (%v), written %q; want it entered", e, ok, later.written)
	}
}
