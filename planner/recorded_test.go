package planner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/deliver"
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
	s.Edit().Recorded = &manifest.Recorded{Path: "studio/billing.wav"}

	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := actionOf(plan, addr)
	if a == nil || a.Type != planner.Replace || !a.Cost.IsZero() || !slices.Equal(a.Reasons, []string{"recorded: added (from recording studio/billing.wav)"}) {
		t.Fatalf("recorded: added: want a free replace saying so, got %+v", a)
	}
	if a.Desired.Details().Recorded == nil || a.Desired.Details().Recorded.SHA256 == "" || a.Desired.Characters != 0 || a.Desired.Wire.Synthesis.Text != s.Text {
		t.Errorf("the recorded synthesis's desired: %+v (text %q)", a.Desired.Details().Recorded, a.Desired.Wire.Synthesis.Text)
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
	s.Edit().Recorded = nil
	a = actionOf(mustPlan(t, p, st), addr)
	if a == nil || a.Type != planner.Replace || a.Cost.Characters != int64(len([]rune(s.Text))) ||
		!slices.Equal(a.Reasons, []string{"recorded: removed, synthesized"}) {
		t.Fatalf("recorded: removed: want a billed replace saying so, got %+v", a)
	}

	s.Edit().Recorded = &manifest.Recorded{Path: "studio/missing.wav"}
	if _, err := planner.Build(p.m, p.fs.hash); err == nil || !strings.Contains(err.Error(), "recording studio/missing.wav: no such file") {
		t.Errorf("a missing recording: %v", err)
	}
}

// TestRecordedCreate: a new recorded synthesis is created free, from its
// recording, by a plan that does not call the service.
func TestRecordedCreate(t *testing.T) {
	p := baseProject()
	p.fs["studio/sales.wav"] = "take"
	p.synthesis(`synthesis.menu["sales"]`).Edit().Recorded = &manifest.Recorded{Path: "studio/sales.wav"}
	st := p.apply(t)
	for _, o := range st.Resources[`synthesis.menu["sales"]`].Outputs {
		delete(p.fs, o.Path)
	}
	delete(st.Resources, `synthesis.menu["sales"]`)
	plan := mustPlan(t, p, st)
	a := actionOf(plan, `synthesis.menu["sales"]`)
	if a == nil || a.Type != planner.Create || !a.Cost.IsZero() || !slices.Equal(a.Reasons, []string{"from recording studio/sales.wav"}) {
		t.Fatalf("want a free create from the recording, got %+v", a)
	}
	if len(plan.Actions) != 1 || plan.CallsService() {
		t.Errorf("a plan of one recording (%d actions) calls the service: %v, want false (no key is asked for)", len(plan.Actions), plan.CallsService())
	}
}

// TestRecordedEncoder: a recording for an mp3 output with convert: true
// is encoded: the plan that makes it asks for the encoder of
// contract.RecordingProfile as it does a delivery's, and without one it
// fails, naming the recording and the resources; an unchanged recorded
// output needs no encoder, and nothing is asked without convert: true
// or for a wav output; a plan for pull's restores leaves the encoding to
// apply without asking. The fingerprint does not follow the encoder: a new
// ffmpeg leaves the approved bytes alone.
func TestRecordedEncoder(t *testing.T) {
	const addr = `synthesis.menu["billing"]`
	p := baseProject()
	asked := 0
	var refused error
	p.enc = func(prof *deliver.Profile) (string, error) {
		asked++
		if prof.Encoding.Codec != deliver.CodecMP3 || prof.Encoding.Bitrate != 64000 || prof.Loudness != nil {
			t.Errorf("asked for %+v, want an mp3 encoding at 64 kbit/s and no other rule", prof)
		}
		return "ffmpeg 1", refused
	}
	st := p.apply(t)
	p.fs["studio/billing.wav"] = "take 1"
	s := p.synthesis(addr)
	s.Edit().Recorded = &manifest.Recorded{Path: "studio/billing.wav"}
	s.AudioConfig = &manifest.AudioConfig{Container: "mp3", Bitrate: "64k", SampleRate: 16000}
	if a := actionOf(mustPlan(t, p, st), addr); a == nil || a.Desired.Details().Recorded.Encode != "" || asked != 0 {
		t.Fatalf("without convert: true the encoder is asked %d times, recorded %+v", asked, a)
	}
	s.Edit().Recorded.Convert = true
	if a := actionOf(mustPlan(t, p, st), addr); a == nil || a.Type != planner.Replace || a.Desired.Details().Recorded.Encode != "mp3" || asked != 1 {
		t.Fatalf("an encoded recording: the encoder asked %d times, action %+v", asked, a)
	}
	refused = errors.New("needs ffmpeg to encode mp3: not installed")
	p.fs["studio/support.wav"] = "take 1"
	other := p.synthesis(`synthesis.menu["support"]`)
	other.Edit().Recorded = &manifest.Recorded{Path: "studio/support.wav", Convert: true}
	other.AudioConfig = s.AudioConfig
	_, err := p.plan(t, st, planner.Options{})
	if err == nil || !strings.Contains(err.Error(), "recordings cannot be encoded:\n  recorded: (convert: true, an mp3 output) needs ffmpeg to encode mp3: not installed (needed by "+addr+" and 1 more)") {
		t.Fatalf("no encoder: %v", err)
	}
	if plan, err := p.plan(t, st, planner.Options{Restoring: true}); err != nil || actionOf(plan, addr) == nil {
		t.Fatalf("a plan for pull's restores refuses what it leaves for apply: %v", err)
	}
	refused, asked = nil, 0
	st = p.apply(t)
	refused = errors.New("not installed")
	if plan := mustPlan(t, p, st); actionOf(plan, addr) != nil || asked != 0 {
		t.Errorf("an unchanged encoded recording without an encoder: asked %d times, %+v", asked, actionOf(plan, addr))
	}
	s.AudioConfig = &manifest.AudioConfig{Container: "wav", SampleRate: 16000}
	asked = 0
	if a := actionOf(mustPlan(t, p, st), addr); a == nil || a.Desired.Details().Recorded.Encode != "" || asked != 0 {
		t.Errorf("a wav output: the encoder asked %d times, %+v", asked, a)
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

// TestRecordedNeverRestoredFresh: a recorded synthesis's fingerprint is
// predictable (the recording's hash, its path, convert, the converter,
// the format), so whoever writes the cache can put any audio under it.
// A create or a replace of one is made from the recording, free and
// exact, even when the cache holds an entry under its fingerprint; only
// a repair of what the state records may take the cache's bytes, and
// only when they are the recorded ones.
func TestRecordedNeverRestoredFresh(t *testing.T) {
	const addr = `synthesis.menu["billing"]`
	forged := planner.CachedFile{SHA256: strings.Repeat("0f", 32), Size: 10}
	plan := func(t *testing.T, p *project, st *state.File, audio planner.CachedFile) *planner.Action {
		t.Helper()
		in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash, Probe: probe, Options: planner.Options{Cache: planner.CacheOn}}
		in.Cached = func(fps []string) (map[string]string, error) {
			out := map[string]string{}
			for _, fp := range fps {
				out[fp] = "file:///remote"
			}
			return out, nil
		}
		in.CachedFiles = func(fps []string) (map[string]planner.CachedEntry, error) {
			out := map[string]planner.CachedEntry{}
			for _, fp := range fps {
				out[fp] = planner.CachedEntry{From: "file:///remote", Kind: string(manifest.KindSynthesis), Files: map[string]planner.CachedFile{"audio": audio}}
			}
			return out, nil
		}
		pl, err := planner.Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		return actionOf(pl, addr)
	}
	recorded := func() *project {
		p := baseProject()
		p.fs["studio/billing.wav"] = "take 1"
		p.synthesis(addr).Edit().Recorded = &manifest.Recorded{Path: "studio/billing.wav"}
		return p
	}
	for _, tc := range []struct {
		name  string
		state func(t *testing.T) (*project, *state.File)
		want  planner.ActionType
	}{
		{name: "a create", want: planner.Create, state: func(t *testing.T) (*project, *state.File) {
			return recorded(), nil
		}},
		{name: "recorded: added", want: planner.Replace, state: func(t *testing.T) (*project, *state.File) {
			p := baseProject()
			st := p.apply(t)
			p.fs["studio/billing.wav"] = "take 1"
			p.synthesis(addr).Edit().Recorded = &manifest.Recorded{Path: "studio/billing.wav"}
			return p, st
		}},
		{name: "a new take", want: planner.Replace, state: func(t *testing.T) (*project, *state.File) {
			p := recorded()
			st := p.apply(t)
			p.fs["studio/billing.wav"] = "take 2"
			return p, st
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, st := tc.state(t)
			if st == nil {
				st = &state.File{Version: 1, Lineage: "lineage-1", Resources: map[string]*state.Resource{}}
			}
			if a := plan(t, p, st, forged); a == nil || a.Type != tc.want || a.Details().RestoreFrom != "" || !a.Cost.IsZero() {
				t.Fatalf("with an entry under its fingerprint: %+v, want a free %s from the recording", a, tc.want)
			}
		})
	}

	// A missing output of an applied recording: a repair, restored only
	// from an entry holding the recorded bytes.
	p := recorded()
	st := p.apply(t)
	o := st.Resources[addr].Outputs[0]
	delete(p.fs, o.Path)
	if a := plan(t, p, st, planner.CachedFile{SHA256: o.SHA256, Size: o.Size}); a == nil || a.Type != planner.Restore || a.Details().RestoreFrom != "file:///remote" {
		t.Errorf("a missing recorded output, the cache holding its bytes: %+v, want a restore", a)
	}
	if a := plan(t, p, st, forged); a == nil || a.Type == planner.Restore {
		t.Errorf("a missing recorded output, the cache holding other bytes: %+v, want no restore", a)
	}
}

// TestRecordedListenPriced: the listening check of a recorded synthesis
// is priced at its recording's duration (Input.Probe) and
// RecordedCheckSlack, not at an estimate from the characters it bills
// (none); a recording that cannot be probed is estimated from its text.
func TestRecordedListenPriced(t *testing.T) {
	const addr = `synthesis.menu["billing"]`
	p := baseProject()
	p.fs["studio/billing.wav"] = "take 1"
	s := p.synthesis(addr)
	s.Edit().Recorded = &manifest.Recorded{Path: "studio/billing.wav"}
	s.Edit().Listen = listenSpec(0, "limits-1")
	a := actionOf(mustPlan(t, p, nil), addr)
	if want := 750 + planner.RecordedCheckSlack; a == nil || a.Listen == nil || a.Listen.Make != 1 || a.Listen.Estimated ||
		a.Cost.Characters != 0 || a.Cost.AudioSeconds != want {
		t.Fatalf("a recorded synthesis's check: %+v (%+v), want %g s of audio, not estimated", a, a.Listen, want)
	}
	st := &state.File{Version: 1, Lineage: "lineage-1", Resources: map[string]*state.Resource{}}
	in := planner.Input{Desired: p.desired(t), State: st, Hash: p.fs.hash,
		Probe: func(string) (float64, error) { return 0, errors.New("not audio") }}
	plan, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if a := actionOf(plan, addr); a == nil || !a.Listen.Estimated ||
		a.Cost.AudioSeconds != planner.EstimatedSeconds(int64(len([]rune(s.Text))), 0) {
		t.Fatalf("a recording that cannot be probed: %+v, want its text's estimate", a)
	}
}
