package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// blobWorkers is how many blobs of one entry Fetch and Push move at once.
const blobWorkers = 4

// Cache is the local cache with an optional remote.
type Cache struct {
	Local  *Local
	Remote Remote // nil: local only

	index index // what this process knows of the remote's index
}

// Lookup reports where each fingerprint's entry is: "local" when the
// local cache has it (Local.HasEntries), else c.Remote.String() when the
// remote has it, asked once for all those not local. Fingerprints found
// nowhere, and invalid ones, are not in the map. A remote error is
// returned, naming the remote.
func (c *Cache) Lookup(ctx context.Context, fps []string) (map[string]string, error) {
	out := make(map[string]string)
	local := c.Local.HasEntries(fps)
	var rest []string
	for _, fp := range fps {
		switch {
		case local[fp]:
			out[fp] = "local"
		case ValidKey(fp):
			rest = append(rest, fp)
		}
	}
	if c.Remote == nil || len(rest) == 0 {
		return out, nil
	}
	has, err := c.RemoteHas(ctx, rest)
	if err != nil {
		return nil, fmt.Errorf("look up cache entries: %w", err)
	}
	for fp, ok := range has {
		if ok {
			out[fp] = c.Remote.String()
		}
	}
	return out, nil
}

// Fetch returns the local entry of fp, downloading it first when only the
// remote has it: every blob into the local blob store (a temporary file,
// its SHA-256 and size checked as it streams, then renamed), then the
// entry. (nil, nil) when neither has it. A local entry that is malformed
// or lacks a blob is removed and the remote tried; the error wrapping
// ErrCorrupt is returned only when the remote has nothing either. A
// remote blob that does not match its entry stores nothing locally and
// is an error wrapping ErrCorrupt, as is a remote entry whose files
// declare more than MaxEntryContent bytes, which downloads nothing.
func (c *Cache) Fetch(ctx context.Context, fp string) (*Entry, error) {
	return c.fetch(ctx, nil, fp, nil)
}

// FetchInto is Fetch writing what it downloads through the batch b: the
// blobs are in place when it returns, the entry once b has flushed. An
// entry b holds is returned as it is.
func (c *Cache) FetchInto(ctx context.Context, b *Batch, fp string) (*Entry, error) {
	return c.fetch(ctx, b, fp, nil)
}

// FetchChecked is FetchInto with the entry found passed to check first:
// an entry check refuses is returned with its error, and one from the
// remote is then not downloaded (nothing of it is stored locally).
func (c *Cache) FetchChecked(ctx context.Context, b *Batch, fp string, check func(*Entry) error) (*Entry, error) {
	return c.fetch(ctx, b, fp, check)
}

// fetch is Fetch, through b when it is not nil, checking the entry with
// check when it is not nil.
func (c *Cache) fetch(ctx context.Context, b *Batch, fp string, check func(*Entry) error) (*Entry, error) {
	if err := checkFingerprint(fp); err != nil {
		return nil, fmt.Errorf("fetch cache entry: %w", err)
	}
	if check == nil {
		check = func(*Entry) error { return nil }
	}
	if b != nil {
		if e := b.Held(fp); e != nil && c.Local.missingBlobs(e) == 0 {
			return e, check(e)
		}
	}
	e, lerr := c.Local.Entry(fp)
	if lerr != nil && !errors.Is(lerr, ErrCorrupt) {
		return nil, lerr
	}
	if e != nil {
		missing := c.Local.missingBlobs(e)
		if missing == 0 {
			return e, check(e)
		}
		c.Local.Remove(fp)
		lerr = fmt.Errorf("read cache entry %s: %w: %d of its blobs missing (removed)", fp, ErrCorrupt, missing)
	}
	if c.Remote == nil {
		return nil, lerr
	}
	re, err := c.Remote.Entry(ctx, fp)
	if err != nil {
		return nil, fmt.Errorf("fetch cache entry %s: %w", fp, err)
	}
	if re == nil {
		return nil, lerr
	}
	if err := check(re); err != nil {
		return re, err
	}
	if err := c.download(ctx, b, re); err != nil {
		return nil, fmt.Errorf("fetch cache entry %s: %w", fp, err)
	}
	return re, nil
}

// missingBlobs counts the files of e whose blob is not in place.
func (l *Local) missingBlobs(e *Entry) int {
	missing := 0
	for _, f := range e.Files {
		if !l.hasBlob(f.SHA256, f.Size) {
			missing++
		}
	}
	return missing
}

// download stores the remote entry e locally: its blobs first, the entry
// last, under the shared lock; through b (blobs unsynced, the entry held
// for b's flush) when it is not nil.
func (c *Cache) download(ctx context.Context, b *Batch, e *Entry) error {
	if err := CheckContent(e); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	durable := b == nil
	if durable {
		unlock, err := c.Local.lock(unix.LOCK_SH)
		if err != nil {
			return err
		}
		defer unlock()
	} else if err := b.begin(); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(blobWorkers)
	seen := map[string]bool{}
	for _, f := range e.Files {
		if seen[f.SHA256] || c.Local.hasBlob(f.SHA256, f.Size) {
			continue
		}
		seen[f.SHA256] = true
		g.Go(func() error { return c.getBlob(gctx, f, b) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if !durable {
		b.hold(e)
		return nil
	}
	return c.Local.writeEntry(e, true)
}

// getBlob downloads the blob of f into the local blob store: through b
// (unsynced, its shard directory kept by b) when it is not nil, else
// synced with its directory.
func (c *Cache) getBlob(ctx context.Context, f File, b *Batch) error {
	var dirs *shardDirs
	if b != nil {
		dirs = &b.dirs
	}
	d, release, err := dirs.open(c.Local, "blobs", f.SHA256)
	if err != nil {
		return err
	}
	defer release()
	return owned.WriteFileAt(d, f.SHA256, 0o600, b == nil, func(w io.Writer) error {
		hw := &hashingWriter{w: w, h: sha256.New(), max: f.Size}
		if err := c.Remote.GetBlob(ctx, f.SHA256, hw); err != nil {
			if errors.Is(err, errTooLong) {
				return fmt.Errorf("blob %s from %s: %w: more than %d bytes", f.SHA256, c.Remote, ErrCorrupt, f.Size)
			}
			return err
		}
		if err := mismatch(f, hex.EncodeToString(hw.h.Sum(nil)), hw.n); err != nil {
			return fmt.Errorf("blob %s from %s: %w", f.SHA256, c.Remote, err)
		}
		return nil
	})
}

// errTooLong is the error of a hashingWriter given more than its max.
var errTooLong = errors.New("longer than expected")

// hashingWriter writes to w and hashes what it writes, up to max bytes:
// a remote serving an endless blob does not fill the disk.
type hashingWriter struct {
	w   io.Writer
	h   hash.Hash
	n   int64
	max int64
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	if hw.n+int64(len(p)) > hw.max {
		hw.n += int64(len(p))
		return 0, errTooLong
	}
	k, err := hw.w.Write(p)
	hw.h.Write(p[:k])
	hw.n += int64(k)
	return k, err
}

// Push uploads the local entry fp to the remote, as PushEntry does. No-op
// without a remote.
func (c *Cache) Push(ctx context.Context, fp string) error {
	if c.Remote == nil {
		return nil
	}
	e, err := c.Local.Entry(fp)
	if err != nil {
		return fmt.Errorf("push cache entry: %w", err)
	}
	if e == nil {
		return fmt.Errorf("push cache entry %s: not in the local cache", fp)
	}
	return c.PushEntry(ctx, e)
}

// headMin is the size from which PushEntry asks whether the remote has a
// blob before uploading it: below it, asking costs about as much as
// uploading again content that the remote would store unchanged.
const headMin = 1 << 20

// PushEntry uploads e, whose blobs the local cache has (an entry of the
// local cache, or one a Batch holds), to the remote: its fingerprint is
// announced in the remote's index unless it was (see Announce), then the
// blobs go (those of headMin bytes or more only if the remote lacks
// them), then the entry, so that an entry visible in the remote implies
// its blobs are there and its fingerprint in the index. A local blob that does not match its SHA-256 is removed, uploads
// nothing and is an error wrapping ErrCorrupt. No-op without a remote.
func (c *Cache) PushEntry(ctx context.Context, e *Entry) error {
	if c.Remote == nil {
		return nil
	}
	ent, err := prepare(e)
	if err == nil {
		err = CheckContent(ent)
	}
	if err != nil {
		return fmt.Errorf("push cache entry: %w", err)
	}
	if err := c.Announce(ctx, []string{ent.Fingerprint}); err != nil {
		return fmt.Errorf("push cache entry %s: %w", ent.Fingerprint, err)
	}
	var large []string
	for _, f := range ent.Files {
		if f.Size >= headMin {
			large = append(large, f.SHA256)
		}
	}
	has := map[string]bool{}
	if len(large) > 0 {
		if has, err = c.Remote.HasBlobs(ctx, large); err != nil {
			return fmt.Errorf("push cache entry %s: %w", ent.Fingerprint, err)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(blobWorkers)
	for _, f := range ent.Files {
		if has[f.SHA256] {
			continue
		}
		has[f.SHA256] = true
		g.Go(func() error { return c.putBlob(gctx, f) })
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("push cache entry %s: %w", ent.Fingerprint, err)
	}
	if err := c.Remote.PutEntry(ctx, ent); err != nil {
		return fmt.Errorf("push cache entry %s: %w", ent.Fingerprint, err)
	}
	return nil
}

// putBlob uploads the local blob of f.
func (c *Cache) putBlob(ctx context.Context, f File) error {
	p := c.Local.path(blobKey(f.SHA256))
	in, err := openRegular(p)
	if err != nil {
		return fmt.Errorf("read blob %s: %w", f.SHA256, err)
	}
	defer in.Close()
	err = c.Remote.PutBlob(ctx, f.SHA256, f.Size, in)
	if errors.Is(err, ErrCorrupt) {
		os.Remove(p)
	}
	return err
}
