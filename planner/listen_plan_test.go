package planner_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// listenSpec is a listen: block at the default limits, whose limits hash
// is hash.
func listenSpec(regenerate int, hash string) *manifest.Listen {
	return &manifest.Listen{Thresholds: listen.DefaultThresholds(), Seams: manifest.DefaultSeams(), Regenerate: regenerate, Hash: hash}
}

// withListen declares listen: on every synthesis of p, and adds a
// chunked chapter (requests of at most 600 characters).
func withListen(regenerate int) func(p *project) {
	return func(p *project) {
		p.m.Service.MaxTextChars = 600
		v3 := p.m.Voices[0]
		p.m.Syntheses = append(p.m.Syntheses, synth("chapter", "", "expressive", v3, chapterText(40), "build/book/chapter.wav"))
		spec := listenSpec(regenerate, "limits-1")
		for _, s := range p.m.Syntheses {
			s.Edit().Listen = spec
		}
	}
}

// checkRecord is a check recorded of the audio sha in language code
// (REST, 16 kHz), heard as heard, with the verdict pass under the limits
// hashed judged.
func checkRecord(sha, code string, secs float64, heard string, pass bool, judged string) *state.Listen {
	req := planner.CheckRequest{API: "rest", LanguageCode: code, Format: "verbatim", Rate: 16000}
	return &state.Listen{Fingerprint: planner.CheckFingerprint(sha, req), API: "rest", LanguageCode: code, Rate: 16000,
		Seconds: secs, Heard: heard, Pass: pass, Judged: judged}
}

// recordChecks records, after an apply of withListen's project: a
// failing check of billing judged under other limits (judged again:
// fails), a passing verdict of support under these limits over a
// transcript that would fail (trusted: not judged again), a failing
// verdict of sales under these limits, a check of founder_intro in
// hi-IN (its language is en-IN: checked again), none of welcome (a
// Check), a new text for founder_outro (a replace), and every chapter
// chunk's audio, all but 3 checked, chunk 5's under other limits and
// failing.
func recordChecks(p *project, st *state.File) {
	out := func(addr string) *state.Output { return &st.Resources[addr].Outputs[0] }
	billing := out(`synthesis.menu["billing"]`)
	billing.Listen = checkRecord(billing.SHA256, "hi-IN", 2.1, "बिलिंग के लिए एक नमस्ते नमस्ते नमस्ते", true, "limits-0")
	support := out(`synthesis.menu["support"]`)
	support.Listen = checkRecord(support.SHA256, "hi-IN", 2.2, "कुछ और ही सुना गया था", true, "limits-1")
	sales := out(`synthesis.menu["sales"]`)
	sales.Listen = checkRecord(sales.SHA256, "hi-IN", 2.3, "बिक्री के", false, "limits-1")
	sales.Listen.MissingTail, sales.Listen.Failures = 2, []string{"missing_tail: 2 words over 1"}
	intro := out("synthesis.founder_intro")
	intro.Listen = checkRecord(intro.SHA256, "hi-IN", 2.4, "Hello, I started this company.", true, "limits-1")
	p.synthesis("synthesis.founder_outro").Text = "Thank you all for listening."

	ds, err := planner.Build(p.m, p.fs.hash)
	if err != nil {
		panic(err)
	}
	var d *planner.Desired
	for _, x := range ds {
		if x.Address == "synthesis.chapter" {
			d = x
		}
	}
	r := st.Resources["synthesis.chapter"]
	at := 0.0
	for i, ch := range d.Details().Chunks {
		sha := fmt.Sprintf("%064x", i+1)
		rec := state.ChunkRecord{Fingerprint: ch.Fingerprint, Characters: ch.Characters, SHA256: sha, Start: at, End: at + 40}
		switch {
		case i == 4:
			rec.Listen = checkRecord(sha, "hi-IN", 40, "यह कहानी का वाक्य बिल्कुल अलग अलग अलग अलग शब्द", true, "limits-0")
		case i < len(d.Details().Chunks)-3:
			rec.Listen = checkRecord(sha, "hi-IN", 40, "", true, "limits-1")
		}
		r.Edit().Chunks = append(r.Details().Chunks, rec)
		at += 40
	}
}

// TestListenFailingJudgedAgainOnlyUnderOtherLimits: a recorded check
// judged under the limits declared now keeps its verdict (support's
// garbled transcript passes; sales' verdict fails without a transcript
// that would); one judged under others is judged again from its
// transcript (billing's fails now). The failures of resources left as
// they are are the plan's, those of actions their ListenWork's.
func TestListenFailingJudgedAgainOnlyUnderOtherLimits(t *testing.T) {
	p := baseProject()
	withListen(0)(p)
	st := p.apply(t)
	recordChecks(p, st)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]planner.ActionType{}
	for _, a := range plan.Actions {
		got[a.Address] = a.Type
	}
	want := map[string]planner.ActionType{"synthesis.welcome": planner.Check, "synthesis.founder_intro": planner.Check,
		"synthesis.founder_outro": planner.Replace, "synthesis.chapter": planner.Check}
	for addr, typ := range want {
		if got[addr] != typ {
			t.Errorf("%s: %q, want %q (plan %v)", addr, got[addr], typ, got)
		}
	}
	if len(plan.ListenFailing) != 2 || !strings.HasPrefix(plan.ListenFailing[0], `synthesis.menu["billing"]: build/ivr/menu/billing.wav: `) ||
		!strings.Contains(plan.ListenFailing[0], "heard") || plan.ListenFailing[1] != `synthesis.menu["sales"]: build/ivr/menu/sales.wav: missing_tail: 2 words over 1` {
		t.Errorf("failing no-ops: %q", plan.ListenFailing)
	}
	ch := plan.Action("synthesis.chapter").Listen
	if ch.Make != 3 || len(ch.Failing) != 1 || !strings.HasPrefix(ch.Failing[0], fmt.Sprintf("chunk 5 of %d (160.0 s): ", ch.Items)) {
		t.Errorf("chapter: %d to make, failing %q", ch.Make, ch.Failing)
	}
	if w := plan.Action("synthesis.chapter").Reasons; len(w) != 1 || w[0] != fmt.Sprintf("listen: 3 of %d chunks not checked (hi-IN, the synthesis language)", ch.Items) {
		t.Errorf("chapter's reasons: %q", w)
	}
	// The records are judged on copies: the state is as recorded.
	if l := st.Resources[`synthesis.menu["billing"]`].Outputs[0].Listen; !l.Pass || l.Judged != "limits-0" {
		t.Errorf("billing's record was changed: %+v", l)
	}
}

// TestBudgetWorstCase: a budget the cost keeps and the worst case passes
// refuses the plan, saying it is the worst case that passes it (with
// regenerate's count and what the plan bills when every check passes);
// a cost over the budget is refused as before.
func TestBudgetWorstCase(t *testing.T) {
	p := baseProject()
	withListen(2)(p)
	plan, err := p.plan(t, nil, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	limit := plan.Cost.Characters + 1
	p.m.Budget = &manifest.Budget{MaxCharacters: &limit, Pos: budgetPos}
	_, err = p.plan(t, nil, planner.Options{})
	want := fmt.Sprintf("voxform.yaml:4:3: plan exceeds the budget: at worst, with regenerate: 2, %s billable characters, over budget.max_characters of %s (%s when every check passes)",
		thousands(plan.Worst.Characters), thousands(limit), thousands(plan.Cost.Characters))
	if !errors.Is(err, planner.ErrBudget) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if err := planner.CheckBudget(plan.Cost, p.m.Budget); err != nil {
		t.Errorf("the cost alone is within the budget: %v", err)
	}
	limit = plan.Cost.Characters - 1
	if _, err := p.plan(t, nil, planner.Options{}); err == nil || strings.Contains(err.Error(), "at worst") {
		t.Errorf("a cost over the budget: %v", err)
	}
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestSavedPlanListen: a saved plan with a Check action is read back and
// applies when nothing changed; one whose listening checks differ from
// the plan made again (a chunk's check recorded since, say, so fewer
// checks and seconds; or more) is stale, and says so.
func TestSavedPlanListen(t *testing.T) {
	p := baseProject()
	withListen(1)(p)
	st := p.apply(t)
	recordChecks(p, st)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := planner.NewSaved(plan, p.m, nil, nil).Write(&buf); err != nil {
		t.Fatal(err)
	}
	saved, err := planner.ReadSaved(&buf)
	if err != nil {
		t.Fatalf("a plan with Check actions: %v", err)
	}
	if err := planner.CompareSaved(plan, saved.Plan); err != nil {
		t.Fatalf("the same plan: %v", err)
	}
	// One more chunk of the chapter lacks its check now: the plan made
	// again makes more checks than the saved one.
	r := st.Resources["synthesis.chapter"]
	r.Details().Chunks[0].Listen = nil
	fresh, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = planner.CompareSaved(fresh, saved.Plan)
	if !errors.Is(err, planner.ErrStalePlan) || !strings.Contains(err.Error(), "synthesis.chapter: its listening checks differ from those apply would make now (3 checks of") ||
		!strings.Contains(err.Error(), "now 4 checks of") {
		t.Fatalf("a saved plan making fewer checks: %v", err)
	}
}

// TestListenPlanOutput: the plan's table says what each action's checks
// are, sums them up under it with the worst case, and lists the recorded
// checks that fail; -json carries them; a plan without listen: shows
// none of it.
func TestListenPlanOutput(t *testing.T) {
	p := baseProject()
	withListen(2)(p)
	st := p.apply(t)
	recordChecks(p, st)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := planview.Render(&out, plan, planview.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| ?   | check   | synthesis.welcome",
		"listen: not checked (hi-IN, the synthesis language)",
		"text; listen: 1 check (en-IN, no language, mostly Latin)",
		"Plan: 0 to add, 1 to replace, 0 to repair, 3 to check, 0 to move, 0 to destroy.",
		"of it listening checks).",
		"Listening checks: 6 to make (",
		"3 outputs fail their recorded listening checks at the limits declared now:",
		`  synthesis.menu["sales"]: build/ivr/menu/sales.wav: missing_tail: 2 words over 1`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), fmt.Sprintf("; at worst, with regenerate: 2, %s characters", thousands(plan.Worst.Characters))) {
		t.Errorf("no worst case in\n%s", out.String())
	}
}

// TestSubsetWorstCase: a subset of a plan (verify -listen takes its
// Check actions) is priced again, its worst case with it.
func TestSubsetWorstCase(t *testing.T) {
	p := baseProject()
	withListen(2)(p)
	st := p.apply(t)
	recordChecks(p, st)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sub := plan.Subset(func(a *planner.Action) bool { return a.Type == planner.Check })
	var cost, worst planner.Cost
	for _, a := range sub.Actions {
		cost, worst = cost.Add(a.Cost), worst.Add(a.Listen.Worst)
	}
	if len(sub.Actions) != 3 || sub.Cost != cost || sub.Worst != worst || worst.Characters == 0 {
		t.Errorf("subset of %d checks: cost %+v worst %+v, want %+v and %+v", len(sub.Actions), sub.Cost, sub.Worst, cost, worst)
	}
}

// TestFailureLine: the diverging run is named once, with where it
// starts: after its own failure when it fails, else after the others.
func TestFailureLine(t *testing.T) {
	span := &state.ListenSpan{From: 3, To: 5, Sent: "on a", Heard: "blah", Start: 2.7}
	l := &state.Listen{Failures: []string{`longest_run: 3 words over 2: sent "on a" (words 4 to 5), heard "blah"`, "missing_tail: the last 2 words sent were not heard, over 1"}, Span: span}
	if got, want := planner.FailureLine(l), `longest_run: 3 words over 2: sent "on a" (words 4 to 5), heard "blah" (at 2.7 s); missing_tail: the last 2 words sent were not heard, over 1`; got != want {
		t.Errorf("run failing:\n got %s\nwant %s", got, want)
	}
	l.Failures = []string{"cer: 0.300 over 0.200"}
	if got, want := planner.FailureLine(l), `cer: 0.300 over 0.200; the longest diverging run at 2.7 s: sent "on a", heard "blah"`; got != want {
		t.Errorf("run within its limit:\n got %s\nwant %s", got, want)
	}
}
