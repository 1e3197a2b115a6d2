package planner_test

import (
	"errors"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// budgetPos is where the tests' budget block is declared.
var budgetPos = manifest.Pos{File: "voxform.yaml", Line: 4, Col: 3}

// TestAudioBudget: a fresh plan of baseProject transcribes 750 s + 61.5 s.
// budget.max_audio_seconds refuses more and accepts exactly that much; the
// refusal names the figure and the limit, and the plan comes with it.
func TestAudioBudget(t *testing.T) {
	tests := []struct {
		name  string
		limit float64
		want  string // the error; "" for none
	}{
		{name: "over by half a second", limit: 811,
			want: "voxform.yaml:4:3: plan exceeds the budget: 0h13m32s of audio to transcribe, over budget.max_audio_seconds of 811 (0h13m31s)"},
		{name: "far over", limit: 60,
			want: "voxform.yaml:4:3: plan exceeds the budget: 0h13m32s of audio to transcribe, over budget.max_audio_seconds of 60 (0h01m00s)"},
		{name: "at budget", limit: 811.5},
		{name: "under budget", limit: 3600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := baseProject()
			limit := tc.limit
			p.m.Budget = &manifest.Budget{MaxAudioSeconds: &limit, Pos: budgetPos}
			plan, err := p.plan(t, nil, planner.Options{})
			if plan == nil {
				t.Fatalf("no plan (err %v)", err)
			}
			if plan.Cost.AudioSeconds != 811.5 {
				t.Fatalf("audio seconds = %v, want 811.5", plan.Cost.AudioSeconds)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused at %v s: %v", tc.limit, err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant  %s", err, tc.want)
			}
			if !errors.Is(err, planner.ErrBudget) {
				t.Errorf("%v does not wrap ErrBudget", err)
			}
			// The plan is complete: the caller shows what was refused.
			if got := len(plan.Actions); got != 9 {
				t.Errorf("%d actions with the refusal, want 9", got)
			}
		})
	}
}

// TestAudioBudgetCountsOnlyBilledAudio: after an apply, only the changed
// recording counts against the budget; a free repair counts nothing.
func TestAudioBudgetCountsOnlyBilledAudio(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.fs["recordings/b.wav"] = "call b, re-recorded" // 61.5 s to transcribe again
	delete(p.fs, "build/transcripts/a.srt")          // rendered from a.json: free
	limit := 61.5
	p.m.Budget = &manifest.Budget{MaxAudioSeconds: &limit, Pos: budgetPos}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatalf("61.5 s refused at a 61.5 s budget: %v", err)
	}
	if plan.Cost.AudioSeconds != 61.5 || len(plan.Actions) != 2 {
		t.Fatalf("cost %+v, %d actions", plan.Cost, len(plan.Actions))
	}
	limit = 61
	if _, err := p.plan(t, st, planner.Options{}); !errors.Is(err, planner.ErrBudget) {
		t.Fatalf("61.5 s accepted at a 61 s budget: %v", err)
	}
}

// TestBudgetNamesEveryLimit: a plan over both limits says so for both;
// a plan at the character limit is accepted.
func TestBudgetNamesEveryLimit(t *testing.T) {
	p := baseProject()
	chars, secs := int64(100), 600.0
	p.m.Budget = &manifest.Budget{MaxCharacters: &chars, MaxAudioSeconds: &secs, Pos: budgetPos}
	_, err := p.plan(t, nil, planner.Options{})
	want := "voxform.yaml:4:3: plan exceeds the budget: 154 billable characters, over budget.max_characters of 100; " +
		"0h13m32s of audio to transcribe, over budget.max_audio_seconds of 600 (0h10m00s)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	chars, secs = 154, 811.5
	if _, err := p.plan(t, nil, planner.Options{}); err != nil {
		t.Fatalf("a plan at both limits refused: %v", err)
	}
	chars = 153
	if _, err := p.plan(t, nil, planner.Options{}); err == nil || err.Error() !=
		"voxform.yaml:4:3: plan exceeds the budget: 154 billable characters, over budget.max_characters of 153" {
		t.Fatalf("err = %v", err)
	}
}
