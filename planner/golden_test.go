package planner_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// scenario changes a project after a first apply, then plans.
type scenario struct {
	name  string
	fresh bool // plan against an empty state
	edit  func(p *project, st *state.File)
	opts  planner.Options
}

var scenarios = []scenario{
	{name: "create_all", fresh: true},
	{name: "no_changes"},
	{name: "for_each_edit_add_remove", edit: func(p *project, st *state.File) {
		p.synthesis(`synthesis.menu["billing"]`).Text = "बिलिंग के लिए कृपया एक दबाएँ"
		narrator := p.m.Voices[2]
		p.m.Syntheses = append(p.m.Syntheses, synth("menu", "hours", "narrator", narrator, "समय जानने के लिए चार दबाएँ", "build/ivr/menu/hours.wav"))
		p.m.Syntheses = removeSynthesis(p.m.Syntheses, `synthesis.menu["sales"]`)
	}},
	{name: "voice_change", edit: func(p *project, st *state.File) {
		for _, s := range p.m.Syntheses {
			if s.Voice == "narrator" {
				s.VoiceName = "Deepak"
			}
		}
	}},
	{name: "reference_audio_cascade", edit: func(p *project, st *state.File) {
		p.fs["refs/founder.wav"] = "founder reference v2, a better take"
	}},
	{name: "repair", edit: func(p *project, st *state.File) {
		delete(p.fs, "build/ivr/menu/support.wav")
		p.fs["build/ivr/welcome.wav"] = "edited in an audio editor"
	}},
	{name: "move", edit: func(p *project, st *state.File) {
		p.synthesis("synthesis.welcome").Output = "build/ivr/hello.wav"
		// Moved by hand already: the new path holds the recorded content.
		s := p.synthesis(`synthesis.menu["billing"]`)
		p.fs["build/ivr/menu/billing-v2.wav"] = p.fs[s.Output]
		delete(p.fs, s.Output)
		s.Output = "build/ivr/menu/billing-v2.wav"
	}},
	{name: "moved_and_modified", edit: func(p *project, st *state.File) {
		s := p.synthesis("synthesis.welcome")
		p.fs[s.Output] = "edited by hand"
		s.Output = "build/ivr/hello.wav"
	}},
	{name: "rename_for_each_key", edit: func(p *project, st *state.File) {
		s := p.synthesis(`synthesis.menu["support"]`)
		s.Key, s.Address, s.Output = "helpdesk", `synthesis.menu["helpdesk"]`, "build/ivr/menu/helpdesk.wav"
	}},
	{name: "resume_pending_job", edit: func(p *project, st *state.File) {
		r := st.Resources[`transcription.calls["recordings/b.wav"]`]
		r.Status, r.JobID, r.JobAPI, r.Outputs = state.StatusPending, "job-42", "batch", nil
	}},
	{name: "transcription_changes", edit: func(p *project, st *state.File) {
		p.fs["recordings/a.wav"] = "call a, re-recorded"
		t := p.m.Transcriptions[1]
		t.Formats = []string{"json", "txt", "vtt"}
		delete(t.Outputs, "srt")
		t.Outputs["vtt"] = "build/transcripts/b.vtt"
	}},
	{name: "audio_config_change", edit: func(p *project, st *state.File) {
		p.synthesis("synthesis.welcome").AudioConfig = &manifest.AudioConfig{Container: "mulaw", SampleRate: 24000}
		p.synthesis(`synthesis.menu["sales"]`).Speed = fptr(1.15)
	}},
	{name: "target_includes_dependencies", opts: planner.Options{Targets: []string{"synthesis.founder_intro"}}, edit: func(p *project, st *state.File) {
		p.fs["refs/founder.wav"] = "founder reference v2"
		p.synthesis(`synthesis.menu["billing"]`).Text = "not targeted"
	}},
	{name: "target_block", opts: planner.Options{Targets: []string{"synthesis.menu"}}, edit: func(p *project, st *state.File) {
		p.synthesis(`synthesis.menu["billing"]`).Text = "बिलिंग"
		p.synthesis("synthesis.welcome").Text = "not targeted"
	}},
	{name: "replace_flag", opts: planner.Options{Replace: []string{`synthesis.menu["sales"]`, "embedding.founder"}}},
	{name: "destroy", opts: planner.Options{Destroy: true}},
	{name: "no_refresh_trusts_state", opts: planner.Options{NoRefresh: true}, edit: func(p *project, st *state.File) {
		delete(p.fs, "build/ivr/welcome.wav")
	}},
	{name: "budget_exceeded", fresh: true, edit: func(p *project, st *state.File) {
		p.m.Budget = &manifest.Budget{MaxCharacters: new(int64), Pos: manifest.Pos{File: "voxform.yaml", Line: 3, Col: 3}}
		*p.m.Budget.MaxCharacters = 100
	}},
}

func removeSynthesis(list []*manifest.Synthesis, addr string) []*manifest.Synthesis {
	var out []*manifest.Synthesis
	for _, s := range list {
		if s.Address != addr {
			out = append(out, s)
		}
	}
	return out
}

func TestPlanGolden(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			p := baseProject()
			var st *state.File
			if !sc.fresh {
				st = p.apply(t)
			}
			if sc.edit != nil {
				sc.edit(p, st)
			}
			plan, err := p.plan(t, st, sc.opts)
			var out bytes.Buffer
			if plan != nil {
				if rerr := plan.Render(&out, planner.RenderOptions{}); rerr != nil {
					t.Fatal(rerr)
				}
				out.WriteString("\n--- json\n")
				if jerr := plan.WriteJSON(&out, p.m.Budget); jerr != nil {
					t.Fatal(jerr)
				}
			}
			if err != nil {
				out.WriteString("\n--- error\n" + err.Error() + "\n")
			}
			golden(t, sc.name, out.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
