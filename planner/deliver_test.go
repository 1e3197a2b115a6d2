package planner_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// withDelivery delivers every menu prompt to profile p at
// build/ivr/<p.Name>/KEY.wav.
func withDelivery(p *deliver.Profile) func(*project) {
	return func(pr *project) {
		for _, s := range pr.m.Syntheses {
			if s.Name == "menu" {
				s.Edit().Deliver = []manifest.Delivery{{Profile: p, Output: "build/ivr/" + p.Name + "/" + s.Key + ".wav"}}
			}
		}
	}
}

// encoderOf is an Encoder of identity id for every profile.
func encoderOf(id string) planner.EncoderFunc {
	return func(*deliver.Profile) (string, error) { return id, nil }
}

// recordDeliveries records, for every delivered output st holds, what
// an apply with encoder id would: made from its resource's audio.
func recordDeliveries(p *project, st *state.File, id string) {
	for _, s := range p.m.Syntheses {
		r := st.Resources[s.Address]
		for i, o := range r.Outputs {
			name, ok := planner.IsDelivery(o.Format)
			if !ok {
				continue
			}
			prof := s.Details().Deliver[0].Profile
			r.Outputs[i].Delivery = &state.Delivery{Profile: name, Source: r.Outputs[0].SHA256, Encoder: id,
				Fingerprint: planner.DeliveryFingerprint(r.Outputs[0].SHA256, prof, id)}
		}
	}
}

func (p *project) planWith(t *testing.T, st *state.File, enc planner.EncoderFunc) (*planner.Plan, error) {
	t.Helper()
	return planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: enc})
}

func delivered(t *testing.T) (*project, *state.File) {
	t.Helper()
	p := baseProject()
	withDelivery(deliver.Builtin("telephony"))(p)
	st := p.apply(t)
	recordDeliveries(p, st, "enc-1")
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	if plan.HasChanges() {
		t.Fatalf("a recorded delivery plans changes: %v", addresses(plan))
	}
	return p, st
}

func remasters(t *testing.T, plan *planner.Plan, n int, reason string) {
	t.Helper()
	got := 0
	for _, a := range plan.Actions {
		if a.Type != planner.Remaster {
			t.Errorf("%s: %s, want remaster", a.Address, a.Type)
			continue
		}
		got++
		if a.Cost != (planner.Cost{}) {
			t.Errorf("%s: a remaster costs %+v", a.Address, a.Cost)
		}
		if !strings.Contains(strings.Join(a.Reasons, "; "), reason) {
			t.Errorf("%s: reasons %q, want %q", a.Address, a.Reasons, reason)
		}
	}
	if got != n {
		t.Errorf("%d remasters, want %d", got, n)
	}
	if plan.CallsService() {
		t.Error("a plan of remasters calls the service")
	}
}

func TestDeliveryProfileChangeRemastersFree(t *testing.T) {
	p, st := delivered(t)
	changed := deliver.Builtin("telephony")
	changed.Peak.Max = -2
	withDelivery(changed)(p)
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	remasters(t, plan, 3, "deliver telephony: profile changed")
	if s := plan.Summary(); s.Remaster != 3 {
		t.Errorf("summary %+v, want 3 to remaster", s)
	}
}

func TestDeliveryEncoderChangeRemasters(t *testing.T) {
	p, st := delivered(t)
	plan, err := p.planWith(t, st, encoderOf("enc-2"))
	if err != nil {
		t.Fatal(err)
	}
	remasters(t, plan, 3, "deliver telephony: encoder changed")
}

func TestDeliveredFileMissingRemasters(t *testing.T) {
	p, st := delivered(t)
	delete(p.fs, "build/ivr/telephony/sales.wav")
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	remasters(t, plan, 1, "output build/ivr/telephony/sales.wav missing")
}

func TestDeliveryRemovedRemovesItsFile(t *testing.T) {
	p, st := delivered(t)
	p.synthesis(`synthesis.menu["billing"]`).Edit().Deliver = nil
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	remasters(t, plan, 1, "deliver telephony removed")
	if a := plan.Actions[0]; len(a.Details().Removes) != 1 || a.Details().Removes[0] != "build/ivr/telephony/billing.wav" {
		t.Errorf("removes %v", a.Details().Removes)
	}
}

func TestDeliveryTextChangeIsAPaidReplace(t *testing.T) {
	p, st := delivered(t)
	p.synthesis(`synthesis.menu["sales"]`).Text = "बिक्री के लिए चार दबाएँ"
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Actions) != 1 || plan.Actions[0].Type != planner.Replace || plan.Actions[0].Cost.Characters == 0 {
		t.Fatalf("actions %v, want one billed replace", addresses(plan))
	}
	if !plan.Actions[0].MayReplace("build/ivr/telephony/sales.wav") {
		t.Error("the replace may not replace its own delivered file")
	}
}

func TestDeliveryMissingEncoderFailsThePlan(t *testing.T) {
	p := baseProject()
	withDelivery(deliver.Builtin("acx"))(p)
	enc := func(pr *deliver.Profile) (string, error) {
		return "", errors.New("needs ffmpeg with libmp3lame for mp3: ffmpeg not found on PATH")
	}
	_, err := p.planWith(t, &state.File{Version: 1, Resources: map[string]*state.Resource{}}, enc)
	if err == nil || !strings.Contains(err.Error(), "deliver acx: needs ffmpeg") || !strings.Contains(err.Error(), "and 2 more") {
		t.Fatalf("err %v, want the profile, what it needs and who needs it", err)
	}
}

func TestDeliveryLongerThanTheProfileFailsThePlan(t *testing.T) {
	p := baseProject()
	withDelivery(deliver.Builtin("amazon-connect"))(p)
	p.synthesis(`synthesis.menu["sales"]`).Text = strings.Repeat("बिक्री के लिए तीन दबाएँ। ", 300) // 7,500 characters
	_, err := p.planWith(t, &state.File{Version: 1, Resources: map[string]*state.Resource{}}, encoderOf("enc-1"))
	if err == nil || !strings.Contains(err.Error(), `synthesis.menu["sales"]: deliver amazon-connect: its text is estimated to last 500 s, longer than the profile's limit of 300 s`) {
		t.Fatalf("err %v", err)
	}
}

// withBook adds a package of the billing and support prompts to p.
func withBook(p *project) {
	p.m.Packages = []*manifest.Package{{Name: "book", Address: "package.book", Profile: deliver.Builtin("acx"),
		Meta: manifest.BookMeta{Title: "Menu"},
		Chapters: []manifest.Chapter{
			{Synthesis: `synthesis.menu["billing"]`, Title: "Billing"},
			{Synthesis: `synthesis.menu["support"]`, Title: "Support"},
		},
		MP3: &manifest.BookFile{Output: "build/book.mp3", Bitrate: 192000}}}
}

// recordBook records the book as an apply with encoder id would.
func recordBook(t *testing.T, p *project, st *state.File, id string) {
	t.Helper()
	var d *planner.Desired
	for _, x := range p.desired(t) {
		if x.Address == "package.book" {
			d = x
		}
	}
	shas := []string{st.Resources[`synthesis.menu["billing"]`].Outputs[0].SHA256, st.Resources[`synthesis.menu["support"]`].Outputs[0].SHA256}
	source := planner.PackageSource(shas)
	ids := "mp3: " + id + "; "
	for i := range st.Resources["package.book"].Outputs {
		st.Resources["package.book"].Outputs[i].Delivery = &state.Delivery{Profile: "acx", Source: source, Encoder: ids,
			Fingerprint: planner.PackageFingerprint(d.Fingerprint, source, ids)}
	}
}

// deliveredBook is the base project with telephony deliveries and a book,
// applied, delivered and packaged with encoder enc-1.
func deliveredBook(t *testing.T) (*project, *state.File) {
	t.Helper()
	p := baseProject()
	withDelivery(deliver.Builtin("telephony"))(p)
	withBook(p)
	st := p.apply(t)
	recordDeliveries(p, st, "enc-1")
	recordBook(t, p, st, "enc-1")
	return p, st
}

func TestPackageRepackagesAChapterMadeAgain(t *testing.T) {
	p, st := deliveredBook(t)
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil || plan.HasChanges() {
		t.Fatalf("a recorded book plans %v (%v)", addresses(plan), err)
	}
	// The same request made again (-replace): new audio under the same
	// fingerprint, which the book must follow in the same apply.
	plan, err = planner.Compute(planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Encoder: encoderOf("enc-1"),
		Options: planner.Options{Replace: []string{`synthesis.menu["billing"]`}}})
	if err != nil {
		t.Fatal(err)
	}
	var book *planner.Action
	for _, a := range plan.Actions {
		if a.Address == "package.book" {
			book = a
		}
	}
	if book == nil || book.Type != planner.Remaster || len(book.DependsOn) != 1 || book.DependsOn[0] != `synthesis.menu["billing"]` {
		t.Fatalf("actions %v; want the book remastered after the billing chapter", addresses(plan))
	}
	if plan.NoOps+len(plan.Actions) != len(p.desired(t)) {
		t.Errorf("%d no-ops and %d actions for %d resources", plan.NoOps, len(plan.Actions), len(p.desired(t)))
	}
}

func TestSavedPlanCarriesARemaster(t *testing.T) {
	p, st := delivered(t)
	changed := deliver.Builtin("telephony")
	changed.Peak.Max = -2
	withDelivery(changed)(p)
	plan, err := p.planWith(t, st, encoderOf("enc-1"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := planner.NewSaved(plan, p.m, nil, nil).Write(&buf); err != nil {
		t.Fatal(err)
	}
	saved, err := planner.ReadSaved(&buf)
	if err != nil {
		t.Fatalf("a saved plan of remasters: %v", err)
	}
	if err := planner.CompareSaved(plan, saved.Plan); err != nil {
		t.Fatalf("the same plan: %v", err)
	}
}

func TestGraphHasPackages(t *testing.T) {
	p := baseProject()
	withBook(p)
	var buf bytes.Buffer
	if err := planner.WriteDOT(&buf, p.m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"package.book" [shape = "folder"];`, `"synthesis.menu[\"billing\"]" -> "package.book";`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("graph lacks %s:\n%s", want, buf.String())
		}
	}
}
