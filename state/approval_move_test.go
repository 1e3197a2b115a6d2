package state

import (
	"strings"
	"testing"
	"time"
)

// TestApprovalMoved: a move re-bases an approval that held on the moved
// paths when the bytes are the same; other bytes, or an approval that
// did not hold, keep it as it was (not holding).
func TestApprovalMoved(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	before := &Resource{Status: StatusComplete, Outputs: []Output{{Path: "build/a.wav", SHA256: sha}}}
	a := &Approval{Digest: OutputsDigest(before.Outputs), By: "Ana", At: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	before.Edit().Approval = a
	moved := &Resource{Status: StatusComplete, Outputs: []Output{{Path: "build/menu/a.wav", SHA256: sha}}}
	moved.Edit().Approval = a.Moved(before, moved)
	if !moved.Approved() || moved.Details().Approval.By != "Ana" || !moved.Details().Approval.At.Equal(a.At) {
		t.Errorf("a pure move: %+v holds %v", moved.Details().Approval, moved.Approved())
	}
	other := &Resource{Status: StatusComplete, Outputs: []Output{{Path: "build/menu/a.wav", SHA256: "cd" + sha[2:]}}}
	if got := a.Moved(before, other); got != a {
		t.Errorf("other bytes re-based the approval: %+v", got)
	}
	lost := *before
	lost.Outputs = []Output{{Path: "build/a.wav", SHA256: "cd" + sha[2:]}}
	if got := a.Moved(&lost, moved); got != a {
		t.Errorf("an approval that did not hold was re-based: %+v", got)
	}
}
