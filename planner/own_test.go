package planner_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// Which paths an action may replace: recorded outputs, outputs written by a
// process killed before its record (same content only), and anything with
// -overwrite; any other file at an output path refuses the action.
func TestOwnershipOfOutputPaths(t *testing.T) {
	const out = "build/ivr/welcome.wav"
	for _, tc := range []struct {
		name       string
		edit       func(p *project, st *state.File)
		overwrite  bool
		refused    bool
		untargeted bool   // plan everything, not only synthesis.welcome
		why        string // in the refusal
	}{
		{name: "free path", edit: func(p *project, st *state.File) { delete(p.fs, out) }},
		{name: "a file voxform did not make", refused: true},
		{name: "with -overwrite", overwrite: true},
		{name: "written by a killed apply", edit: func(p *project, st *state.File) {
			h, _ := p.fs.hash(out)
			st.Written = []state.Written{{Path: out, Address: "synthesis.welcome", SHA256: h.SHA256}}
		}},
		{name: "written by a killed apply, changed since", refused: true, edit: func(p *project, st *state.File) {
			st.Written = []state.Written{{Path: out, Address: "synthesis.welcome", SHA256: "0000"}}
		}},
		{name: "the output of a resource this plan deletes", untargeted: true, edit: func(p *project, st *state.File) {
			h, _ := p.fs.hash(out)
			st.Resources["synthesis.old"] = &state.Resource{Kind: "synthesis", Status: state.StatusComplete,
				Outputs: []state.Output{{Path: out, SHA256: h.SHA256}}}
		}},
		{name: "recorded by a resource this plan deletes, changed since", untargeted: true, refused: true, edit: func(p *project, st *state.File) {
			st.Resources["synthesis.old"] = &state.Resource{Kind: "synthesis", Status: state.StatusComplete,
				Outputs: []state.Output{{Path: out, SHA256: "1111"}}}
		}},
		{name: "the output of a resource this plan does not change", refused: true, why: "holds the output of synthesis.old", edit: func(p *project, st *state.File) {
			h, _ := p.fs.hash(out)
			st.Resources["synthesis.old"] = &state.Resource{Kind: "synthesis", Status: state.StatusComplete,
				Outputs: []state.Output{{Path: out, SHA256: h.SHA256}}}
		}},
		{name: "this resource's output, changed since", refused: true, why: "changed since voxform wrote it", edit: func(p *project, st *state.File) {
			st.Resources["synthesis.welcome"] = &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: "old",
				Outputs: []state.Output{{Path: out, SHA256: "1111"}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseProject()
			p.fs[out] = "somebody's file"
			st := &state.File{Version: 1, Resources: map[string]*state.Resource{}}
			if tc.edit != nil {
				tc.edit(p, st)
			}
			opts := planner.Options{Targets: []string{"synthesis.welcome"}, Overwrite: tc.overwrite}
			if tc.untargeted {
				opts.Targets = nil
			}
			plan, err := p.plan(t, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			a := plan.Action("synthesis.welcome")
			if (a.Details().Refused != "") != tc.refused {
				t.Fatalf("refused = %q, want refused %v", a.Details().Refused, tc.refused)
			}
			if tc.refused && (!strings.Contains(a.Details().Refused, out) || !strings.Contains(a.Details().Refused, tc.why)) {
				t.Errorf("the refusal does not name the file: %q", a.Details().Refused)
			}
			_, exists := p.fs[out]
			if want := exists && !tc.refused; a.MayReplace(out) != want {
				t.Errorf("MayReplace = %v, want %v", a.MayReplace(out), want)
			}
		})
	}
}

// A plan refuses paths the file system check refuses, naming the action.
func TestCheckPathsNamesTheAction(t *testing.T) {
	p := baseProject()
	plan, err := p.plan(t, nil, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = plan.CheckPaths(func(path string) error {
		if path == "build/ivr/welcome.wav" {
			return &testErr{}
		}
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "synthesis.welcome: output ") {
		t.Fatalf("CheckPaths: %v", err)
	}
}

type testErr struct{}

func (*testErr) Error() string { return "refused" }

// A recorded output that the manifest now reads as an input is not
// deleted with the resource that wrote it.
func TestDeleteKeepsAnOutputNowAnInput(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	// The recording b.wav was the output of a synthesis now removed.
	h, _ := p.fs.hash("recordings/b.wav")
	st.Resources["synthesis.old"] = &state.Resource{Kind: "synthesis", Status: state.StatusComplete,
		Outputs: []state.Output{{Path: "recordings/b.wav", SHA256: h.SHA256}}}
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Action("synthesis.old")
	if a == nil || a.Type != planner.Delete || len(a.Details().Removes) != 0 {
		t.Fatalf("delete of synthesis.old: %+v", a)
	}
}

// An output a killed apply renamed into place for exactly the planned
// request is recorded for free; one made for another request is paid for
// (and may be replaced).
func TestAdoptWrittenOutput(t *testing.T) {
	p := baseProject()
	var fp string
	for _, d := range p.desired(t) {
		if d.Address == "synthesis.welcome" {
			fp = d.Fingerprint
		}
	}
	const out = "build/ivr/welcome.wav"
	p.fs[out] = "audio a killed apply wrote"
	h, _ := p.fs.hash(out)
	for _, tc := range []struct {
		fingerprint string
		want        planner.ActionType
	}{{fp, planner.Move}, {"another request", planner.Create}} {
		st := &state.File{Version: 1, Resources: map[string]*state.Resource{},
			Written: []state.Written{{Path: out, Address: "synthesis.welcome", SHA256: h.SHA256, Size: h.Size, Fingerprint: tc.fingerprint}}}
		plan, err := p.plan(t, st, planner.Options{Targets: []string{"synthesis.welcome"}})
		if err != nil {
			t.Fatal(err)
		}
		a := plan.Action("synthesis.welcome")
		if a.Type != tc.want || a.Details().Refused != "" {
			t.Errorf("fingerprint %q: %s (refused %q), want %s", tc.fingerprint, a.Type, a.Details().Refused, tc.want)
		}
		if tc.want == planner.Move && (a.Cost != planner.Cost{} || a.Prior.Outputs[0].SHA256 != h.SHA256) {
			t.Errorf("adopted output costs %+v, records %+v", a.Cost, a.Prior.Outputs)
		}
	}
}

// The paths an action may overwrite are listed in order, whatever the
// order of its outputs (a plan file is the same from run to run).
func TestOverwriteSorted(t *testing.T) {
	p := baseProject()
	tr := p.m.Transcriptions[0]
	tr.Outputs = map[string]string{"json": "z/a.json", "txt": "y/a.txt", "srt": "x/a.srt"} // paths in no format's order
	for _, path := range tr.Outputs {
		p.fs[path] = "somebody's file"
	}
	st := &state.File{Version: 1, Resources: map[string]*state.Resource{}}
	plan, err := p.plan(t, st, planner.Options{Targets: []string{tr.Address}, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Action(tr.Address)
	want := []string{"x/a.srt", "y/a.txt", "z/a.json"}
	if got := a.Details().Overwrite; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("overwrite %v, want %v", got, want)
	}
}
