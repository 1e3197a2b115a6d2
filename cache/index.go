package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// The remote's index.
//
// A plan asks the remote about every fingerprint it could restore, and
// most often the answer is no: the text is new. Asked key by key, or shard
// by shard, that costs the remote a request or a listed key for each
// fingerprint, more than the plan itself costs. So a remote keeps an
// index of its fingerprints: segments under v1/index/, each an immutable
// sorted list of fingerprints named by its own SHA-256.
//
// What makes the index's "no" trustworthy is one rule: a fingerprint is in
// a segment before its entry is uploaded (PushEntry announces it first,
// see Announce). A remote whose index covers every entry it holds has a
// segment marked complete: the first writer of an empty remote marks its
// segment so, and the first writer of a remote without an index lists
// every entry there and marks the segment that lists them. Once one is, a
// fingerprint that no segment lists has no entry, and a lookup asks the
// remote only about the fingerprints the index lists (one may be listed
// and absent: its upload failed, or it was deleted). Without a complete
// segment, or when the index cannot be read whole, a lookup asks the
// remote about every fingerprint, as before.
//
// A segment is checked as it is downloaded (segmentCheck) and kept below
// the local cache (v1/index/<remote>/) only if it checks; it is checked
// against its name each time it is read, so a lookup costs one LIST
// request plus the GET of each segment written since. The segments of a
// remote take at most maxIndexTotal bytes together, downloaded and kept:
// past that the index is not used. A writer
// that finds more than indexMerge segments merges them into one and
// deletes them.
//
// A segment is the line indexMagic, the line "complete" or "partial", then
// the fingerprints, 32 bytes each, in strictly ascending order.
const (
	indexMagic = "voxform cache index 1\n"
	// indexWorkers is how many segments are downloaded at once.
	indexWorkers = 8
)

// Variables for tests.
var (
	// maxIndexSize is the largest segment read or written, in bytes:
	// about two million fingerprints.
	maxIndexSize int64 = 64 << 20
	// maxIndexTotal bounds the bytes of one remote's segments kept and
	// downloaded together: an index larger than that is not used (a
	// lookup asks the remote), so a remote listing many large segments
	// cannot fill the disk.
	maxIndexTotal int64 = 256 << 20
	// maxIndexSegments is the most segments a lookup reads; a remote with
	// more is asked fingerprint by fingerprint.
	maxIndexSegments = 4096
	// indexMerge is the number of segments above which a writer merges
	// them.
	indexMerge = 64
)

var (
	lineComplete = []byte("complete\n")
	linePartial  = []byte("partial\n")
)

// index is what a Cache knows of its remote's index.
type index struct {
	mu        sync.Mutex
	announced map[[32]byte]bool
}

// RemoteHas reports which of fps the remote has (as Remote.HasEntries
// does), asking it only about those its index lists when the index is
// complete.
func (c *Cache) RemoteHas(ctx context.Context, fps []string) (map[string]bool, error) {
	keys, err := indexKeys(fps)
	if err != nil {
		return nil, err
	}
	listed, _, complete, err := c.readIndex(ctx, keys)
	if err != nil {
		return nil, err
	}
	if !complete {
		return c.Remote.HasEntries(ctx, fps)
	}
	out := make(map[string]bool, len(fps))
	var maybe []string
	for i, k := range keys {
		fp := hex.EncodeToString(k[:])
		out[fp] = false
		if listed[i] {
			maybe = append(maybe, fp)
		}
	}
	if len(maybe) == 0 {
		return out, nil
	}
	has, err := c.Remote.HasEntries(ctx, maybe)
	if err != nil {
		return nil, err
	}
	for fp, ok := range has {
		out[fp] = ok
	}
	return out, nil
}

// indexKeys is fps decoded, sorted and without duplicates; an invalid
// fingerprint is an error naming it.
func indexKeys(fps []string) ([][32]byte, error) {
	keys := make([][32]byte, 0, len(fps))
	for _, fp := range fps {
		if !ValidKey(fp) {
			return nil, invalidKey("fingerprint", fp)
		}
		var k [32]byte
		hex.Decode(k[:], []byte(fp))
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(keys), nil
}

// readIndex reads the remote's index: listed[i] reports whether a segment
// lists keys[i] (sorted), segments how many there are, and complete
// whether one is marked complete and all were read whole. A segment
// deleted between the listing and its reading (a writer merged it) makes
// it list again; one that does not check is removed from the local cache
// (to be downloaded again) and the index taken as incomplete.
func (c *Cache) readIndex(ctx context.Context, keys [][32]byte) (listed []bool, segments int, complete bool, err error) {
	for range 3 {
		names, err := c.Remote.ListIndex(ctx)
		if err != nil || len(names) == 0 || len(names) > maxIndexSegments {
			return nil, len(names), false, err
		}
		dir, err := c.fetchIndex(ctx, names)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if errors.Is(err, ErrCorrupt) {
			return nil, len(names), false, nil
		}
		if err != nil {
			return nil, len(names), false, err
		}
		listed, complete, err = scanIndex(dir, names, keys)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if errors.Is(err, ErrCorrupt) {
			return nil, len(names), false, nil
		}
		if err != nil {
			return nil, len(names), false, fmt.Errorf("read the index of remote cache %s: %w", c.Remote, err)
		}
		return listed, len(names), complete, nil
	}
	return nil, 0, false, nil
}

// scanIndex reads the segments names of dir, as readIndex does.
func scanIndex(dir string, names []string, keys [][32]byte) (listed []bool, complete bool, err error) {
	listed = make([]bool, len(keys))
	for _, name := range names {
		var hits []int
		i := 0
		mark, err := scanSegment(filepath.Join(dir, name), name, func(rec *[32]byte) {
			for i < len(keys) && bytes.Compare(keys[i][:], rec[:]) < 0 {
				i++
			}
			if i < len(keys) && keys[i] == *rec {
				hits = append(hits, i)
			}
		})
		if errors.Is(err, ErrCorrupt) {
			os.Remove(filepath.Join(dir, name))
		}
		if err != nil {
			return nil, false, err
		}
		for _, i := range hits {
			listed[i] = true
		}
		complete = complete || mark
	}
	return listed, complete, nil
}

// indexDir is the local directory of the remote's segments.
func (c *Cache) indexDir() string {
	sum := sha256.Sum256([]byte(c.Remote.String()))
	return c.Local.path("v1/index/" + hex.EncodeToString(sum[:8]))
}

// fetchIndex downloads the segments of names that the local cache lacks,
// removes those the remote no longer lists, and returns their directory.
func (c *Cache) fetchIndex(ctx context.Context, names []string) (string, error) {
	dir := c.indexDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keep the index of remote cache %s: %w", c.Remote, err)
	}
	unlock, err := c.Local.lock(unix.LOCK_SH) // the sweep of temporary files waits
	if err != nil {
		return "", fmt.Errorf("keep the index of remote cache %s: %w", c.Remote, err)
	}
	defer unlock()
	d, err := owned.OpenDirFile(dir)
	if err != nil {
		return "", fmt.Errorf("keep the index of remote cache %s: %w", c.Remote, err)
	}
	defer d.Close()
	have, err := d.Readdirnames(-1)
	if err != nil {
		return "", fmt.Errorf("keep the index of remote cache %s: %w", c.Remote, err)
	}
	listed := make(map[string]bool, len(names))
	for _, n := range names {
		listed[n] = true
	}
	left := maxIndexTotal
	for _, n := range have {
		if !listed[n] {
			if ValidKey(n) {
				os.Remove(filepath.Join(dir, n)) // merged away
			}
			continue
		}
		delete(listed, n)
		if st, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			left -= st.Size()
		}
	}
	if left < 0 {
		return "", indexTooLarge(c.Remote)
	}
	return dir, c.downloadIndex(ctx, d, listed, left)
}

// downloadIndex downloads the segments names into the directory d, each
// checked as it streams (segmentCheck), so that one that does not check
// is never kept, and all of them together at most left bytes.
func (c *Cache) downloadIndex(ctx context.Context, d *os.File, names map[string]bool, left int64) error {
	var budget atomic.Int64
	budget.Store(left)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexWorkers)
	for name := range names {
		g.Go(func() error {
			return owned.WriteFileAt(d, name, 0o600, false, func(w io.Writer) error {
				check := newSegmentCheck(name, nil)
				err := c.Remote.GetIndex(gctx, name, io.MultiWriter(check, &budgetWriter{w: w, left: &budget, remote: c.Remote}))
				if err != nil {
					return err
				}
				_, err = check.done()
				return err
			})
		})
	}
	return g.Wait()
}

// indexTooLarge is the error of an index of more than maxIndexTotal bytes.
func indexTooLarge(r Remote) error {
	return fmt.Errorf("%w: the index of remote cache %s is larger than the limit of %d bytes in all", ErrCorrupt, r, maxIndexTotal)
}

// budgetWriter writes to w while the bytes it shares with other
// budgetWriters (left) last.
type budgetWriter struct {
	w      io.Writer
	left   *atomic.Int64
	remote Remote
}

func (b *budgetWriter) Write(p []byte) (int, error) {
	if b.left.Add(-int64(len(p))) < 0 {
		return 0, indexTooLarge(b.remote)
	}
	return b.w.Write(p)
}

// scanSegment reads the segment file path, checks it as segmentCheck
// does, and calls visit with each fingerprint; what visit saw counts only
// if scanSegment returns no error. complete is the segment's mark. A
// segment that does not check is an error wrapping ErrCorrupt.
func scanSegment(path, name string, visit func(rec *[32]byte)) (complete bool, err error) {
	f, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	check := newSegmentCheck(name, visit)
	if _, err := io.CopyBuffer(check, struct{ io.Reader }{f}, make([]byte, 64<<10)); err != nil {
		return false, err
	}
	return check.done()
}

// Announce adds the fingerprints fps to the remote's index, in one
// segment, so that their entries may be uploaded: PushEntry announces a
// fingerprint not announced yet on its own, a segment for each, so a
// writer of many entries announces them together first. A remote without
// a complete segment is indexed first: every entry it holds is listed in
// the new segment, which is marked complete. Then, when the remote has
// more than indexMerge segments, they are merged (a failure to merge is
// returned, the fingerprints announced nonetheless). No-op without a
// remote.
func (c *Cache) Announce(ctx context.Context, fps []string) error {
	if c.Remote == nil {
		return nil
	}
	keys, err := indexKeys(fps)
	if err != nil {
		return fmt.Errorf("announce cache entries: %w", err)
	}
	c.index.mu.Lock()
	keys = slices.DeleteFunc(keys, func(k [32]byte) bool { return c.index.announced[k] })
	c.index.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	_, segments, complete, err := c.readIndex(ctx, nil)
	if err != nil {
		return err
	}
	if !complete {
		err := c.Remote.ListEntries(ctx, func(fp string, _ time.Time) error {
			var k [32]byte
			hex.Decode(k[:], []byte(fp))
			keys = append(keys, k)
			if int64(len(keys))*32 > maxIndexSize {
				return fmt.Errorf("remote cache %s: more entries than one index segment holds (%d bytes)", c.Remote, maxIndexSize)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("index remote cache %s: %w", c.Remote, err)
		}
		slices.SortFunc(keys, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
		keys = slices.Compact(keys)
	}
	if _, err := c.putSegment(ctx, keys, !complete); err != nil {
		return err
	}
	c.index.mu.Lock()
	if c.index.announced == nil {
		c.index.announced = map[[32]byte]bool{}
	}
	for _, k := range keys {
		c.index.announced[k] = true
	}
	c.index.mu.Unlock()
	if segments >= indexMerge {
		if err := c.mergeIndex(ctx); err != nil {
			return fmt.Errorf("merge the index of remote cache %s: %w", c.Remote, err)
		}
	}
	return nil
}

// segmentTemp starts the names of the temporary files of segments being
// written locally.
const segmentTemp = ".segment-"

// putSegment writes the segment of keys (sorted, unique) into the local
// copy of the index, named by its SHA-256, uploads it, and returns its
// name.
func (c *Cache) putSegment(ctx context.Context, keys [][32]byte, complete bool) (string, error) {
	mark := linePartial
	if complete {
		mark = lineComplete
	}
	size := int64(len(indexMagic)+len(mark)) + int64(len(keys))*32
	if size > maxIndexSize {
		return "", fmt.Errorf("write an index segment of %d fingerprints: larger than the limit of %d bytes", len(keys), maxIndexSize)
	}
	dir := c.indexDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write an index segment: %w", err)
	}
	unlock, err := c.Local.lock(unix.LOCK_SH) // the sweep of temporary files waits
	if err != nil {
		return "", fmt.Errorf("write an index segment: %w", err)
	}
	defer unlock()
	tmp, err := os.CreateTemp(dir, segmentTemp+"*")
	if err != nil {
		return "", fmt.Errorf("write an index segment: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name()) // gone once renamed
	}()
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, h), 64<<10)
	w.WriteString(indexMagic)
	w.Write(mark)
	for _, k := range keys {
		w.Write(k[:])
	}
	if err := w.Flush(); err != nil {
		return "", fmt.Errorf("write an index segment: %w", err)
	}
	name := hex.EncodeToString(h.Sum(nil))
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("write an index segment: %w", err)
	}
	if err := c.Remote.PutIndex(ctx, name, size, tmp); err != nil {
		return "", err
	}
	os.Rename(tmp.Name(), filepath.Join(dir, name)) // the local copy (downloaded when this fails)
	return name, nil
}

// mergeIndex merges every segment of the remote into one, uploads it, then
// deletes the others. A reader that listed them before the deletion
// lists again (readIndex); one that lists after it finds the merged one.
// An index of more fingerprints than one segment holds is left as it is.
func (c *Cache) mergeIndex(ctx context.Context) error {
	names, err := c.Remote.ListIndex(ctx)
	if err != nil || len(names) <= indexMerge {
		return err
	}
	dir, err := c.fetchIndex(ctx, names)
	if err != nil {
		return err
	}
	var all, seg [][32]byte
	complete := false
	for _, name := range names {
		seg = seg[:0]
		mark, err := scanSegment(filepath.Join(dir, name), name, func(rec *[32]byte) { seg = append(seg, *rec) })
		if err != nil {
			return err
		}
		all, complete = append(all, seg...), complete || mark
		if int64(len(all))*32 > maxIndexSize {
			return nil
		}
	}
	slices.SortFunc(all, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	merged, err := c.putSegment(ctx, slices.Compact(all), complete)
	if err != nil {
		return err
	}
	for _, name := range names {
		if name == merged {
			continue
		}
		if err := c.Remote.DeleteIndex(ctx, name); err != nil {
			return err
		}
	}
	return nil
}
