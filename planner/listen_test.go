package planner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// A check's fingerprint covers the audio and every field of its request,
// and nothing else: the golden pins its canonical form.
func TestCheckFingerprint(t *testing.T) {
	req, ok := planner.NewCheckRequest("hi-IN", 12, 24000)
	if !ok || req.API != "rest" || req.Rate != planner.ListenRate || req.Format != "verbatim" {
		t.Fatalf("request of a 12 s hi-IN check: %+v %v", req, ok)
	}
	sha := strings.Repeat("a", 64)
	fp := planner.CheckFingerprint(sha, req)
	seen := map[string]bool{fp: true}
	for _, r := range []planner.CheckRequest{
		{API: "batch", LanguageCode: "hi-IN", Model: "stt-v2.5", Rate: 16000},
		{API: "rest", LanguageCode: "en-IN", Format: "verbatim", Rate: 16000},
		{API: "rest", LanguageCode: "hi-IN", Format: "verbatim", Rate: 8000},
	} {
		other := planner.CheckFingerprint(sha, r)
		if seen[other] {
			t.Errorf("%+v: fingerprint not distinct", r)
		}
		seen[other] = true
	}
	if planner.CheckFingerprint(strings.Repeat("b", 64), req) == fp {
		t.Error("the audio's hash is not in the fingerprint")
	}
	long, _ := planner.NewCheckRequest("hi-IN", 75, 48000)
	if long.API != "batch" || long.Model == "" {
		t.Errorf("a 75 s check goes to a batch job: %+v", long)
	}
	if _, ok := planner.NewCheckRequest("or-IN", 5, 16000); ok {
		t.Error("no recognition API hears or-IN")
	}
}

// Judge records the verdict of a transcript under the declared limits:
// the longest diverging run, where it starts, and the limits' hash.
func TestJudge(t *testing.T) {
	spec := &manifest.Listen{Thresholds: listen.DefaultThresholds(), Hash: "h1"}
	l := &state.Listen{Heard: "the cat sat blah blah blah the mat today", Seconds: 10}
	if err := planner.Judge(l, "the cat sat on a warm bit of the mat today", spec); err != nil {
		t.Fatal(err)
	}
	if l.Pass || l.LongestRun != 5 || l.Span == nil || l.Span.From != 3 || l.Span.Start != 2.7 || l.Judged != "h1" || len(l.Failures) == 0 {
		t.Fatalf("verdict: %+v span %+v", l, l.Span)
	}
	l.Heard = "the cat sat on a warm bit of the mat today"
	if err := planner.Judge(l, "<laugh> the cat sat on a warm bit of the mat today", spec); err != nil || !l.Pass || l.Span != nil || l.Failures != nil {
		t.Fatalf("a faithful transcript: %+v, %v", l, err)
	}
}

// Seams: a loudness step over the limit, and a gap outside its range,
// fail the boundary they are at.
func TestSeams(t *testing.T) {
	lufs := func(v float64) *state.Loudness { return &state.Loudness{Integrated: &v} }
	chunks := []state.ChunkRecord{
		{Start: 0, End: 10, Loudness: lufs(-20), Tail: 0.3},
		{Start: 10, End: 20, Loudness: lufs(-24.1), Lead: 0.2, Tail: 1.5},
		{Start: 20, End: 30, Loudness: lufs(-24), Lead: 0.7},
	}
	seams := planner.Seams(chunks, manifest.DefaultSeams())
	if len(seams) != 2 || seams[0].Pass || seams[0].Step != 4.1 || seams[0].At != 10 {
		t.Fatalf("first seam: %+v", seams)
	}
	if seams[1].Pass || seams[1].Gap != 2.2 || !strings.Contains(seams[1].Failures[0], "gap 2.20 s") {
		t.Fatalf("second seam: %+v", seams[1])
	}
}

// listenChapter is a chunked chapter with listen: (regenerate n).
func listenChapter(t *testing.T, n int) *planner.Desired {
	m := chapterProject(chapterText(120), 600)
	m.Syntheses[0].Edit().Listen = &manifest.Listen{Thresholds: listen.DefaultThresholds(), Seams: manifest.DefaultSeams(), Regenerate: n, Hash: "h1"}
	return buildOne(t, m)
}

// TestListenWorkPriced: a create of a chunked synthesis with listen:
// prices one check per chunk at its text's estimated length (the audio
// is not made yet), in the action's cost; the worst case adds every
// regeneration (the chunk's characters and its check again); the budget
// is held to the worst case.
func TestListenWorkPriced(t *testing.T) {
	d := listenChapter(t, 2)
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: state.New(), Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Actions[0]
	w := a.Listen
	var secs float64
	for _, ch := range d.Details().Chunks {
		secs += planner.EstimatedSeconds(ch.Characters, d.Wire.Synthesis.Speed)
	}
	if w == nil || w.Items != len(d.Details().Chunks) || w.Make != len(d.Details().Chunks) || !w.Estimated || w.Language != "hi-IN" || w.AudioSeconds != secs || a.Cost.AudioSeconds != secs {
		t.Fatalf("listen work %+v, cost %+v; want %d checks of %.0f s", w, a.Cost, len(d.Details().Chunks), secs)
	}
	want := planner.Cost{Characters: 3 * d.Characters, AudioSeconds: 3 * secs}
	if w.Worst != want || p.Worst != want {
		t.Fatalf("worst case %+v (plan %+v), want %+v", w.Worst, p.Worst, want)
	}
	limit := 2 * d.Characters
	budget := &manifest.Budget{MaxCharacters: &limit}
	if _, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: state.New(), Options: planner.Options{NoRefresh: true}, Budget: budget}); !errors.Is(err, planner.ErrBudget) {
		t.Fatalf("a budget under the worst case: %v", err)
	}
}

// TestListenCheckAction: a recorded resource with listen: and no
// recorded check for its audio is a Check action pricing the chunks not
// checked; once every chunk records a check of its audio, nothing.
func TestListenCheckAction(t *testing.T) {
	d := listenChapter(t, 0)
	st := recorded(d)
	r := st.Resources[d.Address]
	for i := range r.Details().Chunks {
		r.Details().Chunks[i].SHA256 = fmt.Sprintf("%064x", i)
	}
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Type != planner.Check || p.Actions[0].Listen.Make != len(d.Details().Chunks) || p.Actions[0].Cost.Characters != 0 || p.NoOps != 0 {
		t.Fatalf("plan %+v", p.Actions)
	}
	for i := range r.Details().Chunks {
		req, _ := planner.NewCheckRequest("hi-IN", 30, 16000)
		r.Details().Chunks[i].Listen = &state.Listen{Fingerprint: planner.CheckFingerprint(r.Details().Chunks[i].SHA256, req), API: req.API, LanguageCode: "hi-IN", Rate: 16000, Seconds: 30, Pass: true, Judged: "h1"}
	}
	r.Details().Chunks[3].Listen.Fingerprint = planner.CheckFingerprint(strings.Repeat("f", 64), planner.CheckRequest{API: "rest", LanguageCode: "hi-IN", Format: "verbatim", Rate: 16000})
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Listen.Make != 1 || p.Actions[0].Cost.AudioSeconds != 30 || p.Actions[0].Listen.Estimated {
		t.Fatalf("one chunk's record is of other audio: %+v %+v", p.Actions, p.Actions[0].Listen)
	}
	r.Details().Chunks[3].Listen.Fingerprint = planner.CheckFingerprint(r.Details().Chunks[3].SHA256, planner.CheckRequest{API: "rest", LanguageCode: "hi-IN", Format: "verbatim", Rate: 16000})
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil || len(p.Actions) != 0 || p.NoOps != 1 {
		t.Fatalf("every check recorded: %+v, %v", p.Actions, err)
	}
}

// A plan whose only work is checks calls the service: apply connects a
// client for it.
func TestCheckActionCallsService(t *testing.T) {
	d := listenChapter(t, 0)
	st := recorded(d)
	for i := range st.Resources[d.Address].Details().Chunks {
		st.Resources[d.Address].Details().Chunks[i].SHA256 = fmt.Sprintf("%064x", i)
	}
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil || len(p.Actions) != 1 || p.Actions[0].Type != planner.Check {
		t.Fatalf("plan: %+v, %v", p, err)
	}
	if !p.CallsService() {
		t.Fatal("a plan of checks to make does not call the service")
	}
}

// A -replace of a resource whose request is unchanged makes a new take:
// its check is priced, not taken for the recorded one.
func TestReplacePricesNewCheck(t *testing.T) {
	m := chapterProject("नमस्ते दुनिया, आज मौसम अच्छा है।", 0)
	m.Syntheses[0].Edit().Listen = &manifest.Listen{Thresholds: listen.DefaultThresholds(), Seams: manifest.DefaultSeams(), Hash: "h1"}
	d := buildOne(t, m)
	st := recorded(d)
	r := st.Resources[d.Address]
	req, _ := planner.NewCheckRequest("hi-IN", 3, 16000)
	r.Outputs[0].Listen = &state.Listen{Fingerprint: planner.CheckFingerprint(r.Outputs[0].SHA256, req), API: req.API, LanguageCode: "hi-IN", Rate: 16000, Seconds: 3, Pass: true, Judged: "h1"}
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil || len(p.Actions) != 0 {
		t.Fatalf("recorded and checked: %+v, %v", p.Actions, err)
	}
	p, err = planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true, Replace: []string{d.Address}}})
	if err != nil || len(p.Actions) != 1 || p.Actions[0].Listen == nil || p.Actions[0].Listen.Make != 1 || p.Actions[0].Cost.AudioSeconds == 0 {
		t.Fatalf("-replace: %+v, %v", p.Actions[0].Listen, err)
	}
}

// A move and a restore that keeps its record put back what the state
// records, checks and all, and make no check: they price none (a check
// they leave unmade is the next plan's Check action).
func TestMoveAndKeptRestorePriceNoCheck(t *testing.T) {
	m := chapterProject(chapterText(120), 600)
	m.Syntheses[0].Edit().Listen = &manifest.Listen{Thresholds: listen.DefaultThresholds(), Seams: manifest.DefaultSeams(), Hash: "h1"}
	m.Syntheses[0].Output = "out/moved.wav"
	d := buildOne(t, m)
	st := recorded(d)
	p, err := planner.Compute(planner.Input{Desired: []*planner.Desired{d}, State: st, Options: planner.Options{NoRefresh: true}})
	if err != nil || len(p.Actions) != 1 || p.Actions[0].Type != planner.Move {
		t.Fatalf("plan: %+v, %v", p.Actions, err)
	}
	if a := p.Actions[0]; a.Listen != nil || a.Cost.AudioSeconds != 0 {
		t.Fatalf("a move prices checks it does not make: %+v", a.Listen)
	}
}
