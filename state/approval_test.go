package state

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func approvalOf(r *Resource, by string) *Approval {
	return &Approval{Digest: OutputsDigest(r.Outputs), By: by, At: fixedNow(), Note: "brand review"}
}

func TestOutputsDigestIgnoresOrderAndDeliveries(t *testing.T) {
	a := []Output{{Path: "a.wav", SHA256: "11"}, {Path: "a.json", Format: "cues", SHA256: "22"}}
	b := []Output{a[1], a[0], {Path: "a.mp3", SHA256: "33", Delivery: &Delivery{Profile: "ivr"}}}
	if OutputsDigest(a) != OutputsDigest(b) {
		t.Fatal("the digest depends on the order of the outputs or on a delivered one")
	}
	c := []Output{{Path: "a.wav", SHA256: "12"}, a[1]}
	if OutputsDigest(a) == OutputsDigest(c) {
		t.Fatal("the digest does not change with an output's bytes")
	}
	d := []Output{{Path: "b.wav", SHA256: "11"}, a[1]}
	if OutputsDigest(a) == OutputsDigest(d) {
		t.Fatal("the digest does not change with an output's path")
	}
}

func TestApprovalHoldsOnlyForTheBytesApproved(t *testing.T) {
	r := sampleResource("a")
	r.Edit().Approval = approvalOf(r, "Ana")
	if !r.Approved() {
		t.Fatal("a fresh approval does not hold")
	}
	changed := *r
	changed.Outputs = []Output{{Path: "build/a.wav", SHA256: "ee", Size: 10}}
	if changed.Approved() {
		t.Fatal("an approval holds for outputs that changed")
	}
	if got := ApprovalStatus(&changed); !strings.HasPrefix(got, "approval lost: outputs changed") {
		t.Fatalf("status %q", got)
	}
}

func TestApprovalCheckedOnRead(t *testing.T) {
	for name, a := range map[string]Approval{
		"control in by": {Digest: strings.Repeat("a", 64), By: "Ana\x1b[2J", At: fixedNow()},
		"long note":     {Digest: strings.Repeat("a", 64), By: "Ana", At: fixedNow(), Note: strings.Repeat("n", MaxApprovalNote+1)},
		"not a digest":  {Digest: "zz", By: "Ana", At: fixedNow()},
		"no time":       {Digest: strings.Repeat("a", 64), By: "Ana"},
		"nobody":        {Digest: strings.Repeat("a", 64), By: " ", At: fixedNow()},
	} {
		t.Run(name, func(t *testing.T) {
			f := New()
			r := sampleResource("a")
			r.Edit().Approval = &a
			f.Resources["synthesis.a"] = r
			var buf bytes.Buffer
			if err := f.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			_, err := Decode(&buf)
			if err == nil || !strings.Contains(err.Error(), "approval.") {
				t.Fatalf("decoded a state with approval %+v: %v", a, err)
			}
		})
	}
}

func TestRecorderKeepsApprovalAcrossRecordsAndRevokes(t *testing.T) {
	dir := t.TempDir()
	b, lk, rec := openLocked(t, dir)
	r := sampleResource("a")
	if err := rec.Record("synthesis.a", r); err != nil {
		t.Fatal(err)
	}
	ap := approvalOf(r, "Ana <ana@example.com>")
	if err := rec.SetApprovals(map[string]*Approval{"synthesis.a": ap}); err != nil {
		t.Fatal(err)
	}
	if err := rec.SetApprovals(map[string]*Approval{"synthesis.b": ap}); err == nil {
		t.Fatal("approved an address not in the state")
	}
	// A replace records new outputs: the approval stays, and no longer holds.
	next := sampleResource("b")
	next.Outputs = []Output{{Path: "build/a.wav", SHA256: "ee", Size: 11}}
	if err := rec.Record("synthesis.a", next); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	st, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := st.Resources["synthesis.a"]
	if got.Details().Approval == nil || got.Details().Approval.By != "Ana <ana@example.com>" || !got.Details().Approval.At.Equal(fixedNow()) {
		t.Fatalf("approval after a replace: %+v", got.Details().Approval)
	}
	if got.Approved() {
		t.Fatal("the approval holds for the replaced outputs")
	}
	// The approved bytes put back: it holds again.
	_, lk, rec = openLocked(t, dir)
	if err := rec.Record("synthesis.a", sampleResource("a")); err != nil {
		t.Fatal(err)
	}
	if res, _ := rec.Get("synthesis.a"); !res.Approved() {
		t.Fatal("the approval does not hold for the approved bytes put back")
	}
	if err := rec.SetApprovals(map[string]*Approval{"synthesis.a": nil}); err != nil {
		t.Fatal(err)
	}
	if res, _ := rec.Get("synthesis.a"); res.Details().Approval != nil {
		t.Fatal("revoked approval still recorded")
	}
	rec.Close()
	lk.Unlock()
}

// TestPackageDigestIsOfItsBooks: a resource whose outputs are all
// delivered ones (a package) is approved for its books' bytes, so an
// approval of it is lost when a book changes.
func TestPackageDigestIsOfItsBooks(t *testing.T) {
	d := &Delivery{Profile: "acx"}
	a := []Output{{Path: "build/book.mp3", Format: "deliver:mp3", SHA256: "aa", Delivery: d}}
	b := []Output{{Path: "build/book.mp3", Format: "deliver:mp3", SHA256: "bb", Delivery: d}}
	if OutputsDigest(a) == OutputsDigest(b) {
		t.Error("a package's approval holds whatever its books hold")
	}
	if OutputsDigest(a) == OutputsDigest(nil) {
		t.Error("a package's digest is that of nothing")
	}
}
