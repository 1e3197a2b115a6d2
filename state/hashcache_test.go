package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"strings"
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

// plantedCache writes, in dir, a hash cache holding an entry for a.wav.
func plantedCache(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	err := encodeHashes(&b, map[string]cacheEntry{"a.wav": {Size: 5, SHA256: strings.Repeat("ab", 32)}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, hashCacheName), b.String())
	return b.String()
}

// TestCacheDirLinkNotUsed: a .voxform that is a symbolic link (a repository
// can hold one leading anywhere) is neither read nor written through: the
// caches are not used, and saving says why.
func TestCacheDirLinkNotUsed(t *testing.T) {
	dir, outside := project(t)
	planted := plantedCache(t, outside)
	if err := os.Symlink("../outside", filepath.Join(dir, CacheDirName)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.wav"), "hello")
	c := OpenHashCache(dir)
	if len(c.entries) != 0 {
		t.Errorf("the cache was read through the link: %v", c.entries)
	}
	if _, err := c.Hash("a.wav"); err != nil {
		t.Fatal(err)
	}
	err := c.Save()
	if want := filepath.Join(dir, CacheDirName) + " is a symbolic link; voxform keeps its own files there"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Save: %v, want an error with %q", err, want)
	}
	largeState(t, NewLocal(dir), "f")
	if _, err := NewLocal(dir).Read(context.Background()); err != nil { // would keep a snapshot
		t.Fatal(err)
	}
	want := map[string]string{"victim.txt": "the user's file", hashCacheName: planted}
	if got := listing(t, outside); !maps.Equal(got, want) {
		t.Errorf("outside the project: %v, want %v", names(got), names(want))
	}
}

// TestCacheFilesNotFollowed: links inside .voxform are not followed: a
// planted hashes.json link is not read and is replaced, not written
// through; a dangling .gitignore link is left alone, making nothing.
func TestCacheFilesNotFollowed(t *testing.T) {
	dir, outside := project(t)
	planted := plantedCache(t, outside)
	cache := filepath.Join(dir, CacheDirName)
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{hashCacheName: "../../outside/" + hashCacheName, ".gitignore": "../../outside/made.txt"} {
		if err := os.Symlink(target, filepath.Join(cache, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "a.wav"), "hello")
	c := OpenHashCache(dir)
	if len(c.entries) != 0 {
		t.Errorf("the cache was read through a link: %v", c.entries)
	}
	if _, err := c.Hash("a.wav"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(cache, hashCacheName)); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("hashes.json after Save: %v, %v; want a regular file", fi, err)
	}
	if fi, err := os.Lstat(filepath.Join(cache, ".gitignore")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf(".gitignore after Save: %v, %v; want the link left alone", fi, err)
	}
	want := map[string]string{"victim.txt": "the user's file", hashCacheName: planted}
	if got := listing(t, outside); !maps.Equal(got, want) {
		t.Errorf("outside the project: %v, want %v", names(got), names(want))
	}
}

// TestCacheDirNotADirectory: a .voxform that is a file is not used.
func TestCacheDirNotADirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, CacheDirName), "a file")
	writeFile(t, filepath.Join(dir, "a.wav"), "hello")
	c := OpenHashCache(dir)
	c.Hash("a.wav")
	err := c.Save()
	if want := "is a regular file, not a directory"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Save: %v, want an error with %q", err, want)
	}
}
