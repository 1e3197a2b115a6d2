package cache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/owned"
)

// A flush starts once flushAt entries are held, or flushAfter after the
// first of them was; Close flushes the rest. The more entries a flush
// writes, the fewer syncs each costs.
var (
	flushAt    = 1024
	flushAfter = 2 * time.Second
)

// testHookFlushed, when set (by tests), is called after each flush with
// the entries it wrote and its error.
var testHookFlushed func(written int, err error)

// testSyncEach, when set (by tests), makes flushes sync each file and
// directory where the system could sync the whole file system.
var testSyncEach bool

// syncWorkers is how many files a flush syncs at once: a device serves a
// queue of writes faster than one write at a time.
const syncWorkers = 8

// Batch writes entries into a local cache with their syncs shared, for an
// apply that keeps or fetches thousands of outputs: where Store syncs
// each blob, each entry and their directories one by one, a Batch writes
// each blob into place at once, unsynced (it is usable: every read of a
// blob is verified), and holds its entry back. A flush makes the blobs of
// every entry held durable, then writes the entries, each durable before
// it is renamed into place: with one sync of the whole file system for
// each step where the system has one (see publishFS), else with a sync of
// each file and one of each directory. So, as with Store, an entry is
// never visible before its blobs are durable, and every file is written
// atomically; a process killed before a flush leaves blobs that no entry
// references, which GC removes, and temporary files, which OpenLocal
// sweeps.
//
// A Batch holds the cache's shared lock from its first write until Close,
// so that GC never removes a blob whose entry is held back. It is safe
// for concurrent use; Close must come after every Store and FetchInto
// through it has returned.
type Batch struct {
	l *Local

	mu       sync.Mutex
	unlock   func()            // the shared lock, once taken
	held     map[string]*Entry // by fingerprint, awaiting a flush
	timer    *time.Timer       // starts a flush flushAfter the first entry held
	flushing sync.WaitGroup
	errs     []error
	closed   bool
	// dirs are the blob shard directories opened through the batch,
	// kept until Close.
	dirs shardDirs
}

// Batch returns a new batch of writes into l.
func (l *Local) Batch() *Batch {
	return &Batch{l: l, held: map[string]*Entry{}}
}

// begin takes the shared lock if the batch does not hold it yet.
func (b *Batch) begin() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("cache batch closed")
	}
	if b.unlock != nil {
		return nil
	}
	unlock, err := b.l.lock(unix.LOCK_SH)
	if err != nil {
		return err
	}
	b.unlock = unlock
	return nil
}

// Store is Local.Store in the batch: the blobs are in place when it
// returns, the entry once a flush has written it.
func (b *Batch) Store(e *Entry, paths map[string]string) error {
	ent, err := prepare(e)
	if err != nil {
		return fmt.Errorf("store cache entry: %w", err)
	}
	if err := checkPaths(ent, paths); err != nil {
		return err
	}
	if err := b.begin(); err != nil {
		return fmt.Errorf("store cache entry %s: %w", ent.Fingerprint, err)
	}
	for _, f := range ent.Files {
		if err := b.l.storeBlob(f, paths[f.Role], false, &b.dirs); err != nil {
			return fmt.Errorf("store cache entry %s: %s file: %w", ent.Fingerprint, f.Role, err)
		}
	}
	b.hold(ent)
	return nil
}

// Held returns the entry of fp that the batch holds for its next flush,
// if any: its blobs are in place.
func (b *Batch) Held(fp string) *Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held[fp]
}

// hold keeps ent for the next flush, starting one once flushAt are held.
func (b *Batch) hold(ent *Entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.held) == 0 && !b.closed {
		b.timer = time.AfterFunc(flushAfter, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.startFlush()
		})
	}
	b.held[ent.Fingerprint] = ent
	if len(b.held) >= flushAt {
		b.startFlush()
	}
}

// startFlush flushes the held entries in the background. The caller
// holds b.mu.
func (b *Batch) startFlush() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.held) == 0 {
		return
	}
	ents := make([]*Entry, 0, len(b.held))
	for _, e := range b.held {
		ents = append(ents, e)
	}
	b.held = map[string]*Entry{}
	b.flushing.Add(1)
	go func() {
		defer b.flushing.Done()
		n, err := b.l.publish(ents)
		if err != nil {
			b.mu.Lock()
			b.errs = append(b.errs, err)
			b.mu.Unlock()
		}
		if testHookFlushed != nil {
			testHookFlushed(n, err)
		}
	}()
}

// Close flushes what the batch holds, waits for every flush, and releases
// the lock. Its error joins those of the flushes: the entries of a failed
// flush are not written (their outputs were not lost, only not kept).
func (b *Batch) Close() error {
	b.mu.Lock()
	b.closed = true
	b.startFlush()
	b.mu.Unlock()
	b.flushing.Wait()
	b.dirs.close()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.unlock != nil {
		b.unlock()
		b.unlock = nil
	}
	return errors.Join(b.errs...)
}

// publish makes the blobs of ents durable, then writes ents durably, and
// returns how many it wrote. The caller holds the shared lock. An entry
// whose blob is missing now (a read found it corrupt and removed it) is
// not written.
func (l *Local) publish(ents []*Entry) (int, error) {
	shas := map[string]bool{}
	for _, e := range ents {
		for _, f := range e.Files {
			shas[f.SHA256] = true
		}
	}
	var missing map[string]bool
	var err error
	if owned.SyncsFS() && !testSyncEach {
		missing, err = l.publishFS(ents, shas)
	} else {
		missing, err = l.publishEach(ents, shas)
	}
	if err != nil {
		return 0, fmt.Errorf("store cache entries: %w", err)
	}
	n := 0
	for _, e := range ents {
		if !lost(e, missing) {
			n++
		}
	}
	return n, nil
}

// lost reports whether a file of e is among the missing blobs.
func lost(e *Entry, missing map[string]bool) bool {
	return slices.ContainsFunc(e.Files, func(f File) bool { return missing[f.SHA256] })
}

// publishFS publishes with a sync of the whole file system (syncfs(2))
// where Store syncs each file and directory: one sync makes every blob
// durable, each entry is then written to a temporary file, a second sync
// makes them durable, and they are renamed into place, which a third
// sync makes durable. On a file system without a journal each sync of a
// file or directory flushes the device's cache, and writes the block of
// inodes it shares with others; three syncs for a thousand entries spare
// thousands of both. The syncs also write what others left unwritten on
// the file system, which the kernel would write within seconds anyway.
// It returns the blobs found missing.
func (l *Local) publishFS(ents []*Entry, shas map[string]bool) (map[string]bool, error) {
	missing := map[string]bool{}
	for sha := range shas {
		if st, err := os.Lstat(l.path(blobKey(sha))); err != nil || !st.Mode().IsRegular() {
			missing[sha] = true
		}
	}
	if err := owned.SyncFS(l.dir); err != nil {
		return nil, err
	}
	dirs := map[string]*os.File{}
	defer func() {
		for _, d := range dirs {
			d.Close()
		}
	}()
	type staged struct {
		d        *os.File
		tmp, put string
	}
	var all []staged
	renamed := 0
	defer func() {
		for _, s := range all[renamed:] {
			unix.Unlinkat(int(s.d.Fd()), s.tmp, 0)
		}
	}()
	for _, e := range ents {
		if lost(e, missing) {
			continue
		}
		d := dirs[e.Fingerprint[:2]]
		if d == nil {
			var err error
			if d, err = l.shard("entries", e.Fingerprint); err != nil {
				return nil, err
			}
			dirs[e.Fingerprint[:2]] = d
		}
		data, err := e.encode()
		if err != nil {
			return nil, err
		}
		name := e.Fingerprint + ".json"
		tmp, err := stage(d, name, data)
		if err != nil {
			return nil, err
		}
		all = append(all, staged{d, tmp, name})
	}
	if err := owned.SyncFS(l.dir); err != nil {
		return nil, err
	}
	for _, s := range all {
		if err := unix.Renameat(int(s.d.Fd()), s.tmp, int(s.d.Fd()), s.put); err != nil {
			return nil, fmt.Errorf("rename %s: %w", filepath.Join(s.d.Name(), s.put), err)
		}
		renamed++
	}
	return missing, owned.SyncFS(l.dir)
}

// stage writes data to a new temporary file for name in the directory d,
// named as package owned names them (so that a sweep removes it if the
// process dies), unsynced, and returns the temporary file's name.
func stage(d *os.File, name string, data []byte) (string, error) {
	var b [8]byte
	for range 100 {
		rand.Read(b[:])
		tmp := owned.TempPrefix(name) + hex.EncodeToString(b[:])
		fd, err := unix.Openat(int(d.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("write %s: %w", filepath.Join(d.Name(), name), err)
		}
		f := os.NewFile(uintptr(fd), tmp)
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			unix.Unlinkat(int(d.Fd()), tmp, 0)
			return "", fmt.Errorf("write %s: %w", filepath.Join(d.Name(), name), err)
		}
		return tmp, nil
	}
	return "", errors.New("too many name collisions")
}

// publishEach publishes as Store writes, with the syncs of directories
// shared: each blob synced, then each blob directory once, then each
// entry written and synced, then each entry directory once. It returns
// the blobs found missing.
func (l *Local) publishEach(ents []*Entry, shas map[string]bool) (map[string]bool, error) {
	missing, err := l.syncBlobs(slices.Collect(maps.Keys(shas)))
	if err != nil {
		return nil, err
	}
	g := errgroup.Group{}
	g.SetLimit(syncWorkers)
	var fps []string
	for _, e := range ents {
		if !lost(e, missing) {
			fps = append(fps, e.Fingerprint)
			g.Go(func() error { return l.writeEntry(e, false) })
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return missing, l.syncDirs("entries", fps)
}

// syncBlobs syncs the blobs shas, then their shard directories. It
// returns the blobs that are missing.
func (l *Local) syncBlobs(shas []string) (map[string]bool, error) {
	var mu sync.Mutex
	missing := map[string]bool{}
	g := errgroup.Group{}
	g.SetLimit(syncWorkers)
	for _, sha := range shas {
		g.Go(func() error {
			f, err := openRegular(l.path(blobKey(sha)))
			if err != nil {
				mu.Lock()
				missing[sha] = true
				mu.Unlock()
				return nil
			}
			defer f.Close()
			return f.Sync()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return missing, l.syncDirs("blobs", shas)
}

// syncDirs syncs each shard directory of kind where a key of keys is.
func (l *Local) syncDirs(kind string, keys []string) error {
	shards := map[string]bool{}
	for _, k := range keys {
		shards[k[:2]] = true
	}
	g := errgroup.Group{}
	g.SetLimit(syncWorkers)
	for s := range shards {
		g.Go(func() error { return owned.SyncDir(filepath.Join(l.dir, "v1", kind, s)) })
	}
	return g.Wait()
}

// checkPaths checks that paths has a path for each file of ent, and none
// for a role ent has no file of.
func checkPaths(ent *Entry, paths map[string]string) error {
	for role := range paths {
		if _, ok := ent.File(role); !ok {
			return fmt.Errorf("store cache entry %s: a path for %s, a role the entry has no file of", ent.Fingerprint, role)
		}
	}
	for _, f := range ent.Files {
		if _, ok := paths[f.Role]; !ok {
			return fmt.Errorf("store cache entry %s: no path for its %s file", ent.Fingerprint, f.Role)
		}
	}
	return nil
}
