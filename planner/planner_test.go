package planner_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// conformance: TTS-060, TTS-076
func TestBilledCharactersCountTagsAndCodePoints(t *testing.T) {
	tests := []struct {
		text string
		want int64
	}{
		{"hello", 5},
		{"<laugh>", 7},             // tags count, angle brackets included
		{"<clears throat> hi", 18}, // inner space included
		{"नमस्ते", 6},              // code points, not bytes (18) nor graphemes (3)
		{"<excited> नमस्ते! आपका", 22}, // the whole string: 9+1+6+1+1+4
		{"", 0},
	}
	for _, tc := range tests {
		if got := planner.BilledCharacters(tc.text); got != tc.want {
			t.Errorf("BilledCharacters(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
	// The plan's cost sums exactly that over the syntheses to create.
	p := baseProject()
	plan, err := p.plan(t, nil, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, s := range p.m.Syntheses {
		want += planner.BilledCharacters(s.Text)
	}
	if plan.Cost.Characters != want || want != 154 {
		t.Errorf("plan characters = %d, want %d (154)", plan.Cost.Characters, want)
	}
}

func fingerprintOf(t *testing.T, edit func(s *manifest.Synthesis)) string {
	t.Helper()
	p := baseProject()
	s := p.synthesis("synthesis.welcome")
	s.Model, s.VoiceName = "tts-v2.5", "Kaveri"
	edit(s)
	for _, d := range p.desired(t) {
		if d.Address == "synthesis.welcome" {
			return d.Fingerprint
		}
	}
	t.Fatal("no welcome")
	return ""
}

func TestFingerprintInvariants(t *testing.T) {
	base := fingerprintOf(t, func(*manifest.Synthesis) {})
	same := map[string]func(s *manifest.Synthesis){
		"output path":           func(s *manifest.Synthesis) { s.Output = "elsewhere.wav" },
		"transport":             func(s *manifest.Synthesis) { s.Transport = "websocket" },
		"explicit medium speed": func(s *manifest.Synthesis) { s.Speed = fptr(1.0) },
		"explicit defaults": func(s *manifest.Synthesis) {
			s.AudioConfig = &manifest.AudioConfig{Container: "wav", SampleRate: 48000, NumChannels: 1, SampleWidth: 2, Encoding: "linear_pcm"}
		},
		"position": func(s *manifest.Synthesis) { s.Pos = manifest.Pos{File: "x.yaml", Line: 9} },
	}
	for name, edit := range same {
		if got := fingerprintOf(t, edit); got != base {
			t.Errorf("%s changed the fingerprint", name)
		}
	}
	differ := map[string]func(s *manifest.Synthesis){
		"text":        func(s *manifest.Synthesis) { s.Text += "!" },
		"voice":       func(s *manifest.Synthesis) { s.VoiceName = "Deepak" },
		"language":    func(s *manifest.Synthesis) { s.Language = "ta-IN" },
		"speed":       func(s *manifest.Synthesis) { s.Speed = fptr(0.85) },
		"sample rate": func(s *manifest.Synthesis) { s.AudioConfig = &manifest.AudioConfig{SampleRate: 24000} },
		"model":       func(s *manifest.Synthesis) { s.Model = "tts-v3.0" },
	}
	seen := map[string]string{base: "base"}
	for name, edit := range differ {
		got := fingerprintOf(t, edit)
		if other, dup := seen[got]; dup {
			t.Errorf("%s: fingerprint equals that of %s", name, other)
		}
		seen[got] = name
	}
	// Documented aliases and forced rates give the same request.
	mulaw := fingerprintOf(t, func(s *manifest.Synthesis) { s.AudioConfig = &manifest.AudioConfig{Container: "mulaw"} })
	aliases := map[string]*manifest.AudioConfig{
		"raw+pcm_mulaw":     {Container: "raw", Encoding: "pcm_mulaw"},
		"mulaw at 24000":    {Container: "mulaw", SampleRate: 24000},
		"mulaw, bitrate":    {Container: "mulaw", Bitrate: "64k"},
		"mulaw, width 1":    {Container: "mulaw", SampleWidth: 1},
		"raw+pcm_mulaw 16k": {Container: "raw", Encoding: "pcm_mulaw", SampleRate: 16000},
	}
	for name, ac := range aliases {
		if got := fingerprintOf(t, func(s *manifest.Synthesis) { s.AudioConfig = ac }); got != mulaw {
			t.Errorf("%s differs from container mulaw", name)
		}
	}
}

func TestFingerprintNeverHoldsSecretsOrPaths(t *testing.T) {
	p := baseProject()
	for _, d := range p.desired(t) {
		b := requestOf(t, d)
		for _, bad := range []string{"build/", "refs/founder.wav", "recordings/"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s: request holds path %q: %s", d.Address, bad, b)
			}
		}
	}
}

func TestCascadeOrderAndDependencies(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.fs["refs/founder.wav"] = "a new take"
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := addresses(plan)
	want := []string{"embedding.founder", "synthesis.founder_intro", "synthesis.founder_outro"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
	if plan.Actions[0].Address != "embedding.founder" {
		t.Errorf("first action %s, want the embedding", plan.Actions[0].Address)
	}
	for _, a := range plan.Actions[1:] {
		if diff := cmp.Diff([]string{"embedding.founder"}, a.DependsOn); diff != "" {
			t.Errorf("%s depends on: %s", a.Address, diff)
		}
	}
	if diff := cmp.Diff([]string{"synthesis.founder_intro", "synthesis.founder_outro"}, plan.Dependents("embedding.founder")); diff != "" {
		t.Error(diff)
	}
}

func TestDeleteNeverRemovesAClaimedPath(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	// Rename a block: a new address with new text writes the old path.
	s := p.synthesis("synthesis.welcome")
	s.Name, s.Address, s.Text = "greeting", "synthesis.greeting", "Welcome!"
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	del := plan.Action("synthesis.welcome")
	if del == nil || del.Type != planner.Delete || len(del.Details().Removes) != 0 {
		t.Fatalf("delete = %+v", del)
	}
	// A removed resource's own outputs are removed.
	p2 := baseProject()
	st2 := p2.apply(t)
	p2.m.Syntheses = removeSynthesis(p2.m.Syntheses, "synthesis.welcome")
	plan2, _ := p2.plan(t, st2, planner.Options{})
	if diff := cmp.Diff([]string{"build/ivr/welcome.wav"}, plan2.Action("synthesis.welcome").Details().Removes); diff != "" {
		t.Error(diff)
	}
}

func TestWriteWaitsForMoveAwayFromPath(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.synthesis("synthesis.welcome").Output = "build/ivr/hello.wav"
	expressive := p.m.Voices[0]
	p.m.Syntheses = append(p.m.Syntheses, synth("intro", "", "expressive", expressive, "New prompt", "build/ivr/welcome.wav"))
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Action("synthesis.intro")
	if a == nil || a.Type != planner.Create || !cmp.Equal(a.DependsOn, []string{"synthesis.welcome"}) {
		t.Fatalf("create = %+v", a)
	}
	if plan.Actions[len(plan.Actions)-1].Address != "synthesis.intro" {
		t.Errorf("create not after the move: %v", addresses(plan))
	}
}

func TestSwappedOutputsRefused(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	a, b := p.synthesis(`synthesis.menu["billing"]`), p.synthesis(`synthesis.menu["sales"]`)
	a.Output, b.Output = b.Output, a.Output
	_, err := p.plan(t, st, planner.Options{})
	if err == nil || !strings.Contains(err.Error(), "exchanged") {
		t.Fatalf("err = %v", err)
	}
}

func TestTargetAndReplaceErrors(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	for _, opts := range []planner.Options{
		{Targets: []string{"synthesis.nope"}},
		{Replace: []string{"synthesis.nope"}},
		{Destroy: true, Targets: []string{"synthesis.nope"}},
	} {
		if _, err := p.plan(t, st, opts); err == nil || !strings.Contains(err.Error(), "synthesis.nope") {
			t.Errorf("%+v: err = %v", opts, err)
		}
	}
	// A target naming only a recorded address deletes it.
	p.m.Syntheses = removeSynthesis(p.m.Syntheses, "synthesis.welcome")
	plan, err := p.plan(t, st, planner.Options{Targets: []string{"synthesis.welcome"}})
	if err != nil || !cmp.Equal(addresses(plan), []string{"synthesis.welcome"}) {
		t.Errorf("plan %v, err %v", addresses(plan), err)
	}
}

func TestMissingInputIsPositioned(t *testing.T) {
	p := baseProject()
	delete(p.fs, "refs/founder.wav")
	p.m.Embeddings[0].Fields = map[string]manifest.Pos{"reference_audio": {File: "voxform.yaml", Line: 12, Col: 22}}
	_, err := planner.Build(p.m, p.fs.hash)
	if err == nil || !strings.Contains(err.Error(), "voxform.yaml:12:22: reference audio refs/founder.wav: no such file") {
		t.Errorf("err = %v", err)
	}
}

func TestEmbeddingFileHashIsPartOfFingerprint(t *testing.T) {
	p := baseProject()
	v := &manifest.Voice{Name: "ext", Address: "voice.ext", Model: "vc-v1", EmbeddingFile: "voices/ext.json"}
	p.m.Syntheses = append(p.m.Syntheses, synth("ext", "", "ext", v, "Hi there", "build/ext.wav"))
	p.fs["voices/ext.json"] = `{"embedding":"AAA"}`
	st := p.apply(t)
	p.fs["voices/ext.json"] = `{"embedding":"BBB"}`
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Action("synthesis.ext")
	if a == nil || a.Type != planner.Replace || !cmp.Equal(a.Reasons, []string{"embedding file voices/ext.json changed"}) {
		t.Fatalf("action = %+v", a)
	}
}

func TestSavedPlanBinding(t *testing.T) {
	// The API key is where voxform finds it (the variable the manifest
	// names, and the default one), and a pre-signed URL's signature is
	// in the manifest: neither may reach the plan file.
	const key, defaultKey, signature = "sk-live-3f9a8c7e5d", "sk-default-77b1e0", "X-Amz-Signature=c0ffee5ecret"
	t.Setenv("MY_SPEECH_KEY", key)
	t.Setenv("VOXFORM_API_KEY", defaultKey)
	p := baseProject()
	p.m.Service.APIKeyEnv = "MY_SPEECH_KEY"
	signed := urlTranscription("https://media.example.com/calls/c.mp3")
	signed.Input += "?" + signature
	p.m.Transcriptions = append(p.m.Transcriptions, signed)
	st := p.apply(t)
	p.synthesis("synthesis.welcome").Text = "new words"
	plan, err := p.plan(t, st, planner.Options{Replace: []string{signed.Address}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := planner.NewSaved(plan, p.m, []string{"language=hi-IN"}, nil).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "https://media.example.com/calls/c.mp3") || !strings.Contains(buf.String(), "new words") {
		t.Fatalf("plan file lacks the replaced resources: %s", buf.String())
	}
	for _, secret := range []string{key, defaultKey, signature, "c0ffee5ecret"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("plan file holds %q: %s", secret, buf.String())
		}
	}
	load := func() *planner.SavedPlan {
		s, err := planner.ReadSaved(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load()
	if err := s.Check(st, p.m); err != nil {
		t.Fatalf("fresh plan refused: %v", err)
	}
	fresh, err := p.plan(t, st, s.Plan.Options)
	if err != nil {
		t.Fatal(err)
	}
	if err := planner.CompareSaved(fresh, s.Plan); err != nil {
		t.Fatalf("the same plan computed again is refused: %v", err)
	}
	if a := s.Plan.Action("synthesis.welcome"); a == nil || a.Desired.RequestFields()["text"] != "new words" {
		t.Fatalf("saved action = %+v", a)
	}
	if diff := cmp.Diff([]string{"language=hi-IN"}, s.Vars); diff != "" {
		t.Error(diff)
	}

	stale := *st
	stale.Serial++
	foreign := *st
	foreign.Lineage = "other"
	otherManifest := *p.m
	otherManifest.Hash = "changed"
	otherVars := *p.m
	otherVars.Variables = map[string]any{"language": "ta-IN"}
	cases := []struct {
		name string
		st   *state.File
		m    *manifest.Manifest
		want string
	}{
		{"stale", &stale, p.m, "the state changed since it was made (serial 1, now 2)"},
		{"foreign", &foreign, p.m, "made for another state"},
		{"manifest", st, &otherManifest, "the manifest changed"},
		{"variables", st, &otherVars, "variables differ"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := load().Check(tc.st, tc.m)
			if !errors.Is(err, planner.ErrStalePlan) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// An input changed after planning: the plan computed again differs
	// from the saved one, and the saved one is refused, naming what changed.
	p.fs["refs/founder.wav"] = "changed after plan"
	p.synthesis("synthesis.welcome").Text = "new words"
	plan2, _ := p.plan(t, st, planner.Options{})
	buf.Reset()
	planner.NewSaved(plan2, p.m, nil, nil).Write(&buf)
	p.fs["refs/founder.wav"] = "changed again"
	fresh2, _ := p.plan(t, st, planner.Options{})
	if err := planner.CompareSaved(fresh2, load().Plan); !errors.Is(err, planner.ErrStalePlan) || !strings.Contains(err.Error(), "an input file") {
		t.Errorf("saved plan after an input change: %v", err)
	}

	if _, err := planner.ReadSaved(strings.NewReader(`{"format":"voxform-plan","version":9}`)); err == nil {
		t.Error("unknown plan version accepted")
	}
	if _, err := planner.ReadSaved(strings.NewReader(`{"version":1}`)); err == nil {
		t.Error("foreign file accepted")
	}
}

func TestDurationAndThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0h00m00s", 750: "0h12m30s", 0.2: "0h00m01s", 3600: "1h00m00s", 45296.5: "12h34m57s"} {
		if got := planner.Duration(in); got != want {
			t.Errorf("Duration(%v) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[int64]string{0: "0", 999: "999", 1234: "1,234", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := numfmt.Thousands(in); got != want {
			t.Errorf("Thousands(%d) = %s, want %s", in, got, want)
		}
	}
}

func TestUnknownAudioAndBudget(t *testing.T) {
	p := baseProject()
	url := &manifest.Transcription{Name: "remote", Key: "https://x.example/a.mp3", Address: `transcription.remote["https://x.example/a.mp3"]`,
		Input: "https://x.example/a.mp3", IsURL: true, API: "batch", Model: "stt-v2.5", LanguageCode: "hi-IN",
		Outputs: map[string]string{"json": "build/remote/a.json"}}
	p.m.Transcriptions = append(p.m.Transcriptions, url)
	limit := 100000.0
	p.m.Budget = &manifest.Budget{MaxAudioSeconds: &limit}
	plan, err := p.plan(t, nil, planner.Options{})
	if !errors.Is(err, planner.ErrBudget) || !strings.Contains(err.Error(), "unknown duration") {
		t.Fatalf("err = %v", err)
	}
	if plan.Cost.UnknownAudio != 1 || !strings.Contains(plan.Cost.Line(), "plus 1 input of unknown duration") {
		t.Errorf("cost = %+v, line %q", plan.Cost, plan.Cost.Line())
	}
}

func TestGraphDOT(t *testing.T) {
	p := baseProject()
	var buf bytes.Buffer
	if err := planner.WriteDOT(&buf, p.m); err != nil {
		t.Fatal(err)
	}
	golden(t, "graph", buf.Bytes())
}

// TestPriorKeptOnlyForTheStateBuiltAgainst: the record Build keeps of each
// resource serves a plan against the state it was built against, and no
// other: built against the applied state and planned against an empty one,
// everything is created; built against an empty state and planned against
// the applied one, nothing changes.
func TestPriorKeptOnlyForTheStateBuiltAgainst(t *testing.T) {
	p := baseProject()
	applied := p.apply(t)
	empty := state.New()
	for _, tt := range []struct {
		name         string
		built, plan  *state.File
		creates, ops int
	}{
		{"built against the applied state, planned against an empty one", applied, empty, 9, 0},
		{"built against an empty state, planned against the applied one", empty, applied, 0, 9},
		{"built and planned against the applied state", applied, applied, 0, 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			desired, err := planner.BuildWith(p.m, p.fs.hash, planner.BuildOptions{State: tt.built})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := planner.Compute(planner.Input{Desired: desired, State: tt.plan, Hash: p.fs.hash, Probe: probe})
			if err != nil {
				t.Fatal(err)
			}
			if s := plan.Summary(); s.Add != tt.creates || plan.NoOps != tt.ops {
				t.Errorf("%+v, %d no-ops; want %d creates, %d no-ops", s, plan.NoOps, tt.creates, tt.ops)
			}
		})
	}
}

// TestDeletesWithADesiredListedTwice: a resource the input lists twice
// counts once when the plan decides whether every recorded resource is
// still desired; the one the manifest dropped is deleted.
func TestDeletesWithADesiredListedTwice(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.m.Syntheses = removeSynthesis(p.m.Syntheses, "synthesis.welcome")
	desired := p.desired(t)
	desired = append(desired, desired[len(desired)-1])
	plan, err := planner.Compute(planner.Input{Desired: desired, State: st, Hash: p.fs.hash, Probe: probe})
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Action("synthesis.welcome"); a == nil || a.Type != planner.Delete {
		t.Fatalf("synthesis.welcome: %+v; actions %v", a, addresses(plan))
	}
}
