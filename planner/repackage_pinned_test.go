package planner_test

import (
	"testing"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/planner"
)

// TestRepackageOfPinnedChapterKeepsAsChaptersAre: a package with one
// chapter pinned (keep_approved) and another remade under its fingerprint
// (-replace) gets the Remaster repackage adds; that remaster is of the
// package as its chapters are (asChaptersAre: the pinned chapter by its
// recorded fingerprint), so that apply records the fingerprint the next
// plan computes. It must not carry the declared request, which names the
// pinned chapter's new fingerprint.
func TestRepackageOfPinnedChapterKeepsAsChaptersAre(t *testing.T) {
	const billing, support = `synthesis.menu["billing"]`, `synthesis.menu["support"]`
	p := baseProject()
	withDelivery(deliver.Builtin("telephony"))(p)
	withBook(p)
	st := p.apply(t)
	recordDeliveries(p, st, "enc-1")
	recordBook(t, p, st, "enc-1")
	approve(st, billing, "Ana")
	s := p.synthesis(billing)
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	plan, err := planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: encoderOf("enc-1"),
		Options: planner.Options{Replace: []string{support}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pinned) != 1 || plan.Pinned[0].Address != billing {
		t.Fatalf("pinned %+v", plan.Pinned)
	}
	book := plan.Action("package.book")
	if book == nil || book.Type != planner.Remaster {
		t.Fatalf("actions %v", addresses(plan))
	}
	if got, want := book.Desired.Fingerprint, st.Resources["package.book"].Fingerprint; got != want {
		t.Errorf("the book's remaster is of fingerprint %.12s, want %.12s (the package as its chapters are, as recorded)", got, want)
	}
	// Apply records the remaster as the executor's packageOp does (its
	// fingerprint, its deliveries' fingerprint from it); billing still
	// pinned, the next plan has nothing to do.
	r := *st.Resources["package.book"]
	r.Fingerprint = book.Desired.Fingerprint
	r.Outputs = append(r.Outputs[:0:0], r.Outputs...)
	for i := range r.Outputs {
		dl := *r.Outputs[i].Delivery
		dl.Fingerprint = planner.PackageFingerprint(r.Fingerprint, dl.Source, dl.Encoder)
		r.Outputs[i].Delivery = &dl
	}
	st.Resources["package.book"] = &r
	plan, err = p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action("package.book"); a != nil {
		t.Errorf("after applying that remaster, the next plan remasters the book again: %s %v", a.Type, a.Reasons)
	}
}
