package state

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of an approval's free-text fields (voxform approve -by, -note).
const (
	// MaxApprovalBy bounds who approved, in bytes.
	MaxApprovalBy = 256
	// MaxApprovalNote bounds an approval's note, in bytes.
	MaxApprovalNote = 1024
)

// Approval records that someone signed off the outputs of a resource as
// they were: Digest is OutputsDigest of the recorded outputs at the time.
// It holds only while the recorded outputs are those bytes (Holds): an
// apply that changes them keeps the record, which then no longer holds,
// so that what was approved and by whom stays visible.
type Approval struct {
	// Digest is OutputsDigest of the outputs approved.
	Digest string `json:"digest"`
	// By is who approved: a name, an e-mail address, or both.
	By string `json:"by"`
	// At is when, in UTC.
	At time.Time `json:"at"`
	// Note is free text: a ticket, what was checked.
	Note string `json:"note,omitempty"`
}

// Holds reports whether a, the approval recorded for r, is of the outputs
// r records now. A nil approval holds nothing; neither does one of a
// resource that is not complete or records no output.
func (a *Approval) Holds(r *Resource) bool {
	if a == nil || r == nil || r.Status != StatusComplete || len(r.Outputs) == 0 {
		return false
	}
	return a.Digest == OutputsDigest(r.Outputs)
}

// Approved reports whether r carries an approval that holds.
func (r *Resource) Approved() bool { return r.Details().Approval.Holds(r) }

// Check refuses an approval no voxform approve writes: a digest that is
// not a SHA-256, no time, or By or Note past their bound or holding a
// character that is not printable (CheckText). A nil Approval is fine.
func (a *Approval) Check() error {
	if a == nil {
		return nil
	}
	if !IsHexHash(a.Digest) {
		return fmt.Errorf("digest: %q is not a SHA-256", a.Digest)
	}
	if a.At.IsZero() {
		return fmt.Errorf("at: no time")
	}
	if err := CheckText("by", a.By, MaxApprovalBy); err != nil {
		return err
	}
	if strings.TrimSpace(a.By) == "" {
		return fmt.Errorf("by: empty")
	}
	return CheckText("note", a.Note, MaxApprovalNote)
}

// CheckText refuses free text a person gave that a state cannot show
// safely: more than limit bytes, not UTF-8, or holding a character that
// is not printable (a control character, an escape sequence, a
// bidirectional override). Each error names the field and the limit.
func CheckText(field, s string, limit int) error {
	if len(s) > limit {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d", field, len(s), limit)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not UTF-8", field)
	}
	for i, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%s: character %U at byte %d is not printable", field, r, i)
		}
	}
	return nil
}

// ApprovalStatus says in words where r stands: "approved by X at T",
// "approval lost: outputs changed since X approved them at T", or
// "not approved".
func ApprovalStatus(r *Resource) string {
	a := r.Details().Approval
	switch {
	case a == nil:
		return "not approved"
	case a.Holds(r):
		return fmt.Sprintf("approved by %s at %s", a.By, a.At.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("approval lost: outputs changed since %s approved them at %s", a.By, a.At.UTC().Format(time.RFC3339))
}

// SetApprovals records, in one durable record, the approval of each
// address given (nil revokes it): each recorded resource is copied with
// its Approval replaced. An address not in the state is an error, and
// nothing is recorded.
func (r *Recorder) SetApprovals(approvals map[string]*Approval) error {
	entries := make(map[string]*Resource, len(approvals))
	r.mu.Lock()
	for addr, a := range approvals {
		prior, ok := r.state.Resources[addr]
		if !ok {
			r.mu.Unlock()
			return fmt.Errorf("record approval: %s is not in the state", addr)
		}
		c := *prior
		c.Edit().Approval = a
		entries[addr] = &c
	}
	r.mu.Unlock()
	for _, res := range entries {
		if err := res.Details().Approval.Check(); err != nil {
			return fmt.Errorf("record approval: approval.%w", err)
		}
	}
	rec := &record{Op: opPut, Resources: entries}
	return r.append(rec, func() { rec.apply(r.state) })
}

// keepApproval carries the approval recorded at each address of entries
// over to the new record, when the new one has none: it holds again only
// if the new outputs are the bytes approved (a take put back, an output
// restored), and otherwise shows that it was lost.
func (r *Recorder) keepApproval(entries map[string]*Resource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for addr, res := range entries {
		if prior, ok := r.state.Resources[addr]; ok && res.Details().Approval == nil && prior != res {
			res.Edit().Approval = prior.Details().Approval
		}
	}
}
