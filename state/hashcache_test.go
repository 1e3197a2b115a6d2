package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestHashCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.wav")
	os.WriteFile(p, []byte("hello"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)

	c := OpenHashCache(dir)
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // not racy
	h, err := c.Hash("a.wav")
	if err != nil || !h.Exists || h.SHA256 != sha("hello") || h.Size != 5 {
		t.Fatalf("hash = %+v, %v", h, err)
	}
	if h, _ := c.Hash("missing.wav"); h.Exists {
		t.Fatal("missing file exists")
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".voxform", ".gitignore")); err != nil || len(b) == 0 {
		t.Errorf(".voxform/.gitignore: %q %v", b, err)
	}

	// A cached entry is used: prove it by changing the content behind the
	// cache's back while keeping size, mtime and inode (ctime moves, so
	// the hash must be recomputed: the cache is not fooled).
	c2 := OpenHashCache(dir)
	if h, _ := c2.Hash("a.wav"); h.SHA256 != sha("hello") {
		t.Fatalf("reloaded cache: %+v", h)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte("jello"), 0)
	f.Close()
	os.Chtimes(p, old, old)
	if h, _ := c2.Hash("a.wav"); h.SHA256 != sha("jello") {
		t.Errorf("same size and mtime, new content: got cached hash")
	}

	// An entry hashed right after the file changed is not trusted (racy).
	os.WriteFile(p, []byte("fresh"), 0o644)
	c3 := OpenHashCache(dir)
	c3.Hash("a.wav")
	c3.entries["a.wav"] = func(e cacheEntry) cacheEntry { e.SHA256 = "bogus"; return e }(c3.entries["a.wav"])
	if h, _ := c3.Hash("a.wav"); h.SHA256 != sha("fresh") {
		t.Errorf("racy entry trusted: %+v", h)
	}
}

func TestHashCacheUsesEntry(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.wav")
	os.WriteFile(p, []byte("content"), 0o644)
	c := OpenHashCache(dir)
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // long after the write
	c.Hash("b.wav")
	e := c.entries["b.wav"]
	e.SHA256 = "from-cache"
	c.entries["b.wav"] = e
	h, err := c.Hash("b.wav")
	if err != nil || h.SHA256 != "from-cache" {
		t.Errorf("unchanged file re-hashed: %+v %v", h, err)
	}
	all, err := c.HashAll(context.Background(), []string{"b.wav", "none"})
	if err != nil || all["b.wav"].SHA256 != "from-cache" || all["none"].Exists {
		t.Errorf("HashAll = %+v, %v", all, err)
	}
}
