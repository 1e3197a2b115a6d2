package state

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/internal/clock"
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
	// written are the files Put learned of within their racy window, for
	// Settle to hash once it has passed (an entry would be trusted by
	// nothing until then), and settled is when the last window ends.
	written []string
	settled int64
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
	if b, err := readCacheFile(dir, hashCacheName); err == nil {
		if entries, err := decodeHashes(b); err == nil {
			c.entries = entries
		}
		return c
	}
	b, err := readCacheFile(dir, legacyHashCacheName) // of an earlier version
	if err != nil {
		return c
	}
	var cf cacheFile
	if json.Unmarshal(b, &cf) == nil && cf.Version == 1 && cf.Entries != nil {
		c.entries = cf.Entries
		c.dirty = true // saved in this version's form
	}
	return c
}

// The hash cache's file is binary: a plan of 100,000 unchanged outputs
// decoded it in a tenth of the time JSON took. It is hashesMagic, then
// for each entry its path (a uvarint length, then the bytes), size, mtime,
// ctime and hash time (varints), inode (a uvarint) and SHA-256 (32 bytes).
const hashesMagic = "voxform hashes 2\n"

// maxHashPath is the longest path an entry of the hash cache may have.
const maxHashPath = 4096

// encodeHashes writes entries in the hash cache's form.
func encodeHashes(w io.Writer, entries map[string]cacheEntry) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(hashesMagic)
	var buf []byte
	for p, e := range entries {
		sum, err := hex.DecodeString(e.SHA256)
		if err != nil || len(sum) != sha256.Size || len(p) > maxHashPath {
			continue // not one this version makes; hashed again when asked
		}
		buf = binary.AppendUvarint(buf[:0], uint64(len(p)))
		buf = append(buf, p...)
		for _, v := range []int64{e.Size, e.MtimeNS, e.CtimeNS, e.HashedNS} {
			buf = binary.AppendVarint(buf, v)
		}
		buf = binary.AppendUvarint(buf, e.Inode)
		buf = append(buf, sum...)
		bw.Write(buf)
	}
	return bw.Flush()
}

// decodeHashes reads what encodeHashes wrote; anything else is an error.
// It reads the entries three times: to count them (the map is sized
// exactly: a map's tables come in powers of two, and a guess a third too
// large doubled them), to gather every path into one string and every
// hash, in hex, into another, then to fill the map with entries that
// slice those two (100,000 entries are not 200,000 allocations).
func decodeHashes(b []byte) (map[string]cacheEntry, error) {
	rest, ok := bytes.CutPrefix(b, []byte(hashesMagic))
	if !ok {
		return nil, errNotHashes
	}
	n, pathBytes := 0, 0
	if err := eachHash(rest, func(p, _ []byte, _ cacheEntry) { n, pathBytes = n+1, pathBytes+len(p) }); err != nil {
		return nil, err
	}
	var paths, sums strings.Builder
	paths.Grow(pathBytes)
	sums.Grow(n * 2 * sha256.Size)
	var hexSum [2 * sha256.Size]byte
	eachHash(rest, func(p, sum []byte, _ cacheEntry) {
		paths.Write(p)
		hex.Encode(hexSum[:], sum)
		sums.Write(hexSum[:])
	})
	allPaths, allSums := paths.String(), sums.String()
	entries := make(map[string]cacheEntry, n)
	eachHash(rest, func(p, _ []byte, e cacheEntry) {
		e.SHA256, allSums = allSums[:2*sha256.Size], allSums[2*sha256.Size:]
		entries[allPaths[:len(p)]], allPaths = e, allPaths[len(p):]
	})
	return entries, nil
}

var errNotHashes = errors.New("not a hash cache of this version")

// eachHash calls fn with the path, the hash and the rest of each entry of
// rest (a hash cache after its magic), in order, stopping at a flaw.
func eachHash(rest []byte, fn func(path, sum []byte, e cacheEntry)) error {
	uvarint := func() (uint64, bool) {
		v, n := binary.Uvarint(rest)
		if n <= 0 {
			return 0, false
		}
		rest = rest[n:]
		return v, true
	}
	for len(rest) > 0 {
		n, ok := uvarint()
		if !ok || n > maxHashPath || n > uint64(len(rest)) {
			return errNotHashes
		}
		p := rest[:n]
		rest = rest[n:]
		var e cacheEntry
		for _, v := range []*int64{&e.Size, &e.MtimeNS, &e.CtimeNS, &e.HashedNS} {
			x, m := binary.Varint(rest)
			if m <= 0 {
				return errNotHashes
			}
			*v, rest = x, rest[m:]
		}
		if e.Inode, ok = uvarint(); !ok || len(rest) < sha256.Size {
			return errNotHashes
		}
		fn(p, rest[:sha256.Size], e)
		rest = rest[sha256.Size:]
	}
	return nil
}

// racyWindow is how long after a file's last change a hash of it is not
// trusted: the file system's timestamp granularity could hide a second write
// of the same size within it. Coarse file systems (whole-second times) get
// a wider window.
func racyWindow(mtimeNS int64) time.Duration {
	if mtimeNS%1e9 == 0 {
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

// trusted says whether e, the entry of a file whose stat is now want,
// still gives its content: the same size, times and inode, hashed after
// its racy window.
func trusted(e, want cacheEntry) bool {
	return e.Size == want.Size && e.MtimeNS == want.MtimeNS && e.CtimeNS == want.CtimeNS &&
		e.Inode == want.Inode && !racy(e)
}

// windowEnd is when the racy window of e's file ends, for Settle to wait
// for (at most the largest time: a hostile mtime does not wrap it).
func windowEnd(e cacheEntry) int64 {
	last, w := max(e.MtimeNS, e.CtimeNS), int64(racyWindow(e.MtimeNS))
	if last > math.MaxInt64-w-1 {
		return math.MaxInt64
	}
	return last + w + 1
}

// racy says whether e was hashed within its racy window.
func racy(e cacheEntry) bool {
	return e.HashedNS-max(e.MtimeNS, e.CtimeNS) <= int64(racyWindow(e.MtimeNS))
}

// entryOf is the entry of a file whose stat is st, not hashed yet.
func entryOf(st *unix.Stat_t) cacheEntry {
	return cacheEntry{Size: st.Size, MtimeNS: st.Mtim.Sec*1e9 + st.Mtim.Nsec, Inode: st.Ino,
		CtimeNS: st.Ctim.Sec*1e9 + st.Ctim.Nsec}
}

// statFunc stats a file by its path relative to the manifest directory,
// following symbolic links as os.Stat does; a failure is an
// *os.PathError naming the full path.
type statFunc func(rel string, st *unix.Stat_t) error

// statPath stats rel by its full path.
func (c *HashCache) statPath(rel string, st *unix.Stat_t) error {
	full := filepath.Join(c.dir, rel)
	if err := ignoringEINTR(func() error { return unix.Stat(full, st) }); err != nil {
		return &os.PathError{Op: "stat", Path: full, Err: err}
	}
	return nil
}

// statIn is a statFunc relative to d, the manifest directory opened once
// (a plan stats every output: the kernel then walks only the path below
// it), or statPath when it cannot be opened. A path that is not local
// (filepath.IsLocal) is stated by its full path; a local one is cleaned
// first, as filepath.Join cleans it.
func (c *HashCache) statIn(d *os.File) statFunc {
	if d == nil {
		return c.statPath
	}
	fd := int(d.Fd())
	return func(rel string, st *unix.Stat_t) error {
		if !filepath.IsLocal(rel) {
			return c.statPath(rel, st)
		}
		clean := filepath.Clean(rel)
		if err := ignoringEINTR(func() error { return unix.Fstatat(fd, clean, st, 0) }); err != nil {
			return &os.PathError{Op: "stat", Path: filepath.Join(c.dir, rel), Err: err}
		}
		return nil
	}
}

// ignoringEINTR calls f until it fails with another error than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// Hash returns the hash of rel (relative to the manifest directory), from
// the cache when size, mtime, ctime and inode are unchanged, else by
// streaming the file.
func (c *HashCache) Hash(rel string) (FileHash, error) {
	return c.hash(rel, c.statPath, new(unix.Stat_t))
}

// hash is Hash, stating rel with stat into st (a worker's own).
func (c *HashCache) hash(rel string, stat statFunc, st *unix.Stat_t) (FileHash, error) {
	err := stat(rel, st)
	if errors.Is(err, os.ErrNotExist) {
		return FileHash{}, nil
	}
	if err != nil {
		return FileHash{}, fmt.Errorf("hash %s: %w", rel, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileHash{}, fmt.Errorf("hash %s: not a regular file", rel)
	}
	want := entryOf(st)
	c.mu.Lock()
	e, ok := c.entries[rel]
	c.mu.Unlock()
	if ok && trusted(e, want) {
		return FileHash{Exists: true, SHA256: e.SHA256, Size: e.Size}, nil
	}
	hashedAt := c.now().UnixNano()
	sum, n, err := HashFile(filepath.Join(c.dir, rel))
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

// Put tells the cache of a file voxform just wrote, whose hash it computed
// while writing it, so that the next plan need not read it again. A file
// written within its racy window (as apply's outputs are) is not entered
// with that hash, which nothing would trust (see trusted): Settle hashes
// it once the window has passed. Until then the cache holds its path
// only, and no entry of its earlier content.
func (c *HashCache) Put(rel, sha256Hex string) {
	var st unix.Stat_t
	if c.statPath(rel, &st) != nil {
		return
	}
	e := entryOf(&st)
	e.SHA256, e.HashedNS = sha256Hex, c.now().UnixNano()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirty = true
	if !racy(e) {
		c.entries[rel] = e
		return
	}
	delete(c.entries, rel)
	c.written = append(c.written, rel)
	c.settled = max(c.settled, windowEnd(e))
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
	d, err := openCacheDir(c.dir, true)
	if err != nil {
		return fmt.Errorf("save hash cache: %w", err)
	}
	defer d.Close()
	err = owned.WriteFileAt(d, hashCacheName, 0o644, true, func(w io.Writer) error {
		return encodeHashes(w, c.entries)
	})
	if err != nil {
		return fmt.Errorf("save hash cache: %w", err)
	}
	unix.Unlinkat(int(d.Fd()), legacyHashCacheName, 0) // read once, replaced
	c.dirty = false
	return nil
}

// HashFile streams a file through SHA-256.
// Only a regular file is read (owned.OpenRegular): never a device, a
// pipe or a file of the kernel's procfs or sysfs.
func HashFile(path string) (sum string, size int64, err error) {
	f, err := owned.OpenRegular(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	// Read through buf (io.Copy would allocate a buffer for each file;
	// a plan or an apply hashes one file per output).
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// hashBuffers are HashFile's read buffers.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// HashAll hashes paths (relative to the cache's directory) in parallel and
// returns the results by path.
func (c *HashCache) HashAll(ctx context.Context, paths []string) (map[string]FileHash, error) {
	got := make([]FileHash, len(paths))
	err := c.hashEach(ctx, paths, func(i int, h FileHash) { got[i] = h }, func(_ string, err error) error { return err })
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]FileHash, len(paths))
	for i, p := range paths {
		out[p] = got[i]
	}
	return out, nil
}

// hashEach hashes paths in parallel, giving each result to got with its
// index in paths and each error to failed, which says whether it stops
// the others; it stops starting more when ctx is done (the caller checks
// ctx). A few workers take the paths in turn, each stated relative to the
// manifest directory, opened once.
func (c *HashCache) hashEach(ctx context.Context, paths []string, got func(int, FileHash), failed func(string, error) error) error {
	d, err := os.Open(c.dir)
	if err != nil {
		d = nil // each is stated by its path, and fails as it would
	} else {
		defer d.Close()
	}
	stat := c.statIn(d)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range min(max(2, runtime.GOMAXPROCS(0)*2), len(paths)) {
		g.Go(func() error {
			st := new(unix.Stat_t)
			for gctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return nil
				}
				h, err := c.hash(paths[i], stat, st)
				if err != nil {
					if err := failed(paths[i], err); err != nil {
						return err
					}
					continue
				}
				got(i, h)
			}
			return nil
		})
	}
	return g.Wait()
}

// Fresh says whether the entry of rel gives the file's content as it is
// on disk now, so that Hash would not read the file.
func (c *HashCache) Fresh(rel string) bool {
	var st unix.Stat_t
	if c.statPath(rel, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	c.mu.Lock()
	e, ok := c.entries[rel]
	c.mu.Unlock()
	return ok && trusted(e, entryOf(&st))
}

// maxSettleWait bounds how long Settle waits for a racy window to pass:
// the widest window (a file system of whole-second times).
const maxSettleWait = 2 * time.Second

// Settle hashes again, once their racy window has passed, the files whose
// entries were made within it (by Put, as apply writes them), so that the
// next plan trusts them instead of reading every file apply wrote. It
// waits at most maxSettleWait, and stops early when ctx is done; a file
// changed meanwhile is hashed as it is now, as Hash does, and one that
// cannot be hashed stops none of the others.
func (c *HashCache) Settle(ctx context.Context) error {
	c.mu.Lock()
	pending, until := c.written, c.settled
	c.written, c.settled = nil, 0
	for rel, e := range c.entries {
		if racy(e) { // entered by a plan within the window
			pending = append(pending, rel)
			until = max(until, windowEnd(e))
		}
	}
	c.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	slices.Sort(pending) // a file Put twice is hashed once
	pending = slices.Compact(pending)
	// Stopped, what is left is left for a later Settle, as it was.
	err := clock.Sleep(ctx, min(time.Duration(until-c.now().UnixNano()), maxSettleWait))
	if err == nil {
		// A file that cannot be hashed now (made a directory, unreadable)
		// is left unsettled; the next plan reads it and says what is wrong.
		err = c.hashEach(ctx, pending, func(int, FileHash) {}, func(string, error) error { return nil })
	}
	if err = cmp.Or(err, ctx.Err()); err != nil {
		c.mu.Lock()
		c.written, c.settled = append(c.written, pending...), max(c.settled, until)
		c.mu.Unlock()
	}
	return err
}
