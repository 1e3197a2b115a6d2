package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// ListAddresses returns the addresses recorded in b's state, sorted, a
// journal left by a process that died folded in, each address checked as
// Read checks it (ParseAddress). It is "state list". The resources'
// contents are not checked here: a state whose resource Read refuses (an
// unknown field, a path voxform could not own) is listed, and refused by
// the commands that use the resource (plan, show, apply).
//
// The file backend reads only what the list needs: the state file's
// header, written entries and job intents decoded and checked as Read
// does, and the resources' keys, not their contents. Decoding a state of
// 100,000 resources to print their addresses took most of a second of
// CPU and 350 MB, or as much again to key and decode its snapshot. A
// state whose resources are not of the shape voxform writes (a value
// that is not an object) is read whole, for Read's error.
func ListAddresses(ctx context.Context, b Backend) ([]string, error) {
	if l, ok := b.(*Local); ok {
		return l.addresses(ctx)
	}
	f, err := b.Read(ctx)
	if err != nil {
		return nil, err
	}
	return f.Addresses(), nil
}

func (l *Local) addresses(ctx context.Context) ([]string, error) {
	real, err := l.RealStatePath()
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	f, exists, err := skimStateFile(real)
	if err != nil {
		return nil, err
	}
	if f == nil {
		f, err := l.Read(ctx) // for the error that says where
		if err != nil {
			return nil, err
		}
		return f.Addresses(), nil
	}
	if _, err := replayJournal(real+JournalSuffix, f, exists); err != nil {
		return nil, err
	}
	if err := f.checkNotMoved(l.Describe()); err != nil {
		return nil, err
	}
	return f.Addresses(), nil
}

// mapFile maps a file; a variable so that a test can refuse it.
var mapFile = unix.Mmap

// skimStateFile skims the state file at its real path (see
// openStateFile and skimState): an empty state when there is none (exists
// false), nil when it is not of the shape skimState reads.
//
// The file is mapped into memory rather than read: reading 100 MB into a
// new buffer took half a second of CPU, most of it the kernel faulting in
// and zeroing the buffer's pages, where mapping the page cache takes
// milliseconds. Nothing of the mapping outlives the skim (the keys are
// copied). voxform never changes a state file in place (it renames a new
// one over it), so the mapping holds what a read would have; should
// another program cut the file short meanwhile, touching the lost pages
// faults, and the fault is taken as a file not of the shape (read whole
// by the caller) instead of ending the process. A file system that cannot
// map files (some FUSE and network mounts) is read whole likewise.
func skimStateFile(real string) (f *File, exists bool, err error) {
	fh, st, err := openStateFile(real)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyFile(), false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer fh.Close()
	if st.Size == 0 {
		return nil, true, nil
	}
	data, err := mapFile(int(fh.Fd()), 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, true, nil // a file system that cannot map it: read whole
	}
	defer unix.Munmap(data)
	return skimMapped(data), true, nil
}

// skimMapped is skimState of a mapped file, nil when a page of it is gone.
func skimMapped(data []byte) (f *File) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			if _, fault := e.(interface{ Addr() uintptr }); !fault {
				panic(e)
			}
			f = nil
		}
	}()
	f, ok := skimState(data)
	if !ok {
		return nil
	}
	return f
}

// listed stands for every resource of a skimmed state: its content is
// not read.
var listed = &Resource{}

// skimState reads a state file as Read does but for the contents of its
// resources, which are only found to be objects: each resource is listed.
// ok is false when data is not a valid state of this version whose
// entries pass File.checkEntries.
func skimState(data []byte) (*File, bool) {
	rest, members, ok := splitResources(data)
	if !ok {
		return nil, false
	}
	f, ok := decodeRest(rest, len(members))
	if !ok {
		return nil, false
	}
	for _, m := range members {
		if len(m.value) == 0 || m.value[0] != '{' {
			return nil, false
		}
		f.Resources[m.key] = listed
	}
	if f.checkEntries() != nil {
		return nil, false
	}
	return f, true
}
