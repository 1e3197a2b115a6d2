package planner_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// approve records an approval of addr's recorded outputs, as voxform
// approve does.
func approve(st *state.File, addr, by string) {
	r := *st.Resources[addr]
	r.Edit().Approval = &state.Approval{Digest: state.OutputsDigest(r.Outputs), By: by, At: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	st.Resources[addr] = &r
}

// TestKeepApprovedPins: with keep_approved, a replace of a resource whose
// approval holds is a no-op listed as pinned with why the fingerprint
// changed; without an approval (or with -replace naming it, or without
// keep_approved) it is replaced, and a replace of an approved resource
// says the approval will no longer hold.
func TestKeepApprovedPins(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	approve(st, `synthesis.menu["billing"]`, "Ana")
	approve(st, `synthesis.menu["support"]`, "Ana")
	for _, s := range p.m.Syntheses {
		if s.Name == "menu" {
			s.VoiceName = "Deepak"
			s.Edit().Lifecycle.KeepApproved = s.Key != "support"
		}
	}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pinned) != 1 || plan.Pinned[0].Address != `synthesis.menu["billing"]` {
		t.Fatalf("pinned: %+v", plan.Pinned)
	}
	pin := plan.Pinned[0]
	if !strings.Contains(pin.Reason(), "approved by Ana at 2026-11-27T09:00:00Z") || !strings.Contains(pin.Reason(), "voice Kaveri -> Deepak") {
		t.Errorf("pinned reason %q", pin.Reason())
	}
	if a := plan.Action(`synthesis.menu["billing"]`); a != nil {
		t.Errorf("a pinned resource has an action: %s", a.Type)
	}
	if s := plan.Summary(); s.Replace != 2 || s.Pinned != 1 || s.NoOp != len(p.desired(t))-3 {
		t.Errorf("summary %+v", s)
	}
	support := plan.Action(`synthesis.menu["support"]`)
	if support == nil || support.Type != planner.Replace || !strings.Contains(strings.Join(support.Reasons, "; "), "approval by Ana of 2026-11-27T09:00:00Z will no longer hold") {
		t.Errorf("support (approved, not keep_approved): %+v", support)
	}
	if a := plan.Action(`synthesis.menu["sales"]`); a == nil || a.Type != planner.Replace {
		t.Errorf("sales (not approved) is not replaced: %+v", a)
	}

	plan, err = p.plan(t, st, planner.Options{Replace: []string{`synthesis.menu["billing"]`}})
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action(`synthesis.menu["billing"]`); a == nil || a.Type != planner.Replace || len(plan.Pinned) != 0 {
		t.Errorf("-replace of a pinned resource: %+v, pinned %+v", a, plan.Pinned)
	}

	// The approved output deleted: still pinned, and the plan says so.
	delete(p.fs, "build/ivr/menu/billing.wav")
	plan, err = p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pinned) != 1 || !strings.Contains(plan.Pinned[0].Reason(), "missing or modified: build/ivr/menu/billing.wav") {
		t.Errorf("pinned with its output gone: %+v", plan.Pinned)
	}
}

// TestPreventDestroy: a plan deleting a resource whose lifecycle says
// prevent_destroy is refused, whether the manifest declares it (destroy)
// or only the state recorded it (removed from the manifest).
func TestPreventDestroy(t *testing.T) {
	p := baseProject()
	s := p.synthesis("synthesis.welcome")
	s.Edit().Lifecycle.PreventDestroy = true
	s.Fields = map[string]manifest.Pos{"lifecycle.prevent_destroy": {File: "voxform.yaml", Line: 7, Col: 20}}
	st := p.apply(t)
	_, err := p.plan(t, st, planner.Options{Destroy: true})
	if !errors.Is(err, planner.ErrPreventDestroy) || !strings.Contains(err.Error(), "voxform.yaml:7:20: synthesis.welcome") {
		t.Fatalf("destroy of a prevent_destroy resource: %v", err)
	}
	r := *st.Resources["synthesis.welcome"]
	r.PreventDestroy = true
	st.Resources["synthesis.welcome"] = &r
	p.m.Syntheses = p.m.Syntheses[1:] // welcome removed from the manifest
	_, err = p.plan(t, st, planner.Options{})
	if !errors.Is(err, planner.ErrPreventDestroy) || !strings.Contains(err.Error(), "synthesis.welcome (recorded in the state") {
		t.Fatalf("removing a resource recorded prevent_destroy: %v", err)
	}
	r.PreventDestroy = false
	if _, err := p.plan(t, st, planner.Options{}); err != nil {
		t.Fatalf("removing a resource without prevent_destroy: %v", err)
	}
}

// TestPinKeepsOnlyTheDeclaredFiles: a pin keeps the approved files where
// they are declared; a change of output path replaces the resource (the
// pin cannot stand for a file declared elsewhere).
func TestPinKeepsOnlyTheDeclaredFiles(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	approve(st, `synthesis.menu["billing"]`, "Ana")
	s := p.synthesis(`synthesis.menu["billing"]`)
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	s.Output = "build/ivr/menu/billing-v2.wav"
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action(`synthesis.menu["billing"]`); a == nil || a.Type != planner.Replace || len(plan.Pinned) != 0 {
		t.Fatalf("a moved output was pinned: %+v, pinned %+v", a, plan.Pinned)
	}
}

// TestPreventDestroyRefusesReplace: a replace destroys the object, so a
// plan replacing a prevent_destroy resource is refused, whether its
// request changed or -replace names it, with the lifecycle line; a pinned
// one (keep_approved, approval holding) is not replaced and passes.
func TestPreventDestroyRefusesReplace(t *testing.T) {
	p := baseProject()
	s := p.synthesis("synthesis.welcome")
	s.Edit().Lifecycle.PreventDestroy = true
	s.Fields = map[string]manifest.Pos{"lifecycle.prevent_destroy": {File: "voxform.yaml", Line: 7, Col: 20}}
	st := p.apply(t)
	_, err := p.plan(t, st, planner.Options{Replace: []string{"synthesis.welcome"}})
	if !errors.Is(err, planner.ErrPreventDestroy) || !strings.Contains(err.Error(), "voxform.yaml:7:20: synthesis.welcome") ||
		!strings.Contains(err.Error(), "replace") {
		t.Fatalf("-replace of a prevent_destroy resource: %v", err)
	}
	s.VoiceName = "Deepak"
	_, err = p.plan(t, st, planner.Options{})
	if !errors.Is(err, planner.ErrPreventDestroy) || !strings.Contains(err.Error(), "voxform.yaml:7:20: synthesis.welcome") {
		t.Fatalf("a changed request of a prevent_destroy resource: %v", err)
	}
	approve(st, "synthesis.welcome", "Ana")
	s.Edit().Lifecycle.KeepApproved = true
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil || len(plan.Pinned) != 1 {
		t.Fatalf("a pinned prevent_destroy resource: %v, pinned %+v", err, plan)
	}
	s.Edit().Lifecycle.PreventDestroy = false
	if _, err := p.plan(t, st, planner.Options{Replace: []string{"synthesis.welcome"}}); err != nil {
		t.Fatalf("-replace without prevent_destroy: %v", err)
	}
}

// TestPinnedRestoresApprovedBytes: a pinned resource whose output is
// missing is put back free from the cache entry of its recorded
// fingerprint when that entry holds the recorded (approved) bytes: a
// restore of the recorded request, not a synthesis of the new one. When
// the cache does not hold them, it stays pinned and the plan says so.
func TestPinnedRestoresApprovedBytes(t *testing.T) {
	const billing = `synthesis.menu["billing"]`
	p := baseProject()
	st := p.apply(t)
	approve(st, billing, "Ana")
	s := p.synthesis(billing)
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	rec := st.Resources[billing]
	delete(p.fs, rec.Outputs[0].Path) // a fresh clone: the outputs are not committed
	for _, tc := range []struct {
		name    string
		files   map[string]planner.CachedFile
		restore bool
	}{
		{name: "the approved bytes", restore: true, files: map[string]planner.CachedFile{"audio": {SHA256: rec.Outputs[0].SHA256, Size: rec.Outputs[0].Size}}},
		{name: "other bytes", files: map[string]planner.CachedFile{"audio": {SHA256: strings.Repeat("0f", 32), Size: rec.Outputs[0].Size}}},
		{name: "not cached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Options: planner.Options{Cache: planner.CacheOn}}
			in.Cached = func([]string) (map[string]string, error) { return nil, nil }
			in.CachedFiles = func(fps []string) (map[string]planner.CachedEntry, error) {
				if tc.files == nil {
					return nil, nil
				}
				return map[string]planner.CachedEntry{rec.Fingerprint: {From: "local", Files: tc.files, Kind: rec.Kind}}, nil
			}
			plan, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			a := plan.Action(billing)
			if len(plan.Pinned) != 1 || plan.Pinned[0].Address != billing {
				t.Fatalf("pinned %+v", plan.Pinned)
			}
			reason := plan.Pinned[0].Reason()
			if !tc.restore {
				if a != nil || !strings.Contains(reason, "not repaired while pinned") {
					t.Fatalf("not restorable: action %+v, reason %q", a, reason)
				}
				return
			}
			if a == nil || a.Type != planner.Restore || !a.Cost.IsZero() || a.Desired.Fingerprint != rec.Fingerprint || !a.KeepsRecord() {
				t.Fatalf("want a free restore of the recorded fingerprint: %+v", a)
			}
			if !strings.Contains(reason, "put back from the cache") {
				t.Errorf("pinned reason %q", reason)
			}
			if s := plan.Summary(); s.Restore != 1 || s.Replace != 0 || !plan.Cost.IsZero() {
				t.Errorf("summary %+v, cost %+v", s, plan.Cost)
			}
		})
	}
}

// TestPinnedRemastersDeliveries: a pinned resource's delivered outputs
// are planned as an unchanged resource's: remastered free from the
// pinned audio when a delivered file is missing or the encoder changed,
// under the recorded fingerprint (so the record stays pinned).
func TestPinnedRemastersDeliveries(t *testing.T) {
	const billing = `synthesis.menu["billing"]`
	p, st := delivered(t)
	approve(st, billing, "Ana")
	s := p.synthesis(billing)
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	rec := st.Resources[billing]
	for _, tc := range []struct {
		name, enc, reason string
		drop              func()
	}{
		{name: "a delivered file missing", enc: "enc-1", reason: "deliver telephony: output build/ivr/telephony/billing.wav missing",
			drop: func() { delete(p.fs, "build/ivr/telephony/billing.wav") }},
		{name: "another encoder", enc: "enc-2", reason: "deliver telephony: encoder changed", drop: func() {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := p.fs.clone()
			defer func() { p.fs = fs }()
			tc.drop()
			plan, err := p.planWith(t, st, encoderOf(tc.enc))
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Pinned) != 1 {
				t.Fatalf("pinned %+v", plan.Pinned)
			}
			a := plan.Action(billing)
			if a == nil || a.Type != planner.Remaster || !a.Cost.IsZero() || a.Desired.Fingerprint != rec.Fingerprint ||
				!strings.Contains(strings.Join(a.Reasons, "; "), tc.reason) {
				t.Fatalf("want a free remaster of the pinned audio: %+v", a)
			}
		})
	}
}

// TestPinnedListenCheck: a pinned resource's listening check is planned
// as an unchanged resource's: one not recorded is made (a Check of the
// approved request, under the recorded fingerprint); one recorded is
// kept.
func TestPinnedListenCheck(t *testing.T) {
	const billing = `synthesis.menu["billing"]`
	p := baseProject()
	s := p.synthesis(billing)
	s.Edit().Listen = listenSpec(0, "limits-1")
	st := p.apply(t)
	approve(st, billing, "Ana")
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	rec := st.Resources[billing]
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Action(billing)
	if len(plan.Pinned) != 1 || a == nil || a.Type != planner.Check || a.Desired.Fingerprint != rec.Fingerprint {
		t.Fatalf("want a check of the pinned audio: %+v, pinned %+v", a, plan.Pinned)
	}
	if s := plan.Summary(); s.NoOp != len(p.desired(t))-1 || s.Check != 1 || s.Pinned != 1 {
		t.Errorf("summary %+v: the pinned check is counted off the no-ops", s)
	}
	o := &rec.Outputs[0]
	o.Listen = checkRecord(o.SHA256, "hi-IN", 2.1, "बिलिंग के लिए एक दबाएँ", true, "limits-1")
	plan, err = p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action(billing); a != nil || len(plan.Pinned) != 1 {
		t.Fatalf("a recorded check of the pinned audio: %+v", a)
	}
}

// TestPinnedChapterKeepsItsPackage: a package whose chapter is pinned is
// fingerprinted from what the chapter is (its recorded request, whose
// output it packages), so it is not remastered; a chapter replaced
// (-replace) still remasters it.
func TestPinnedChapterKeepsItsPackage(t *testing.T) {
	const billing = `synthesis.menu["billing"]`
	p, st := bookWithPinnedChapter(t, billing)
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pinned) != 1 || plan.HasChanges() {
		t.Fatalf("a pinned chapter: actions %v, pinned %+v", addresses(plan), plan.Pinned)
	}
	plan, err = planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: encoderOf("enc-1"),
		Options: planner.Options{Replace: []string{billing}}})
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action("package.book"); a == nil || a.Type != planner.Remaster {
		t.Fatalf("a chapter replaced: actions %v", addresses(plan))
	}
}

// bookWithPinnedChapter is a book applied, delivered and packaged, whose
// chapter pinned (approved, keep_approved) has since changed its voice.
func bookWithPinnedChapter(t *testing.T, pinned string) (*project, *state.File) {
	t.Helper()
	p, st := deliveredBook(t)
	approve(st, pinned, "Ana")
	s := p.synthesis(pinned)
	s.VoiceName, s.Edit().Lifecycle.KeepApproved = "Deepak", true
	return p, st
}

// TestRepackageOfPinnedChapterKeepsAsChaptersAre: a package with one
// chapter pinned (keep_approved) and another remade under its fingerprint
// (-replace) gets the Remaster repackage adds; that remaster is of the
// package as its chapters are (asChaptersAre: the pinned chapter by its
// recorded fingerprint), so that apply records the fingerprint the next
// plan computes. It must not carry the declared request, which names the
// pinned chapter's new fingerprint.
func TestRepackageOfPinnedChapterKeepsAsChaptersAre(t *testing.T) {
	const billing, support = `synthesis.menu["billing"]`, `synthesis.menu["support"]`
	p, st := bookWithPinnedChapter(t, billing)
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

// TestRepackageMayReplaceTheBook: the remaster of a package that a
// chapter's replace adds (-replace of a chapter) may replace the book
// files the state records, as any action's ownership is decided; it was
// refused at apply ("appeared after the plan") for want of it.
func TestRepackageMayReplaceTheBook(t *testing.T) {
	p := baseProject()
	withBook(p)
	st := p.apply(t)
	recordBook(t, p, st, "enc-1")
	plan, err := planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: encoderOf("enc-1"),
		Options: planner.Options{Replace: []string{`synthesis.menu["billing"]`}}})
	if err != nil {
		t.Fatal(err)
	}
	book := plan.Action("package.book")
	if book == nil || book.Type != planner.Remaster {
		t.Fatalf("actions %v", addresses(plan))
	}
	if !book.MayReplace("build/book.mp3") || book.Details().Refused != "" {
		t.Errorf("the book's remaster may not replace build/book.mp3: overwrite %v, refused %q", book.Details().Overwrite, book.Details().Refused)
	}
	p.fs["build/book.mp3"] = "a file voxform did not make"
	plan, err = planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: encoderOf("enc-1"),
		Options: planner.Options{Replace: []string{`synthesis.menu["billing"]`}}})
	if err != nil {
		t.Fatal(err)
	}
	if book := plan.Action("package.book"); book == nil || !strings.Contains(book.Details().Refused, "build/book.mp3 changed since voxform wrote it") {
		t.Errorf("a changed book file is not refused: %+v", book)
	}
}

// TestPinKeepsNoTextChange: keep_approved keeps approved audio through a
// change of how it is made, never through a change of its own words (the
// manifest would declare words no one hears): the prompt is replaced, and
// the plan says its approval ends.
func TestPinKeepsNoTextChange(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	approve(st, `synthesis.menu["billing"]`, "Ana")
	for _, s := range p.m.Syntheses {
		if s.Name == "menu" {
			s.Edit().Lifecycle.KeepApproved = true
			if s.Key == "billing" {
				s.Text = "Your calls are never recorded or shared."
			}
		}
	}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pinned) != 0 {
		t.Fatalf("a change of the prompt's own text is pinned: %+v", plan.Pinned)
	}
	a := plan.Action(`synthesis.menu["billing"]`)
	if a == nil || a.Type != planner.Replace || !strings.Contains(strings.Join(a.Reasons, "; "), "approval by Ana of 2026-11-27T09:00:00Z will no longer hold") {
		t.Fatalf("billing with new words: %+v", a)
	}
}
