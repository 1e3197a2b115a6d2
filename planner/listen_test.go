package planner_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestListenRefusedUntilMade: a synthesis that declares a listening check
// is refused at the check's position, never planned as if it were
// checked.
func TestListenRefusedUntilMade(t *testing.T) {
	m := chapterProject("नमस्ते दुनिया", 0)
	m.Syntheses[0].Listen = &manifest.Listen{Pos: manifest.Pos{File: "voxform.yaml", Line: 7, Col: 5}}
	_, err := planner.Build(m, fakeFS{}.hash)
	if !errors.Is(err, planner.ErrListenNotCarriedOut) || !strings.HasPrefix(err.Error(), "voxform.yaml:7:5: synthesis.chapter: listen:") {
		t.Fatalf("Build with listen: %v", err)
	}
}

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
