package planner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// TestRecordedFingerprint: a synthesis given recorded: is replaced free,
// its reason saying so; its fingerprint then follows the recording's
// bytes (a new take is a free replace) and not the voice, model or text;
// removing recorded: is a billed replace that says so.
func TestRecordedFingerprint(t *testing.T) {
	const addr = `synthesis.menu["billing"]`
	p := baseProject()
	st := p.apply(t)
	s := p.synthesis(addr)
	p.fs["studio/billing.wav"] = "take 1"
	s.Recorded = &manifest.Recorded{Path: "studio/billing.wav"}

	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := actionOf(plan, addr)
	if a == nil || a.Type != planner.Replace || !a.Cost.IsZero() || !slices.Equal(a.Reasons, []string{"recorded: added (from recording studio/billing.wav)"}) {
		t.Fatalf("recorded: added: want a free replace saying so, got %+v", a)
	}
	if a.Desired.Recorded == nil || a.Desired.Recorded.SHA256 == "" || a.Desired.Characters != 0 || a.Desired.Wire.Synthesis.Text != s.Text {
		t.Errorf("the recorded synthesis's desired: %+v (text %q)", a.Desired.Recorded, a.Desired.Wire.Synthesis.Text)
	}
	if len(plan.Actions) != 1 || plan.Cost.Characters != 0 {
		t.Errorf("only the recorded prompt changes, free: %d actions, cost %+v", len(plan.Actions), plan.Cost)
	}

	st = p.apply(t)
	if a := actionOf(mustPlan(t, p, st), addr); a != nil {
		t.Fatalf("applied: want no change, got %+v", a)
	}
	s.VoiceName, s.Model, s.Text = "Anand", "tts-v3.0", "a new text"
	if a := actionOf(mustPlan(t, p, st), addr); a != nil {
		t.Errorf("voice, model and text changed under a recording: want no change, got %s %v", a.Type, a.Reasons)
	}
	p.fs["studio/billing.wav"] = "take 2"
	a = actionOf(mustPlan(t, p, st), addr)
	if a == nil || a.Type != planner.Replace || !a.Cost.IsZero() || !slices.Equal(a.Reasons, []string{"recording studio/billing.wav changed"}) {
		t.Fatalf("a new take: want a free replace, got %+v", a)
	}
	s.Recorded = nil
	a = actionOf(mustPlan(t, p, st), addr)
	if a == nil || a.Type != planner.Replace || a.Cost.Characters != int64(len([]rune(s.Text))) ||
		!slices.Equal(a.Reasons, []string{"recorded: removed, synthesized"}) {
		t.Fatalf("recorded: removed: want a billed replace saying so, got %+v", a)
	}

	s.Recorded = &manifest.Recorded{Path: "studio/missing.wav"}
	if _, err := planner.Build(p.m, p.fs.hash); err == nil || !strings.Contains(err.Error(), "recording studio/missing.wav: no such file") {
		t.Errorf("a missing recording: %v", err)
	}
}

// TestRecordedCreate: a new recorded synthesis is created free, from its
// recording.
func TestRecordedCreate(t *testing.T) {
	p := baseProject()
	p.fs["studio/sales.wav"] = "take"
	p.synthesis(`synthesis.menu["sales"]`).Recorded = &manifest.Recorded{Path: "studio/sales.wav"}
	a := actionOf(mustPlan(t, p, nil), `synthesis.menu["sales"]`)
	if a == nil || a.Type != planner.Create || !a.Cost.IsZero() || !slices.Equal(a.Reasons, []string{"from recording studio/sales.wav"}) {
		t.Fatalf("want a free create from the recording, got %+v", a)
	}
}

func mustPlan(t *testing.T, p *project, st *state.File) *planner.Plan {
	t.Helper()
	if st == nil {
		st = &state.File{Version: 1, Lineage: "lineage-1", Resources: map[string]*state.Resource{}}
	}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
