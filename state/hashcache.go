package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/owned"
)

// FileHash is what voxform knows about a file's content.
type FileHash struct {
	Exists bool
	SHA256 string
	Size   int64
}

// HashCache maps a path (relative to the manifest directory) with its size,
// mtime, ctime and inode to the SHA-256 of its content, so that a plan with
// nothing changed does not re-read every output. It lives in .voxform/, which
// is local and never committed. Safe for concurrent use.
//
// .voxform/ must be a directory of its own in the manifest directory: when
// it is a symbolic link, or anything but a directory, the cache is not used
// (it starts empty and Save fails, saying why, for the caller to warn).
type HashCache struct {
	dir string // manifest directory
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
	dirty   bool
}

type cacheEntry struct {
	Size     int64  `json:"size"`
	MtimeNS  int64  `json:"mtime_ns"`
	CtimeNS  int64  `json:"ctime_ns"`
	Inode    uint64 `json:"inode"`
	SHA256   string `json:"sha256"`
	HashedNS int64  `json:"hashed_ns"`
}

type cacheFile struct {
	Version int                   `json:"version"`
	Entries map[string]cacheEntry `json:"entries"`
}

// OpenHashCache loads the hash cache of a manifest directory. A missing or
// unreadable cache is an empty one: it is only an optimisation.
func OpenHashCache(dir string) *HashCache {
	c := &HashCache{
		dir:     dir,
		now:     time.Now,
		entries: map[string]cacheEntry{},
	}
	b, err := readCacheFile(dir, hashCacheName)
	if err != nil {
		return c
	}
	var cf cacheFile
	if json.Unmarshal(b, &cf) == nil && cf.Version == 1 && cf.Entries != nil {
		c.entries = cf.Entries
	}
	return c
}

// racyWindow is how long after a file's last change a hash of it is not
// trusted: the file system's timestamp granularity could hide a second write
// of the same size within it. Coarse file systems (whole-second times) get
// a wider window.
func racyWindow(fi os.FileInfo) time.Duration {
	if fi.ModTime().Nanosecond() == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

func entryFor(fi os.FileInfo) cacheEntry {
	e := cacheEntry{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Inode = st.Ino
		e.CtimeNS = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return e
}

// Hash returns the hash of rel (relative to the manifest directory), from
// the cache when size, mtime, ctime and inode are unchanged, else by
// streaming the file.
func (c *HashCache) Hash(rel string) (FileHash, error) {
	full := filepath.Join(c.dir, rel)
	fi, err := os.Stat(full)
	if errors.Is(err, os.ErrNotExist) {
		return FileHash{}, nil
	}
	if err != nil {
		return FileHash{}, fmt.Errorf("hash %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return FileHash{}, fmt.Errorf("hash %s: not a regular file", rel)
	}
	want := entryFor(fi)
	c.mu.Lock()
	e, ok := c.entries[rel]
	c.mu.Unlock()
	if ok && e.Size == want.Size && e.MtimeNS == want.MtimeNS && e.CtimeNS == want.CtimeNS &&
		e.Inode == want.Inode && e.HashedNS-max(want.MtimeNS, want.CtimeNS) > int64(racyWindow(fi)) {
		return FileHash{Exists: true, SHA256: e.SHA256, Size: e.Size}, nil
	}
	hashedAt := c.now().UnixNano()
	sum, n, err := HashFile(full)
	if errors.Is(err, os.ErrNotExist) {
		return FileHash{}, nil
	}
	if err != nil {
		return FileHash{}, err
	}
	if n == want.Size {
		want.SHA256, want.HashedNS = sum, hashedAt
		c.mu.Lock()
		c.entries[rel] = want
		c.dirty = true
		c.mu.Unlock()
	}
	return FileHash{Exists: true, SHA256: sum, Size: n}, nil
}

// Put seeds the cache with a hash voxform just computed while writing rel, so
// the next plan need not read it again.
func (c *HashCache) Put(rel, sha256Hex string) {
	fi, err := os.Stat(filepath.Join(c.dir, rel))
	if err != nil {
		return
	}
	e := entryFor(fi)
	e.SHA256, e.HashedNS = sha256Hex, c.now().UnixNano()
	c.mu.Lock()
	c.entries[rel] = e
	c.dirty = true
	c.mu.Unlock()
}

// Save writes the cache if it changed, atomically, creating .voxform/ with a
// .gitignore that keeps it out of version control. It writes nothing when
// .voxform/ is a symbolic link or not a directory, and says so.
func (c *HashCache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	b, err := json.Marshal(cacheFile{Version: 1, Entries: c.entries})
	if err != nil {
		return fmt.Errorf("save hash cache: %w", err)
	}
	d, err := openCacheDir(c.dir, true)
	if err != nil {
		return fmt.Errorf("save hash cache: %w", err)
	}
	defer d.Close()
	err = owned.WriteFileAt(d, hashCacheName, 0o644, true, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("save hash cache: %w", err)
	}
	c.dirty = false
	return nil
}

// HashFile streams a file through SHA-256.
func HashFile(path string) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// HashAll hashes paths (relative to the cache's directory) in parallel and
// returns the results by path.
func (c *HashCache) HashAll(ctx context.Context, paths []string) (map[string]FileHash, error) {
	out := make(map[string]FileHash, len(paths))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, runtime.GOMAXPROCS(0)*2))
	for _, p := range paths {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			h, err := c.Hash(p)
			if err != nil {
				return err
			}
			mu.Lock()
			out[p] = h
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, ctx.Err()
}
