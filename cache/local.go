package cache

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// Local is the cache on this machine: a directory holding the layout
// described in the package documentation, and a lock file (v1/lock) that
// keeps GC and the sweep of temporary files away from writes in progress,
// in this process and in others.
type Local struct {
	dir string
}

// DefaultDir is where the local cache lives unless configured otherwise:
// voxform in the user's cache directory ($XDG_CACHE_HOME or ~/.cache on
// Linux).
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache directory: %w", err)
	}
	return filepath.Join(base, "voxform"), nil
}

// OpenLocal opens the local cache in dir, creating it (0700) if needed.
// When no other writer has the cache open, it removes the temporary files
// that interrupted writes left.
func OpenLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open local cache: %w", err)
	}
	l := &Local{dir: abs}
	for _, sub := range []string{"entries", "blobs"} {
		if err := os.MkdirAll(filepath.Join(abs, "v1", sub), 0o700); err != nil {
			return nil, fmt.Errorf("open local cache: %w", err)
		}
	}
	unlock, ok, err := l.tryLock()
	if err != nil {
		return nil, fmt.Errorf("open local cache: %w", err)
	}
	if ok {
		defer unlock()
		l.sweep()
	}
	return l, nil
}

// Dir is the cache directory, absolute.
func (l *Local) Dir() string { return l.dir }

// path is the file of a slash-separated key below the cache directory.
func (l *Local) path(key string) string { return filepath.Join(l.dir, filepath.FromSlash(key)) }

// Has reports whether fp has an entry file: a stat, no read. An invalid
// fingerprint has none.
func (l *Local) Has(fp string) bool {
	if !ValidKey(fp) {
		return false
	}
	st, err := os.Lstat(l.path(entryKey(fp)))
	return err == nil && st.Mode().IsRegular()
}

// HasEntries reports which of fps have an entry file, as Has does, with
// one open of each shard directory and a stat relative to it for each
// fingerprint: a shard never written costs one failed open for all its
// lookups. Invalid fingerprints have none.
func (l *Local) HasEntries(fps []string) map[string]bool {
	out := make(map[string]bool, len(fps))
	shards := map[string][]string{}
	for _, fp := range fps {
		if ValidKey(fp) {
			shards[fp[:2]] = append(shards[fp[:2]], fp)
		}
	}
	for shard, keys := range shards {
		d, err := unix.Open(filepath.Join(l.dir, "v1", "entries", shard), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // none there, or none this process may read
		}
		for _, fp := range keys {
			var st unix.Stat_t
			if unix.Fstatat(d, fp+".json", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				out[fp] = true
			}
		}
		unix.Close(d)
	}
	return out
}

// Entry reads the entry of fp: (nil, nil) when there is none. A malformed
// entry is removed and an error wrapping ErrCorrupt returned.
func (l *Local) Entry(fp string) (*Entry, error) {
	if err := checkFingerprint(fp); err != nil {
		return nil, fmt.Errorf("read cache entry: %w", err)
	}
	e, err := l.readEntry(fp)
	if errors.Is(err, ErrCorrupt) {
		os.Remove(l.path(entryKey(fp)))
		return nil, fmt.Errorf("read cache entry %s: %w (removed)", fp, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read cache entry %s: %w", fp, err)
	}
	return e, nil
}

// readEntry reads the entry of the valid fingerprint fp, (nil, nil) when
// there is none, and leaves a malformed one in place.
func (l *Local) readEntry(fp string) (*Entry, error) {
	f, err := openRegular(l.path(entryKey(fp)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeEntry(f, fp)
}

// openRegular opens the file p for reading: a regular file, not a
// symbolic link (anything else is an error wrapping ErrCorrupt).
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symbolic link", ErrCorrupt, p)
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, p)
	}
	return f, nil
}

// Store adds the entry e: paths maps each file's role to the absolute
// path of a file holding it. Each file is reflinked where the file system
// can, copied otherwise, into the blob store, its SHA-256 and size checked
// as it goes: a mismatch stores nothing and returns an error wrapping
// ErrCorrupt. Then the entry is written. Blobs already present are not
// rewritten. A zero Version or CreatedAt is filled in (e is not changed).
//
// A blob is never a hard link to the file it came from: a later in-place
// edit of that file would change the cached content.
func (l *Local) Store(e *Entry, paths map[string]string) error {
	ent, err := prepare(e)
	if err != nil {
		return fmt.Errorf("store cache entry: %w", err)
	}
	if err := checkPaths(ent, paths); err != nil {
		return err
	}
	unlock, err := l.lock(unix.LOCK_SH)
	if err != nil {
		return fmt.Errorf("store cache entry %s: %w", ent.Fingerprint, err)
	}
	defer unlock()
	for _, f := range ent.Files {
		if err := l.storeBlob(f, paths[f.Role], true, nil); err != nil {
			return fmt.Errorf("store cache entry %s: %s file: %w", ent.Fingerprint, f.Role, err)
		}
	}
	if err := l.writeEntry(ent, true); err != nil {
		return fmt.Errorf("store cache entry %s: %w", ent.Fingerprint, err)
	}
	return nil
}

// writeEntry writes ent's file atomically, synced, and syncs its
// directory if syncDir (a flush of a Batch syncs each directory once).
func (l *Local) writeEntry(ent *Entry, syncDir bool) error {
	data, err := ent.encode()
	if err != nil {
		return err
	}
	d, err := l.shard("entries", ent.Fingerprint)
	if err != nil {
		return err
	}
	defer d.Close()
	return owned.WriteFileAt(d, ent.Fingerprint+".json", 0o600, syncDir, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil || syncDir {
			return err // synced by WriteFileAt if syncDir
		}
		f, ok := w.(interface{ Sync() error })
		if !ok {
			return errors.New("the temporary file cannot be synced")
		}
		return f.Sync()
	})
}

// shard opens (creating it if needed) the directory of the entries or
// blobs whose names start as key does.
func (l *Local) shard(kind, key string) (*os.File, error) {
	dir := filepath.Join(l.dir, "v1", kind, key[:2])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return owned.OpenDirFile(dir)
}

// shardDirs keeps the shard directories opened for a Batch until its
// Close, which an apply storing thousands of blobs into at most 256 of
// them would otherwise open and close for each. The Batch holds the
// shared lock meanwhile: no GC or sweep of another process runs.
type shardDirs struct {
	mu   sync.Mutex
	dirs map[string]*os.File // by kind/xx
}

// open is l.shard(kind, key), kept in s; its release closes a handle
// s does not keep (s nil: none is kept).
func (s *shardDirs) open(l *Local, kind, key string) (d *os.File, release func(), err error) {
	if s == nil {
		if d, err = l.shard(kind, key); err != nil {
			return nil, nil, err
		}
		return d, func() { d.Close() }, nil
	}
	k := kind + "/" + key[:2]
	s.mu.Lock()
	defer s.mu.Unlock()
	if d = s.dirs[k]; d == nil {
		if d, err = l.shard(kind, key); err != nil {
			return nil, nil, err
		}
		if s.dirs == nil {
			s.dirs = map[string]*os.File{}
		}
		s.dirs[k] = d
	}
	return d, func() {}, nil
}

// close closes the directories s keeps.
func (s *shardDirs) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.dirs {
		d.Close()
	}
	s.dirs = nil
}

// hasBlob reports whether the blob sha is there with size bytes.
func (l *Local) hasBlob(sha string, size int64) bool {
	st, err := os.Lstat(l.path(blobKey(sha)))
	return err == nil && st.Mode().IsRegular() && st.Size() == size
}

// Remove removes the entry of fp, if any. Its blobs stay until GC.
func (l *Local) Remove(fp string) error {
	if err := checkFingerprint(fp); err != nil {
		return fmt.Errorf("remove cache entry: %w", err)
	}
	if err := os.Remove(l.path(entryKey(fp))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove cache entry %s: %w", fp, err)
	}
	return nil
}

// Touch records a use of fp's entry now (its file's modification time),
// which GC's OlderThan counts from. Failures are ignored.
func (l *Local) Touch(fp string) {
	if !ValidKey(fp) {
		return
	}
	now := time.Now()
	os.Chtimes(l.path(entryKey(fp)), now, now)
}

// lock takes the cache lock, shared (LOCK_SH: writers) or exclusive
// (LOCK_EX: GC), waiting for it. unlock releases it.
func (l *Local) lock(how int) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(l.dir, "v1", "lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the cache: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the cache: %w", err)
	}
	return func() { f.Close() }, nil
}

// tryLock takes the exclusive lock if no one holds the lock.
func (l *Local) tryLock() (unlock func(), ok bool, err error) {
	unlock, err = l.lock(unix.LOCK_EX | unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, false, nil
	}
	return unlock, err == nil, err
}

// sweep removes the temporary files of interrupted writes. The caller
// holds the exclusive lock: no write is in progress.
func (l *Local) sweep() {
	remotes, _ := os.ReadDir(filepath.Join(l.dir, "v1", "index"))
	for _, r := range remotes {
		dir := filepath.Join(l.dir, "v1", "index", r.Name())
		names, _ := os.ReadDir(dir)
		for _, n := range names {
			if (owned.IsTemp(n.Name()) || strings.HasPrefix(n.Name(), segmentTemp)) && n.Type().IsRegular() {
				os.Remove(filepath.Join(dir, n.Name()))
			}
		}
	}
	for _, kind := range []string{"entries", "blobs"} {
		root := filepath.Join(l.dir, "v1", kind)
		shards, _ := os.ReadDir(root)
		for _, s := range shards {
			if !s.IsDir() {
				continue
			}
			dir := filepath.Join(root, s.Name())
			names, _ := os.ReadDir(dir)
			for _, n := range names {
				if owned.IsTemp(n.Name()) && n.Type().IsRegular() {
					os.Remove(filepath.Join(dir, n.Name()))
				}
			}
		}
	}
}
