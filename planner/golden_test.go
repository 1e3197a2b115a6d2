package planner_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// scenario changes a project after a first apply, then plans.
type scenario struct {
	name  string
	fresh bool             // plan against an empty state
	setup func(p *project) // before the first apply
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
		details := r.Edit()
		r.Status, details.JobID, details.JobAPI = state.StatusPending, "job-42", "batch" // outputs of the version before stay recorded
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
	{name: "pending_job_cancelled", edit: func(p *project, st *state.File) {
		// b is no longer declared while its job runs; a's recording
		// changes while its job runs.
		for addr, job := range map[string]string{`transcription.calls["recordings/a.wav"]`: "job-7", `transcription.calls["recordings/b.wav"]`: "job-42"} {
			r := st.Resources[addr]
			details := r.Edit()
			r.Status, details.JobID, details.JobAPI = state.StatusPending, job, "batch"
		}
		p.m.Transcriptions = p.m.Transcriptions[:1]
		p.fs["recordings/a.wav"] = "call a, re-recorded"
	}},
	{name: "pending_without_job_id", edit: func(p *project, st *state.File) {
		// Written by hand: nothing to resume, so the input is paid again.
		r := st.Resources[`transcription.calls["recordings/b.wav"]`]
		details := r.Edit()
		r.Status, details.JobID, details.JobAPI = state.StatusPending, "", ""
	}},
	{name: "source_url_changed", setup: func(p *project) {
		p.m.Transcriptions = append(p.m.Transcriptions, urlTranscription("https://media.example.com/calls/c.mp3"))
	}, edit: func(p *project, st *state.File) {
		// A state edited by hand: the address names one URL, the recorded
		// request another (the manifest cannot make this, since the
		// address is the URL).
		r := st.Resources[`transcription.remote["https://media.example.com/calls/c.mp3"]`]
		r.Request["source"] = map[string]any{"url": "https://media.example.com/calls/old.mp3"}
		r.Fingerprint = "recorded-by-hand"
	}},
	{name: "output_not_recorded", edit: func(p *project, st *state.File) {
		// A state entry without outputs (written by hand or by another
		// tool): the file on disk is not known to be this request's.
		st.Resources[`synthesis.menu["billing"]`].Outputs = nil
	}},
	{name: "fingerprint_changed", edit: func(p *project, st *state.File) {
		// A state without the recorded request cannot say which field
		// changed.
		st.Resources["synthesis.welcome"].Request = nil
		p.synthesis("synthesis.welcome").Text = "<excited> नमस्ते!"
	}},
	{name: "embedding_file_changed", setup: func(p *project) {
		p.fs["voices/guest.json"] = `{"embedding":"AAA"}`
		guest := &manifest.Voice{Name: "guest", Address: "voice.guest", Model: "vc-v1", EmbeddingFile: "voices/guest.json"}
		p.m.Voices = append(p.m.Voices, guest)
		p.m.Syntheses = append(p.m.Syntheses, synth("guest_intro", "", "guest", guest, "Hi, I am the guest.", "build/guest/intro.wav"))
	}, edit: func(p *project, st *state.File) {
		p.fs["voices/guest.json"] = `{"embedding":"BBB"}`
	}},
	{name: "listen_create", fresh: true, setup: withListen(2)},
	{name: "listen_recorded", setup: withListen(1), edit: recordChecks},
	{name: "listen_no_changes_failing", setup: withListen(0), edit: func(p *project, st *state.File) {
		recordChecks(p, st)
		p.synthesis("synthesis.founder_outro").Text = "Thank you for listening."
		for _, addr := range []string{"synthesis.welcome", "synthesis.founder_intro", "synthesis.chapter"} {
			st.Resources[addr].Edit().Chunks = nil
			p.m.Syntheses = removeSynthesis(p.m.Syntheses, addr)
			delete(st.Resources, addr)
		}
		p.m.Syntheses = removeSynthesis(p.m.Syntheses, "synthesis.founder_outro")
		delete(st.Resources, "synthesis.founder_outro")
	}},
	{name: "listen_budget_worst_case", fresh: true, setup: withListen(2), edit: func(p *project, st *state.File) {
		p.m.Budget = &manifest.Budget{MaxCharacters: new(int64), Pos: manifest.Pos{File: "voxform.yaml", Line: 3, Col: 3}}
		*p.m.Budget.MaxCharacters = 3000
	}},
	{name: "cloned_voice_switch", setup: func(p *project) {
		p.fs["refs/guest.wav"] = "guest reference"
		p.m.Embeddings = append(p.m.Embeddings, &manifest.Embedding{Name: "guest", Address: "embedding.guest",
			ReferenceAudio: "refs/guest.wav", Output: "build/voices/guest.json", Consent: "release form 2026-10-02"})
	}, edit: func(p *project, st *state.File) {
		// founder_intro now speaks as the guest; welcome moves from a stock
		// voice to the founder's; founder_outro to a stock voice.
		guest := &manifest.Voice{Name: "guest", Address: "voice.guest", Model: "vc-v1", Embedding: "guest"}
		founder, narrator := p.m.Voices[1], p.m.Voices[2]
		p.m.Voices = append(p.m.Voices, guest)
		for addr, v := range map[string]*manifest.Voice{"synthesis.founder_intro": guest, "synthesis.welcome": founder, "synthesis.founder_outro": narrator} {
			s := p.synthesis(addr)
			*s = *synth(s.Name, "", v.Name, v, s.Text, s.Output)
		}
	}},
}

// urlTranscription is a batch transcription of one public URL.
func urlTranscription(url string) *manifest.Transcription {
	return &manifest.Transcription{Name: "remote", Key: url, Address: fmt.Sprintf("transcription.remote[%q]", url),
		Input: url, IsURL: true, API: "batch", Model: "stt-v2.5", LanguageCode: "hi-IN",
		Formats: []string{"json"}, Outputs: map[string]string{"json": "build/remote/c.json"}, OutputDir: "build/remote"}
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

// prepare makes the scenario's project and its state (nil when fresh),
// then edits them.
func (sc scenario) prepare(t *testing.T) (*project, *state.File) {
	t.Helper()
	p := baseProject()
	if sc.setup != nil {
		sc.setup(p)
	}
	var st *state.File
	if !sc.fresh {
		st = p.apply(t)
	}
	if sc.edit != nil {
		sc.edit(p, st)
	}
	return p, st
}

func TestPlanGolden(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			p, st := sc.prepare(t)
			plan, err := p.plan(t, st, sc.opts)
			var out bytes.Buffer
			if plan != nil {
				if rerr := planview.Render(&out, plan, planview.Options{}); rerr != nil {
					t.Fatal(rerr)
				}
				out.WriteString("\n--- json\n")
				if jerr := planview.WriteJSON(&out, plan, p.m.Budget); jerr != nil {
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
