package state

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxform/voxform/internal/heaptest"
)

// trustedOutputs writes n small files below dir and a hash cache that
// trusts every one, as an apply leaves them; it returns their paths.
func trustedOutputs(t *testing.T, dir string, n int) (*HashCache, []string) {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("build/g%02d/p%05d.raw", i%10, i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(paths[i])), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, paths[i]), fmt.Sprint(i))
	}
	c := OpenHashCache(dir)
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // not racy
	if _, err := c.HashAll(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	return c, paths
}

// Checking outputs the hash cache trusts is a stat each, with no more
// than the one allocation a file the system call's path takes (the plan
// after an apply of 100,000 stats every output); each is still seen as it
// is on disk.
func TestHashAllTrustedInFewAllocations(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	c, paths := trustedOutputs(t, dir, n)
	var all map[string]FileHash
	allocs := testing.AllocsPerRun(3, func() {
		var err error
		if all, err = c.HashAll(context.Background(), paths); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > n+n/10 {
		t.Errorf("checking %d trusted outputs made %.0f allocations; want at most %d", n, allocs, n+n/10)
	}
	if h := all[paths[7]]; !h.Exists || h.SHA256 != sha("7") {
		t.Fatalf("%s: %+v", paths[7], h)
	}
	// A changed output is still seen, and a removed one.
	writeFile(t, filepath.Join(dir, paths[7]), "changed")
	os.Remove(filepath.Join(dir, paths[8]))
	all, err := c.HashAll(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if h := all[paths[7]]; h.SHA256 != sha("changed") {
		t.Errorf("a changed output hashed as %+v", h)
	}
	if all[paths[8]].Exists {
		t.Error("a removed output exists")
	}
}

// A hash cache of many entries is read without its map growing on the
// way (that was half of reading one of 100,000), in a map sized for its
// entries (a guess a third too large doubled its tables), and without an
// allocation for each path and hash.
func TestDecodeHashesSized(t *testing.T) {
	const n = 100000
	entries := make(map[string]cacheEntry, n)
	for i := range n {
		entries[fmt.Sprintf("build/g%02d/p%05d.raw", i%100, i)] = cacheEntry{Size: 17040, MtimeNS: 1764314568790402816 + int64(i),
			CtimeNS: 1764314568790402816 + int64(i), Inode: uint64(4000000 + i), SHA256: fmt.Sprintf("%064x", i), HashedNS: 1764314570790402816}
	}
	var b bytes.Buffer
	if err := encodeHashes(&b, entries); err != nil {
		t.Fatal(err)
	}
	var got map[string]cacheEntry
	var err error
	allocs := testing.AllocsPerRun(1, func() { got, err = decodeHashes(b.Bytes()) })
	if err != nil || !maps.Equal(got, entries) {
		t.Fatalf("%d entries read back, %v", len(got), err)
	}
	bytes := heaptest.Allocated(func() { got, err = decodeHashes(b.Bytes()) })
	t.Logf("%.0f allocations, %d B an entry", allocs, bytes/n)
	if allocs > 1000 { // 200,000: a path and a hash each
		t.Errorf("reading %d entries made %.0f allocations; want at most 1,000", n, allocs)
	}
	if per := bytes / n; per > 220 { // 280 with the map's tables doubled and an allocation each
		t.Errorf("reading %d entries allocated %d B an entry; want at most 220", n, per)
	}
}
