package state

import (
	"fmt"
	"slices"
	"sort"

	"github.com/voxform/voxform/owned"
)

// opWritten is the journal record of outputs about to be renamed into place.
const opWritten = "written"

// Written is an output renamed into place for a resource that was not yet
// recorded: a process killed between the two leaves the file there and this
// entry in the state. Its content hash proves that a file at Path is
// voxform's own, so that the next apply may replace it, or, when the
// request is still the one that made it (Fingerprint), record it without
// paying again. An entry is forgotten once its address is recorded or
// removed.
type Written struct {
	Path    string `json:"path"`
	Address string `json:"address"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size,omitempty"`
	Format  string `json:"format,omitempty"`
	// Fingerprint is that of the request whose answer the file is.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// NoteWritten records that outs of addr are about to be renamed into place.
// The record is appended without waiting for its sync: the record of addr
// that follows the rename waits for both. A kill -9 leaves it in the page
// cache for the next process; a power loss may lose it, and then the file
// is refused by the next apply as one voxform did not make, which loses
// nothing.
func (r *Recorder) NoteWritten(addr, fingerprint string, outs []Output) error {
	rec := &record{Op: opWritten}
	for _, o := range outs {
		rec.Written = append(rec.Written, Written{Path: o.Path, Address: addr, SHA256: o.SHA256,
			Size: o.Size, Format: o.Format, Fingerprint: fingerprint})
	}
	_, err := r.write(rec, func() { rec.apply(r.state) })
	return err
}

// forgetWritten drops the Written entries of addrs.
func (f *File) forgetWritten(addrs []string) {
	if len(f.Written) == 0 {
		return
	}
	f.Written = slices.DeleteFunc(f.Written, func(w Written) bool { return slices.Contains(addrs, w.Address) })
	if len(f.Written) == 0 {
		f.Written = nil
	}
}

// addWritten adds entries, replacing any earlier entry for the same path.
func (f *File) addWritten(ws []Written) {
	for _, w := range ws {
		f.Written = slices.DeleteFunc(f.Written, func(o Written) bool { return o.Path == w.Path })
		f.Written = append(f.Written, w)
	}
	sort.Slice(f.Written, func(i, j int) bool { return f.Written[i].Path < f.Written[j].Path })
}

// CheckPaths refuses a resource whose recorded outputs voxform could not
// own (owned.CheckRel): a state file, journal or saved plan naming
// ../victim.txt or an absolute path never reaches a file operation.
func (r *Resource) CheckPaths() error {
	for i, o := range r.Outputs {
		if err := owned.CheckRel(o.Path); err != nil {
			return fmt.Errorf("outputs[%d].path: %w", i, err)
		}
	}
	if r.Details().Redaction != nil && r.Details().Redaction.Unredacted != nil && !IsUnredactedPath(r.Details().Redaction.Unredacted.Path) {
		return fmt.Errorf("redaction.unredacted.path: %q is not a kept transcript's path (%s<hex>.json)", r.Details().Redaction.Unredacted.Path, UnredactedDir)
	}
	return nil
}

// checkEntries refuses a state naming an address that is not one
// (ParseAddress), a path voxform could not own (CheckPaths) or a delivery
// record no apply writes (Delivery.Check), naming the first offender by
// its place in the file, its address escaped.
func (f *File) checkEntries() error {
	if err := f.firstBadResource(); err != nil {
		return err
	}
	for i, w := range f.Written {
		if err := CheckAddress(w.Address); err != nil {
			return fmt.Errorf("written[%d].address %q: %w", i, w.Address, err)
		}
		if err := owned.CheckRel(w.Path); err != nil {
			return fmt.Errorf("written[%d].path: %w", i, err)
		}
	}
	return nil
}

// firstBadResource is checkEntries of the resources. They are checked in
// the map's order, and sorted (100,000 addresses took tens of
// milliseconds) only when one is refused, for the first offender in the
// file's order.
func (f *File) firstBadResource() error {
	bad := false
	for a, r := range f.Resources {
		if checkResource(a, r) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	addrs := make([]string, 0, len(f.Resources))
	for a := range f.Resources {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		if err := checkResource(a, f.Resources[a]); err != nil {
			return err
		}
	}
	return nil
}

// checkResource is checkEntries of the resource r at address a.
func checkResource(a string, r *Resource) error {
	if err := CheckAddress(a); err != nil {
		return fmt.Errorf("resources[%q]: %w", a, err)
	}
	if r == nil {
		return fmt.Errorf("resources[%q]: null, not a resource", a)
	}
	if err := r.Details().Approval.Check(); err != nil {
		return fmt.Errorf("resources[%q].approval.%w", a, err)
	}
	if err := r.CheckPaths(); err != nil {
		return fmt.Errorf("resources[%q].%w", a, err)
	}
	if err := r.checkDeliveries(); err != nil {
		return fmt.Errorf("resources[%q].%w", a, err)
	}
	if err := r.checkOrigin(); err != nil {
		return fmt.Errorf("resources[%q].%w", a, err)
	}
	return nil
}
