package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// TestEmbeddingReasons: a replaced synthesis in a cloned voice says whether
// its embedding changed or it changed embeddings.
func TestEmbeddingReasons(t *testing.T) {
	file := &manifest.Voice{Name: "ext", Address: "voice.ext", Model: "vc-v1", EmbeddingFile: "voices/ext.json"}
	tests := []struct {
		name string
		edit func(p *project)
		want []string
	}{
		{name: "embedding to file", edit: func(p *project) {
			s := p.synthesis("synthesis.founder_intro")
			*s = *synth(s.Name, "", "ext", file, s.Text, s.Output)
		}, want: []string{"embedding founder -> file voices/ext.json"}},
		{name: "reference recording changed", edit: func(p *project) {
			p.fs["refs/founder.wav"] = "another take"
		}, want: []string{"embedding founder changed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := baseProject()
			p.fs["voices/ext.json"] = `{"embedding":"AAA"}`
			st := p.apply(t)
			tc.edit(p)
			plan, err := p.plan(t, st, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a := plan.Action("synthesis.founder_intro")
			if a == nil || a.Type != planner.Replace {
				t.Fatalf("action = %+v", a)
			}
			if diff := cmp.Diff(tc.want, a.Reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}

	// File to embedding.
	p := baseProject()
	p.fs["voices/ext.json"] = `{"embedding":"AAA"}`
	s := p.synthesis("synthesis.founder_intro")
	founder := p.m.Voices[1]
	*s = *synth(s.Name, "", "ext", file, s.Text, s.Output)
	st := p.apply(t)
	*s = *synth(s.Name, "", "founder", founder, s.Text, s.Output)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"embedding file -> founder"}, plan.Action("synthesis.founder_intro").Reasons); diff != "" {
		t.Errorf("file to embedding (-want +got):\n%s", diff)
	}
}

// TestEmbeddingChangedInAnEarlierApply: the embedding was replaced by a
// targeted apply; its syntheses, planned later, still say it changed
// although the state already holds its new fingerprint.
func TestEmbeddingChangedInAnEarlierApply(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.fs["refs/founder.wav"] = "another take"
	for _, d := range p.desired(t) {
		if d.Address == "embedding.founder" {
			st.Resources[d.Address].Fingerprint = d.Fingerprint
			st.Resources[d.Address].Request = d.RequestFields()
		}
	}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := addresses(plan); !cmp.Equal(got, []string{"synthesis.founder_intro", "synthesis.founder_outro"}) {
		t.Fatalf("actions %v", got)
	}
	for _, a := range plan.Actions {
		if diff := cmp.Diff([]string{"embedding founder changed"}, a.Reasons); diff != "" {
			t.Errorf("%s (-want +got):\n%s", a.Address, diff)
		}
	}
}
