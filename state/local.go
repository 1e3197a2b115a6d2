package state

import (
	"context"
	"crypto/sha256"
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

// File names beside the manifests (owned keeps outputs away from them).
const (
	StateFileName = owned.StateFile
	JournalSuffix = ".journal"
	LockSuffix    = ".lock"
	CacheDirName  = owned.CacheDir
	hashCacheName = "hashes.bin"
	// legacyHashCacheName is the hash cache of earlier versions, read when
	// there is no other.
	legacyHashCacheName = "hashes.json"
	statePermission     = 0o644
)

// Backend stores the state and its lock: Local (files beside the
// manifests) or PG (rows in PostgreSQL, shared by a team). Each method that
// may wait on a server takes the caller's ctx: cancelling it (a Ctrl-C)
// ends the wait at once, with an error that unwraps to ctx's.
type Backend interface {
	// Read returns the state with any unfolded journal applied in memory;
	// it writes nothing and needs no lock. A missing state is an empty File
	// with no lineage and serial 0.
	Read(ctx context.Context) (*File, error)
	// Lock takes the exclusive lock for operation op (plan, apply, ...) or
	// fails at once with a *LockedError naming the holder.
	Lock(ctx context.Context, op string) (Unlocker, error)
	// Open returns the Recorder of a locked state, first folding a journal
	// left by a process that died. ctx bounds the reading of the state,
	// not the Recorder: what was done is recorded after an interrupt too.
	Open(ctx context.Context, lock Unlocker, now func() time.Time) (*Recorder, error)
	// ForceUnlock breaks the lock whose holder has the given ID.
	ForceUnlock(ctx context.Context, id string) error
	// Describe names where the state is, for messages (never a password).
	Describe() string
	// Close releases the backend's connections.
	Close() error
}

// Unlocker is a held lock. Unlock takes no context: it runs after an
// interrupt too, bounded by the backend.
type Unlocker interface {
	Info() LockInfo
	Unlock() error
}

// Local is the file backend: voxform.state.json, its journal and its lock in
// the manifest directory.
//
// The state file may be a symbolic link, so that several manifest
// directories share one state: the lock, the journal and the atomic write's
// temporary file are then beside the real file, so that every directory
// sharing it contends for one lock and a write replaces the real file, never
// the link. A link whose target does not exist yet names where the state
// will be created (its directory must exist); a link to a directory or to
// anything else that is not a regular file is an error.
type Local struct {
	Dir string // the manifest directory
}

// NewLocal returns the file backend of a manifest directory.
func NewLocal(dir string) *Local { return &Local{Dir: dir} }

// Close implements Backend: the file backend holds nothing open.
func (l *Local) Close() error { return nil }

// StatePath is the path of voxform.state.json in the manifest directory,
// which may be a symbolic link (see RealStatePath).
func (l *Local) StatePath() string { return filepath.Join(l.Dir, StateFileName) }

// JournalPath is the path of the journal, beside the real state file. When
// the state file cannot be resolved it is beside StatePath; Read, Lock and
// Open report why.
func (l *Local) JournalPath() string { return l.realOrLink() + JournalSuffix }

// LockPath is the path of the lock file, beside the real state file (see
// JournalPath).
func (l *Local) LockPath() string { return l.realOrLink() + LockSuffix }

func (l *Local) realOrLink() string {
	if p, err := l.RealStatePath(); err == nil {
		return p
	}
	return l.StatePath()
}

// Read implements Backend.
func (l *Local) Read(context.Context) (*File, error) {
	f, _, err := l.read()
	if err != nil {
		return nil, err
	}
	return f, f.checkNotMoved(l.Describe())
}

func (l *Local) read() (*File, journalReplay, error) {
	real, err := l.RealStatePath()
	if err != nil {
		return nil, journalReplay{}, fmt.Errorf("read state: %w", err)
	}
	f, exists, err := l.readStateFile(real)
	if err != nil {
		return nil, journalReplay{}, err
	}
	rep, err := replayJournal(real+JournalSuffix, f, exists)
	if err != nil {
		return nil, rep, err
	}
	return f, rep, nil
}

// MaxStateSize bounds the state file. A state of 100,000 resources takes
// some 100 MB; a larger file, or anything but a regular file, is refused
// before it is read.
const MaxStateSize = 1 << 30

// readStateFile reads the state file at its real path (see
// openStateFile) and decodes it, or takes its decoded snapshot. The file
// is hashed as it is read, so that a snapshot taken never needs the whole
// file in memory; only a file without one is read whole.
func (l *Local) readStateFile(real string) (*File, bool, error) {
	fh, st, err := openStateFile(real)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyFile(), false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(fh, 0, MaxStateSize+1)); err != nil {
		return nil, true, fmt.Errorf("read state: %w", err)
	}
	if f, ok := l.loadSnapshot(snapshotKey([32]byte(h.Sum(nil)), st)); ok {
		return f, true, nil
	}
	data, err := readAtMost(fh, MaxStateSize, "a state file") // from offset 0: the hash read at offsets
	if err != nil {
		return nil, true, fmt.Errorf("read state: %w", err)
	}
	f, err := decodeBytes(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", StateFileName, err)
	}
	if len(f.Resources) >= snapshotMinResources {
		l.saveSnapshot(snapshotKey(sha256.Sum256(data), st), f) // keyed to what was decoded
	}
	return f, true, nil
}

// emptyFile is the state when there is no state file.
func emptyFile() *File {
	return &File{Version: FormatVersion, VoxformVersion: VoxformVersion, Resources: map[string]*Resource{}}
}

// openStateFile opens the state file at its real path: a regular file,
// not a symbolic link (the links to it were resolved by RealStatePath),
// of at most MaxStateSize bytes. A missing file is fs.ErrNotExist.
func openStateFile(real string) (*os.File, *unix.Stat_t, error) {
	fh, err := openOwn(unix.AT_FDCWD, real, real, unix.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read state: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(fh.Fd()), &st); err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("read state: %w", err)
	}
	if st.Size > MaxStateSize {
		fh.Close()
		return nil, nil, fmt.Errorf("read state: %w", &sizeError{path: fh.Name(), limit: MaxStateSize, what: "a state file"})
	}
	return fh, &st, nil
}

// snapshotMinResources is the state size from which a decoded snapshot is
// worth keeping.
const snapshotMinResources = 500

// Open implements Backend. lock must be a lock taken from l.
func (l *Local) Open(_ context.Context, lock Unlocker, now func() time.Time) (*Recorder, error) {
	if fl, ok := lock.(*FileLock); !ok || fl.path != l.LockPath() || !fl.held() {
		return nil, errors.New("open state: the state is not locked")
	}
	f, rep, err := l.read()
	if err != nil {
		return nil, err
	}
	if err := f.checkNotMoved(l.Describe()); err != nil {
		return nil, err
	}
	switch {
	case rep.exists && rep.records > 0 && !rep.stale:
		// A previous process died before folding: fold now.
		f.Serial++
		f.Version, f.VoxformVersion = FormatVersion, VoxformVersion
		if err := l.writeState(f); err != nil {
			return nil, err
		}
		fallthrough
	case rep.exists:
		if err := l.removeJournal(); err != nil {
			return nil, err
		}
	}
	return newRecorder(&journalStore{l: l}, f, now), nil
}

// journalStore is the store of the file backend: records go to the
// journal beside the state file, created at the first record, and are
// folded into the state file at the end.
type journalStore struct {
	l  *Local
	mu sync.Mutex // guards j
	j  *journalWriter
}

func (s *journalStore) write(rec *record, lineage string, serial int64, apply func()) (func() error, error) {
	line, err := encodeRecord(rec)
	if err != nil {
		return nil, err
	}
	j, err := s.journal(lineage, serial)
	if err != nil {
		return nil, err
	}
	seq, err := j.write(line, apply)
	if err != nil {
		return nil, err
	}
	return func() error { return j.wait(seq) }, nil
}

// journal returns the open journal, creating it on the first record.
func (s *journalStore) journal(lineage string, serial int64) (*journalWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		real, err := s.l.RealStatePath()
		if err != nil {
			return nil, fmt.Errorf("create journal: %w", err)
		}
		j, err := createJournal(real+JournalSuffix, lineage, serial)
		if err != nil {
			return nil, err
		}
		s.j = j
	}
	return s.j, nil
}

func (s *journalStore) commit(f *File, changed bool) error {
	s.mu.Lock()
	j := s.j
	s.mu.Unlock()
	if j == nil {
		return nil
	}
	if !changed {
		j.close()
		if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove journal: %w", err)
		}
		return nil
	}
	if err := s.l.writeState(f); err != nil {
		return err
	}
	j.close()
	return s.l.removeJournal()
}

// writeState writes f to the state file and keeps the snapshot of what it
// wrote (see keepSnapshot).
func (l *Local) writeState(f *File) error {
	real, sum, err := l.writeStateHashed(f)
	if err == nil {
		l.keepSnapshot(real, sum, f)
	}
	return err
}

// writeStateHashed writes f to the state file, returning its real path and
// the SHA-256 of what it wrote.
func (l *Local) writeStateHashed(f *File) (string, [32]byte, error) {
	real, err := l.RealStatePath()
	if err != nil {
		return "", [32]byte{}, fmt.Errorf("write state: %w", err)
	}
	h := sha256.New()
	if err := owned.WriteFile(real, statePermission, func(w io.Writer) error { return f.Encode(io.MultiWriter(w, h)) }); err != nil {
		return "", [32]byte{}, err
	}
	return real, [32]byte(h.Sum(nil)), nil
}

// keepSnapshot saves the snapshot of f, just written to real with SHA-256
// sum, keyed to the file as it is now, so that the first read after an
// apply of a large state need not decode its JSON (a plan right after an
// apply of 100,000 read it all again).
func (l *Local) keepSnapshot(real string, sum [32]byte, f *File) {
	var st unix.Stat_t
	if len(f.Resources) < snapshotMinResources || unix.Lstat(real, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	l.saveSnapshot(snapshotKey(sum, &st), f)
}

func (l *Local) removeJournal() error {
	real, err := l.RealStatePath()
	if err != nil {
		return fmt.Errorf("remove journal: %w", err)
	}
	if err := os.Remove(real + JournalSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove journal: %w", err)
	}
	return owned.SyncDir(filepath.Dir(real))
}

// maxStateLinks bounds the symbolic links followed to the real state file,
// as the kernel bounds a path's (ELOOP).
const maxStateLinks = 40

// RealStatePath returns the path of the real state file: StatePath with
// every symbolic link resolved, in its directories and in the file itself.
// A missing state file, or a link to a file that does not exist yet,
// resolves to where the state will be created; that directory must exist.
// A state file that is a directory, or a link to one or to anything else
// that is not a regular file, is an error.
func (l *Local) RealStatePath() (string, error) {
	p := l.StatePath()
	for links := 0; ; links++ {
		// Resolve the directory first, so that a relative link target
		// and its ".." are taken from where the link really is. The
		// target is split as it is written: cleaning "link/../x" to "x"
		// would skip where link leads.
		dirPart, base := ".", p
		if i := strings.LastIndexByte(p, filepath.Separator); i >= 0 {
			dirPart, base = p[:i+1], p[i+1:]
		}
		dir, err := filepath.EvalSymlinks(dirPart)
		if err != nil {
			return "", fmt.Errorf("resolve state file %s: %w", l.StatePath(), err)
		}
		p = filepath.Join(dir, base)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return p, nil
		case err != nil:
			return "", fmt.Errorf("resolve state file %s: %w", l.StatePath(), err)
		case fi.Mode().IsRegular():
			return p, nil
		case fi.Mode()&os.ModeSymlink == 0:
			return "", fmt.Errorf("state file %s: %s is %s, not a regular file", l.StatePath(), p, fileKind(fi.Mode()))
		case links == maxStateLinks:
			return "", fmt.Errorf("resolve state file %s: more than %d symbolic links", l.StatePath(), maxStateLinks)
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("resolve state file %s: %w", l.StatePath(), err)
		}
		if !filepath.IsAbs(target) {
			target = dir + string(filepath.Separator) + target
		}
		p = target
	}
}

// fileKind names what a file that is not a regular file or a link is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
