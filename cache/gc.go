package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// testHookGCWaits, when set (by tests), is called when GC finds a write
// in progress and waits for it.
var testHookGCWaits func()

// GCOptions says which entries GC removes.
type GCOptions struct {
	// Keep reports the entries kept whatever their age (those a state
	// file records, say); nil keeps none.
	Keep func(fp string) bool
	// OlderThan, when positive, removes only the entries not used (see
	// Touch) for longer than this; zero removes every entry not kept.
	OlderThan time.Duration
	// Now is the time OlderThan counts back from; zero is time.Now().
	Now time.Time
	// DryRun counts what GC would remove and removes nothing.
	DryRun bool
}

// GCReport counts what GC removed (or, with DryRun, would remove).
type GCReport struct {
	Entries, Blobs int
	// Segments are the local copies of remote index segments.
	Segments int
	Bytes    int64 // the sizes of the removed entry files, blobs and segments
}

// GC removes the entries that opts does not keep, then every blob that no
// remaining entry references, then the local copies of remote index
// segments (see pruneIndex). A malformed entry is removed whatever opts
// says. It waits for the writes in progress (Store, Cache.Fetch) to end,
// and holds them off while it runs, so that it never removes a blob whose
// entry is about to be written; their temporary files are never touched.
// Keep must not write to this cache.
func (l *Local) GC(opts GCOptions) (GCReport, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	unlock, ok, err := l.tryLock()
	if err == nil && !ok {
		if testHookGCWaits != nil {
			testHookGCWaits()
		}
		unlock, err = l.lock(unix.LOCK_EX)
	}
	if err != nil {
		return GCReport{}, fmt.Errorf("collect garbage: %w", err)
	}
	defer unlock()
	var rep GCReport
	refs := map[string]bool{}
	err = l.each("entries", func(shard string, info fs.FileInfo) error {
		fp, ok := entryFromName(shard, info.Name())
		if !ok {
			return nil
		}
		keep := opts.Keep != nil && opts.Keep(fp) ||
			opts.OlderThan > 0 && now.Sub(info.ModTime()) <= opts.OlderThan
		if keep {
			e, err := l.readEntry(fp)
			switch {
			case err == nil && e != nil:
				for _, f := range e.Files {
					refs[f.SHA256] = true
				}
				return nil
			case err == nil:
				return nil // gone meanwhile
			case !errors.Is(err, ErrCorrupt):
				return err
			}
		}
		rep.Entries++
		rep.Bytes += info.Size()
		return l.remove(entryKey(fp), opts.DryRun)
	})
	if err != nil {
		return rep, fmt.Errorf("collect garbage: %w", err)
	}
	err = l.each("blobs", func(shard string, info fs.FileInfo) error {
		if !blobFromName(shard, info.Name()) || refs[info.Name()] {
			return nil
		}
		rep.Blobs++
		rep.Bytes += info.Size()
		return l.remove(blobKey(info.Name()), opts.DryRun)
	})
	if err != nil {
		return rep, fmt.Errorf("collect garbage: %w", err)
	}
	if err := l.pruneIndex(opts, now, &rep); err != nil {
		return rep, fmt.Errorf("collect garbage: %w", err)
	}
	return rep, nil
}

// pruneIndex removes the local copies of remote index segments (below
// v1/index/<remote>/) that are older than opts.OlderThan (every one when
// it is zero) or that do not check against their name and format: a copy
// is only ever a saving, downloaded again when a lookup needs it, and one
// of a remote no longer used, or a bad one, is never read again.
func (l *Local) pruneIndex(opts GCOptions, now time.Time, rep *GCReport) error {
	root := filepath.Join(l.dir, "v1", "index")
	remotes, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, r := range remotes {
		if !r.IsDir() {
			continue
		}
		dir := filepath.Join(root, r.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil || !f.Type().IsRegular() || !ValidKey(f.Name()) {
				continue // gone meanwhile, or not a segment (a temporary file is swept)
			}
			p := filepath.Join(dir, f.Name())
			if opts.OlderThan > 0 && now.Sub(info.ModTime()) <= opts.OlderThan {
				if _, err := scanSegment(p, f.Name(), nil); !errors.Is(err, ErrCorrupt) {
					continue
				}
			}
			rep.Segments++
			rep.Bytes += info.Size()
			if !opts.DryRun {
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
		}
	}
	return nil
}

// remove removes the file of key, unless dryRun.
func (l *Local) remove(key string, dryRun bool) error {
	if dryRun {
		return nil
	}
	if err := os.Remove(l.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// each calls fn with every regular file in the shards of v1/<kind>, in
// name order, and the name of its shard.
func (l *Local) each(kind string, fn func(shard string, info fs.FileInfo) error) error {
	root := filepath.Join(l.dir, "v1", kind)
	shards, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, s := range shards {
		if !s.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, s.Name()))
		if err != nil {
			return err
		}
		for _, f := range files {
			if !f.Type().IsRegular() {
				continue
			}
			info, err := f.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if err := fn(s.Name(), info); err != nil {
				return err
			}
		}
	}
	return nil
}
