package cache

import (
	"context"
	"os"
	"testing"
	"time"
)

// SetCopyHook makes every blob copy call hook after each chunk, with the
// bytes copied so far (nil: no hook). Only for a process that copies
// nothing concurrently, such as the kill helper.
func SetCopyHook(hook func(n int64)) { testHookCopied = hook }

// HasAll is hasAll, the worker pool of HasEntries and HasBlobs.
var HasAll = hasAll

// SetGCHook makes GC call hook when it waits for a write in progress.
func SetGCHook(hook func()) { testHookGCWaits = hook }

// NewVerifier is newVerifier, the reader PutBlob uploads through.
var NewVerifier = newVerifier

// SetFlushes sets when a Batch flushes (see flushAt and flushAfter) and
// the hook called after each flush, until the test ends.
func SetFlushes(t testing.TB, at int, after time.Duration, flushed func(written int, err error)) {
	oldAt, oldAfter := flushAt, flushAfter
	flushAt, flushAfter, testHookFlushed = at, after, flushed
	t.Cleanup(func() { flushAt, flushAfter, testHookFlushed = oldAt, oldAfter, nil })
}

// SetListing sets when the S3 remote lists a shard rather than asking by
// HEAD (see listMin, listRatio and listPage), until the test ends.
func SetListing(t testing.TB, minKeys, ratio, page int) {
	oldMin, oldRatio, oldPage := listMin, listRatio, listPage
	listMin, listRatio, listPage = minKeys, ratio, page
	t.Cleanup(func() { listMin, listRatio, listPage = oldMin, oldRatio, oldPage })
}

// HeadMin is the size from which PushEntry asks whether the remote has a
// blob before uploading it.
const HeadMin = headMin

// Before is before, where a listing for a key starts.
var Before = before

// SetSyncEach makes Batch flushes sync each file and directory, as they
// do where the system cannot sync a whole file system, until the test
// ends.
func SetSyncEach(t testing.TB) {
	testSyncEach = true
	t.Cleanup(func() { testSyncEach = false })
}

// SetIndexLimits sets the largest index segment and the number of
// segments above which a writer merges them, until the test ends.
func SetIndexLimits(t testing.TB, size int64, merge int) {
	oldSize, oldMerge := maxIndexSize, indexMerge
	maxIndexSize, indexMerge = size, merge
	t.Cleanup(func() { maxIndexSize, indexMerge = oldSize, oldMerge })
}

// SetIndexTotal sets the most bytes of one remote's segments kept and
// downloaded together, until the test ends.
func SetIndexTotal(t testing.TB, total int64) {
	old := maxIndexTotal
	maxIndexTotal = total
	t.Cleanup(func() { maxIndexTotal = old })
}

// FetchIndex downloads the segments of c's remote that the local cache
// lacks, as a lookup does, and returns the error a lookup falls back on.
func (c *Cache) FetchIndex(ctx context.Context) error {
	names, err := c.Remote.ListIndex(ctx)
	if err != nil {
		return err
	}
	_, err = c.fetchIndex(ctx, names)
	return err
}

// CheckSegment checks data as the index segment name, as a download or a
// read of the local copy does, given step bytes at a time (as a stream
// delivers it), and returns its mark and fingerprints.
func CheckSegment(name string, data []byte, step int) (complete bool, fps [][32]byte, err error) {
	check := newSegmentCheck(name, func(rec *[32]byte) { fps = append(fps, *rec) })
	for len(data) > 0 {
		n := min(max(step, 1), len(data))
		if k, err := check.Write(data[:n]); err != nil || k != n {
			return false, nil, err
		}
		data = data[n:]
	}
	complete, err = check.done()
	return complete, fps, err
}

// KeptDirs lists the shard directories b keeps open.
func KeptDirs(b *Batch) []*os.File {
	b.dirs.mu.Lock()
	defer b.dirs.mu.Unlock()
	var out []*os.File
	for _, d := range b.dirs.dirs {
		out = append(out, d)
	}
	return out
}
