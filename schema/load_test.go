package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

func addresses[T any](list []T, addr func(T) string) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = addr(r)
	}
	return out
}

func synthAddr(s *manifest.Synthesis) string { return s.Address }

func TestSpecExampleExpands(t *testing.T) {
	m, ds := loadCase(t, "testdata/valid/spec-example")
	if ds.HasErrors() {
		t.Fatalf("errors: %v", ds)
	}
	wantS := []string{`synthesis.menu["billing"]`, `synthesis.menu["support"]`, "synthesis.welcome"}
	if diff := cmp.Diff(wantS, addresses(m.Syntheses, synthAddr)); diff != "" {
		t.Errorf("synthesis addresses (-want +got):\n%s", diff)
	}
	wantT := []string{`transcription.support_calls["recordings/2026/a.wav"]`, `transcription.support_calls["recordings/b.wav"]`}
	if diff := cmp.Diff(wantT, addresses(m.Transcriptions, func(t *manifest.Transcription) string { return t.Address })); diff != "" {
		t.Errorf("transcription addresses (-want +got):\n%s", diff)
	}
	a := m.Transcriptions[0]
	wantOut := map[string]string{
		"json": "build/transcripts/support/2026/a.json", "txt": "build/transcripts/support/2026/a.txt",
		"srt": "build/transcripts/support/2026/a.srt", "vtt": "build/transcripts/support/2026/a.vtt",
	}
	if diff := cmp.Diff(wantOut, a.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if a.Model != "stt-v2.5" || a.LanguageCode != "hi-IN,en-IN" || !a.WithDiarization || a.NumSpeakers != 2 || a.WithDenoise == nil || !*a.WithDenoise {
		t.Errorf("transcription settings: %+v", a)
	}
	billing := m.Syntheses[0]
	if billing.Text != "बिल के लिए एक दबाएँ" || billing.Language != "hi-IN" || billing.Model != "tts-v2.5" || billing.VoiceName != "Nalini" {
		t.Errorf("billing: %+v", billing)
	}
	if billing.Speed == nil || *billing.Speed != 1.0 {
		t.Errorf("speed medium: got %v, want 1.0", billing.Speed)
	}
	// defaults.synthesis fills audio_config of the menu...
	if diff := cmp.Diff(&manifest.AudioConfig{Container: "wav", SampleRate: 24000}, billing.AudioConfig); diff != "" {
		t.Errorf("defaulted audio_config (-want +got):\n%s", diff)
	}
	// ...and welcome's own audio_config replaces the default as a whole;
	// mulaw shows its forced 8000 Hz.
	// conformance: TTS-040
	welcome := m.Syntheses[2]
	if diff := cmp.Diff(&manifest.AudioConfig{Container: "mulaw", SampleRate: 8000}, welcome.AudioConfig); diff != "" {
		t.Errorf("welcome audio_config (-want +got):\n%s", diff)
	}
	if m.Service.Timeout != 60*time.Second || m.Service.Retries != 5 || m.Service.RequestsPerSecond != 2 ||
		m.Service.Paths["stt_realtime"] != "/stt/v3/stream" || m.Service.APIKeyEnv != "VOXFORM_API_KEY" {
		t.Errorf("service: %+v", m.Service)
	}
	if m.Budget == nil || *m.Budget.MaxCharacters != 100000 || *m.Budget.MaxAudioSeconds != 36000 {
		t.Errorf("budget: %+v", m.Budget)
	}
	if len(m.DataFiles) != 1 || m.DataFiles[0] != "prompts/menu.csv" || len(m.Hash) != 64 {
		t.Errorf("data files %v, hash %q", m.DataFiles, m.Hash)
	}
	// The text of a CSV row is positioned in the CSV cell.
	if p := manifest.PosAt(billing.TextSpans, billing.Text, 0); p != (manifest.Pos{File: "prompts/menu.csv", Line: 2, Col: 10}) {
		t.Errorf("text position: %v", p)
	}
}

func TestForEachForms(t *testing.T) {
	m, ds := loadCase(t, "testdata/valid/foreach-forms")
	if ds.HasErrors() {
		t.Fatalf("errors: %v", ds)
	}
	got := map[string]string{}
	for _, s := range m.Syntheses {
		got[s.Address] = s.Text + " | " + s.Output + " | " + s.Language
	}
	want := map[string]string{
		`synthesis.csv["billing"]`: "बिल | build/csv/billing.wav | hi-IN",
		`synthesis.csv["support"]`: "Help, please | build/csv/support.wav | en-IN",
		`synthesis.defaulted["x"]`: "default output | build/x.wav | hi-IN",
		`synthesis.json["j1"]`:     "one | build/json/j1.wav | hi-IN",
		`synthesis.json["j2"]`:     "two | build/json/j2.wav | hi-IN",
		`synthesis.list["bye"]`:    "bye | build/list/bye.wav | hi-IN",
		`synthesis.list["hello"]`:  "hello | build/list/hello.wav | hi-IN",
		`synthesis.map["a"]`:       "a prompt | build/map/a.wav | hi-IN",
		`synthesis.map["b"]`:       "b prompt | build/map/b.wav | hi-IN",
		"synthesis.merged":         "Literal ${not.a.ref} and env-value | build/merged.ulaw | hi-IN",
		`synthesis.tsv["उपयोग"]`:   "नमस्ते | build/tsv/उपयोग.wav | hi-IN",
		`synthesis.yaml["y1"]`:     "happy (up) | build/yaml/y1.wav | hi-IN",
		`synthesis.yaml["y2"]`:     "sad (down) | build/yaml/y2.wav | hi-IN",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("syntheses (-want +got):\n%s", diff)
	}
	var merged *manifest.Synthesis
	for _, s := range m.Syntheses {
		if s.Address == "synthesis.merged" {
			merged = s
		}
	}
	// The merge key brings voice and audio_config; the block's own
	// audio_config wins, and "${var.rate}" alone keeps its integer type.
	if merged == nil || merged.Voice != "narrator" || merged.AudioConfig.SampleRate != 8000 || merged.AudioConfig.Container != "mulaw" {
		t.Errorf("merged: %+v", merged)
	}
	if got := m.DataFiles; len(got) != 4 {
		t.Errorf("data files: %v", got)
	}
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProfile: service.profile names the service spoken to; live is the
// default, VOXFORM_PROFILE overrides the manifest, and an unknown profile
// is an error at its position.
func TestProfile(t *testing.T) {
	load := func(yaml string, environ ...string) (*manifest.Manifest, manifest.Diagnostics) {
		dir := t.TempDir()
		writeFile(t, dir, "voxform.yaml", yaml)
		return manifest.Load(dir, manifest.LoadOptions{Environ: environ}, schema.Validator{})
	}
	if m, ds := load("version: 1\n"); len(ds) != 0 || m.Service.Profile != contract.ProfileLive {
		t.Errorf("default: %q %v", m.Service.Profile, ds)
	}
	if m, ds := load("version: 1\nservice: { profile: documented }\n"); len(ds) != 0 || m.Service.Profile != contract.ProfileDocumented {
		t.Errorf("documented: %q %v", m.Service.Profile, ds)
	}
	if m, _ := load("version: 1\nservice: { profile: documented }\n", "VOXFORM_PROFILE=live"); m.Service.Profile != contract.ProfileLive {
		t.Errorf("VOXFORM_PROFILE=live over the manifest: %q", m.Service.Profile)
	}
	if _, ds := load("version: 1\nservice: { profile: documented }\n", "VOXFORM_PROFILE=bogus"); len(ds) != 1 || ds[0].Pos.File != "VOXFORM_PROFILE" {
		t.Errorf("VOXFORM_PROFILE=bogus: %v, want an error naming the variable", ds)
	}
	_, ds := load("version: 1\nservice: { profile: staging }\n")
	if len(ds) != 1 || ds[0].Pos.Line != 2 || ds[0].Pos.Col != 21 || !strings.Contains(ds[0].Message, `profile "staging" is not live or documented`) {
		t.Errorf("unknown profile: %v", ds)
	}
}
