package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	data, _, err := readStateBytes(real)
	exists := !errors.Is(err, fs.ErrNotExist)
	var f *File
	switch {
	case !exists:
		f = emptyFile()
	case err != nil:
		return nil, err
	default:
		var ok bool
		if f, ok = skimState(data); !ok {
			f, err := l.Read(ctx) // for the error that says where
			if err != nil {
				return nil, err
			}
			return f.Addresses(), nil
		}
	}
	if _, err := replayJournal(real+JournalSuffix, f, exists); err != nil {
		return nil, err
	}
	if err := f.checkNotMoved(l.Describe()); err != nil {
		return nil, err
	}
	return f.Addresses(), nil
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
