package state

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// File names beside the manifests.
const (
	StateFileName   = "voxform.state.json"
	JournalSuffix   = ".journal"
	LockSuffix      = ".lock"
	CacheDirName    = ".voxform"
	hashCacheName   = "hashes.json"
	statePermission = 0o644
)

// Backend stores the state and its lock. Local (files beside the manifests)
// is the only implementation; a shared PostgreSQL backend (SPEC section 12)
// will implement the same methods.
type Backend interface {
	// Read returns the state with any unfolded journal applied in memory;
	// it writes nothing and needs no lock. A missing state is an empty File
	// with no lineage and serial 0.
	Read() (*File, error)
	// Lock takes the exclusive lock for operation op (plan, apply, ...) or
	// fails at once with a *LockedError naming the holder.
	Lock(op string) (Unlocker, error)
	// Open returns the Recorder of a locked state, first folding a journal
	// left by a process that died.
	Open(lock Unlocker, now func() time.Time) (*Recorder, error)
	// ForceUnlock breaks the lock whose holder has the given ID.
	ForceUnlock(id string) error
}

// Unlocker is a held lock.
type Unlocker interface {
	Info() LockInfo
	Unlock() error
}

// Local is the file backend: voxform.state.json, its journal and its lock in
// the manifest directory.
type Local struct {
	Dir string // the manifest directory
}

// NewLocal returns the file backend of a manifest directory.
func NewLocal(dir string) *Local { return &Local{Dir: dir} }

// StatePath is the path of voxform.state.json.
func (l *Local) StatePath() string { return filepath.Join(l.Dir, StateFileName) }

// JournalPath is the path of the journal.
func (l *Local) JournalPath() string { return l.StatePath() + JournalSuffix }

// LockPath is the path of the lock file.
func (l *Local) LockPath() string { return l.StatePath() + LockSuffix }

// Read implements Backend.
func (l *Local) Read() (*File, error) {
	f, _, err := l.read()
	return f, err
}

func (l *Local) read() (*File, journalReplay, error) {
	f, exists, err := l.readStateFile()
	if err != nil {
		return nil, journalReplay{}, err
	}
	rep, err := replayJournal(l.JournalPath(), f, exists)
	if err != nil {
		return nil, rep, err
	}
	return f, rep, nil
}

func (l *Local) readStateFile() (*File, bool, error) {
	data, err := os.ReadFile(l.StatePath())
	if errors.Is(err, os.ErrNotExist) {
		return &File{Version: FormatVersion, VoxformVersion: VoxformVersion, Resources: map[string]*Resource{}}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read state: %w", err)
	}
	sum := sha256.Sum256(data)
	if f, ok := l.loadSnapshot(sum); ok {
		return f, true, nil
	}
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", StateFileName, err)
	}
	if len(f.Resources) >= snapshotMinResources {
		l.saveSnapshot(sum, f)
	}
	return f, true, nil
}

// snapshotMinResources is the state size from which a decoded snapshot is
// worth keeping.
const snapshotMinResources = 500

// Open implements Backend. lock must be a lock taken from l.
func (l *Local) Open(lock Unlocker, now func() time.Time) (*Recorder, error) {
	if fl, ok := lock.(*FileLock); !ok || fl.path != l.LockPath() || !fl.held() {
		return nil, errors.New("open state: the state is not locked")
	}
	f, rep, err := l.read()
	if err != nil {
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
	return newRecorder(l, f, now), nil
}

func (l *Local) createJournal(lineage string, serial int64) (*journalWriter, error) {
	return createJournal(l.JournalPath(), lineage, serial)
}

func (l *Local) fold(f *File, j *journalWriter) error {
	if err := l.writeState(f); err != nil {
		return err
	}
	j.close()
	return l.removeJournal()
}

func (l *Local) writeState(f *File) error {
	b, err := MarshalSorted(f)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return WriteFileAtomic(l.StatePath(), statePermission, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func (l *Local) removeJournal() error {
	if err := os.Remove(l.JournalPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove journal: %w", err)
	}
	return SyncDir(l.Dir)
}
