package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/internal/clock"
	"github.com/voxform/voxform/owned"
)

// LockInfo describes the holder of the state lock. It is written as JSON into
// the lock file so that a second process can say who holds it.
type LockInfo struct {
	ID        string    `json:"id"`
	Operation string    `json:"operation"`
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	Who       string    `json:"who"`
	Version   string    `json:"voxform_version"`
	Created   time.Time `json:"created"`
}

// LockedError reports that another process holds the lock.
type LockedError struct {
	// Path is the lock file, or the pg backend's Describe.
	Path string
	// Info is the holder's information; zero if it could not be read.
	Info LockInfo
	// Note adds what is known of the holder's state (pg: its session is
	// gone and its lease ends at a given time).
	Note string
	// Gone says the holder's session is gone (pg): the lock is free at
	// Until, when its lease ends, unless the holder comes back.
	Gone  bool
	Until time.Time
}

func (e *LockedError) Error() string {
	i := e.Info
	s := fmt.Sprintf("state is locked by another process (%s)", e.Path)
	if i.PID != 0 {
		s = fmt.Sprintf("state is locked by pid %d on %s (operation %s, by %s, since %s, lock id %s)",
			i.PID, i.Host, i.Operation, i.Who, i.Created.UTC().Format(time.RFC3339), i.ID)
	}
	if e.Note != "" {
		s += ": " + e.Note
	}
	return s
}

// LockWithin takes b's lock for op, retrying for up to wait while another
// process holds it (-lock-timeout); with wait 0 it fails at once. A lock
// whose holder is gone (its lease not yet over) is waited for in any
// case, since it is free within the lease: notify, when set, is told so
// once. The error after the wait is the holder's *LockedError; cancelling
// ctx ends the wait at once, with ctx's error.
func LockWithin(ctx context.Context, b Backend, op string, wait time.Duration, notify func(string)) (Unlocker, error) {
	deadline := time.Now().Add(wait)
	told := false
	for delay := 20 * time.Millisecond; ; delay = min(delay*2, time.Second) {
		lk, err := b.Lock(ctx, op)
		var le *LockedError
		if !errors.As(err, &le) {
			return lk, err
		}
		until := deadline
		if le.Gone && le.Until.Add(time.Second).After(until) {
			until = le.Until.Add(time.Second)
			if notify != nil && !told {
				notify(fmt.Sprintf("the state lock's holder (pid %d on %s, %s) is gone; waiting for its lease to end at %s",
					le.Info.PID, le.Info.Host, le.Info.Operation, le.Until.UTC().Format(time.RFC3339)))
				told = true
			}
		}
		if !time.Now().Before(until) {
			return lk, err
		}
		if clock.Sleep(ctx, min(delay, time.Until(until))) != nil {
			return nil, fmt.Errorf("lock state: %w (waiting for %v)", ctx.Err(), err)
		}
	}
}

// FileLock is a held flock on voxform.state.json.lock.
type FileLock struct {
	path string
	f    *os.File
	info LockInfo
}

// Lock implements Backend: it takes an exclusive, non-blocking flock and
// writes the holder information into the lock file. The lock file is beside
// the real state file, so that manifest directories sharing one state
// through symbolic links contend for one lock.
//
// The lock file is opened without following a symbolic link and must be a
// regular file with no other name (a hard link): its content is replaced,
// and a link would let a repository point it at a file outside the project.
// Once the lock is held, temporary files of the state left by a process
// that was killed while writing it are removed.
func (l *Local) Lock(_ context.Context, op string) (Unlocker, error) {
	real, err := l.RealStatePath()
	if err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	path := real + LockSuffix
	for attempt := 0; ; attempt++ {
		f, err := openLockFile(path)
		if err != nil {
			return nil, fmt.Errorf("lock state: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if errors.Is(err, unix.EWOULDBLOCK) {
			info := holderInfo(f)
			f.Close()
			return nil, &LockedError{Path: path, Info: info}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock state: %w", err)
		}
		// force-unlock may have unlinked the file we opened: then our
		// flock guards nothing. Retry on the current file.
		if !sameFile(f, path) {
			f.Close()
			if attempt > 10 {
				return nil, errors.New("lock state: the lock file keeps being replaced")
			}
			continue
		}
		fl := &FileLock{path: path, f: f, info: newLockInfo(op)}
		if err := fl.writeInfo(); err != nil {
			fl.Unlock()
			return nil, err
		}
		owned.SweepTemps(filepath.Dir(real), filepath.Base(real))
		return fl, nil
	}
}

// openLockFile opens or creates the lock file: a regular file, not a
// symbolic link, with no other name.
func openLockFile(path string) (*os.File, error) {
	f, err := openOwn(unix.AT_FDCWD, path, path, unix.O_RDWR|unix.O_CREAT, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		f.Close()
		return nil, fmt.Errorf("%s has %d names (hard links); voxform keeps its own files there (a copy made with cp -l shares it: delete this lock file, which holds only who locked the state, and run again)", path, st.Nlink)
	}
	return f, nil
}

// sameFile reports whether f is still the file at path (not a link to it).
func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func newLockInfo(op string) LockInfo {
	host, _ := os.Hostname()
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	return LockInfo{
		ID:        NewLineage(),
		Operation: op,
		PID:       os.Getpid(),
		Host:      host,
		Who:       who,
		Version:   VoxformVersion,
		Created:   time.Now().UTC(),
	}
}

func (fl *FileLock) writeInfo() error {
	b, err := json.MarshalIndent(fl.info, "", "  ")
	if err != nil {
		return err
	}
	if err := fl.f.Truncate(0); err != nil {
		return fmt.Errorf("lock state: %w", err)
	}
	if _, err := fl.f.WriteAt(append(b, '\n'), 0); err != nil {
		return fmt.Errorf("lock state: %w", err)
	}
	return nil
}

// holderInfo reads the holder information from the open lock file,
// allowing the holder a moment to write it if it has only just taken the
// lock.
func holderInfo(f *os.File) LockInfo {
	for i := 0; ; i++ {
		info, err := readLockInfo(f)
		if (err == nil && info.PID != 0) || i == 20 {
			return info
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// maxLockInfo bounds what is read of a lock file's holder information.
const maxLockInfo = 64 << 10

func readLockInfo(f *os.File) (LockInfo, error) {
	var info LockInfo
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxLockInfo))
	if err != nil {
		return info, err
	}
	err = json.Unmarshal(b, &info)
	return info, err
}

// Info returns the holder information written into the lock file.
func (fl *FileLock) Info() LockInfo { return fl.info }

func (fl *FileLock) held() bool { return fl.f != nil }

// Unlock clears the holder information and releases the flock. The lock file
// stays: removing it would let a waiting process lock an unlinked inode.
func (fl *FileLock) Unlock() error {
	if fl.f == nil {
		return nil
	}
	fl.f.Truncate(0)
	err := unix.Flock(int(fl.f.Fd()), unix.LOCK_UN)
	cerr := fl.f.Close()
	fl.f = nil
	if err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unlock state: %w", err)
	}
	return nil
}

// ErrNotLocked is returned by ForceUnlock when nobody holds the lock.
var ErrNotLocked = errors.New("state is not locked")

// ForceUnlock implements Backend. An flock dies with its process, so a lock
// is only ever held by a live (perhaps hung) process, or one on another host
// sharing the directory. ForceUnlock checks that id is the holder's lock id
// and unlinks the lock file, so that the next process locks a new file; the
// old holder is not stopped and must not be left running.
func (l *Local) ForceUnlock(ctx context.Context, id string) error {
	lk, err := l.Lock(ctx, "force-unlock")
	if err == nil {
		lk.Unlock()
		return ErrNotLocked
	}
	var le *LockedError
	if !errors.As(err, &le) {
		return err
	}
	if le.Info.ID == "" || le.Info.ID != id {
		return fmt.Errorf("force-unlock: lock id %q does not match the holder's (%s)", id, le.Error())
	}
	if err := os.Remove(le.Path); err != nil {
		return fmt.Errorf("force-unlock: %w", err)
	}
	return owned.SyncDir(filepath.Dir(le.Path))
}
