package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/internal/fieldtest"
)

func TestAddress(t *testing.T) {
	tests := []struct {
		kind   Kind
		name   string
		key    string
		hasKey bool
		want   string
	}{
		{KindVoice, "narrator", "", false, "voice.narrator"},
		{KindSynthesis, "menu", "billing", true, `synthesis.menu["billing"]`},
		{KindSynthesis, "menu", "", true, `synthesis.menu[""]`},
		{KindSynthesis, "menu", `a "quoted" key`, true, `synthesis.menu["a \"quoted\" key"]`},
		{KindTranscription, "support_calls", "recordings/a.wav", true, `transcription.support_calls["recordings/a.wav"]`},
		{KindSynthesis, "hindi", "नमस्ते", true, `synthesis.hindi["नमस्ते"]`},
	}
	for _, tt := range tests {
		if got := Address(tt.kind, tt.name, tt.key, tt.hasKey); got != tt.want {
			t.Errorf("Address(%s, %s, %q) = %s, want %s", tt.kind, tt.name, tt.key, got, tt.want)
		}
	}
}

func TestMatchSegs(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"**/*.wav", "a.wav", true},
		{"**/*.wav", "2026/01/a.wav", true},
		{"**/*.wav", "2026/a.mp3", false},
		{"*/*.wav", "a.wav", false},
		{"*/*.wav", "x/a.wav", true},
		{"x/**/y/*.wav", "x/y/a.wav", true},
		{"x/**/y/*.wav", "x/1/2/y/a.wav", true},
		{"x/**/y/*.wav", "x/1/2/z/a.wav", false},
		{"**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/z", strings.Repeat("a/", 30) + "b", false},
		{"call-[0-9].wav", "call-7.wav", true},
	}
	for _, tt := range tests {
		if got := matchSegs(strings.Split(tt.pat, "/"), strings.Split(tt.name, "/")); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pat, tt.name, got, tt.want)
		}
	}
}

// load parses and expands a manifest held in memory, with files on disk.
func load(t *testing.T, doc string, files map[string]string, opts LoadOptions) (*Manifest, Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, ds := ParseSources(dir, []string{"voxform.yaml"}, [][]byte{[]byte(doc)})
	m, eds := Expand(raw, opts)
	ds.Append(eds)
	ds.Sort()
	return m, ds
}

// TestTranscriptionOutputs: output_dir/REL.FORMAT, REL being the path below
// the pattern's glob-free prefix without its extension; URLs use the base
// name of their path.
func TestTranscriptionOutputs(t *testing.T) {
	m, ds := load(t, `transcriptions:
  calls:
    inputs: ["recordings/**/*.wav", "extra/one.mp3"]
    urls: ["https://cdn.example.com/x/y/remote.mp3?sig=1"]
    api: batch
    language_code: hi-IN
    output_dir: out/t
    formats: [json, srt]
`, map[string]string{"recordings/2026/a.wav": "x", "recordings/b.wav": "x", "recordings/c.mp3": "x", "extra/one.mp3": "x"}, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got := map[string]map[string]string{}
	for _, tr := range m.Transcriptions {
		got[tr.Address] = tr.Outputs
	}
	want := map[string]map[string]string{
		`transcription.calls["extra/one.mp3"]`:                          {"json": "out/t/one.json", "srt": "out/t/one.srt"},
		`transcription.calls["https://cdn.example.com/x/y/remote.mp3"]`: {"json": "out/t/remote.json", "srt": "out/t/remote.srt"},
		`transcription.calls["recordings/2026/a.wav"]`:                  {"json": "out/t/2026/a.json", "srt": "out/t/2026/a.srt"},
		`transcription.calls["recordings/b.wav"]`:                       {"json": "out/t/b.json", "srt": "out/t/b.srt"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	// A pre-signed URL's query (its signature) stays out of the address,
	// and so out of the state, but is what the service is sent.
	for _, tr := range m.Transcriptions {
		if tr.IsURL && (tr.Key != "https://cdn.example.com/x/y/remote.mp3" || tr.Input != "https://cdn.example.com/x/y/remote.mp3?sig=1") {
			t.Errorf("url input: key %q, input %q", tr.Key, tr.Input)
		}
	}
	if len(m.TranscriptionSettings) != 1 || m.TranscriptionSettings[0].Model != DefaultBatchModel {
		t.Errorf("settings: %+v", m.TranscriptionSettings)
	}
}

func TestInterpolation(t *testing.T) {
	tests := []struct {
		text    string
		want    any
		wantErr string
	}{
		{text: "plain", want: "plain"},
		{text: "${var.name}", want: "Asha"},
		{text: "Hi ${ var.name }!", want: "Hi Asha!"},
		{text: "${var.count}", want: int64(3)},
		{text: "n=${var.count}", want: "n=3"},
		{text: "$${var.name} and $$ and $x", want: "${var.name} and $$ and $x"},
		{text: "${var.nmae}", wantErr: `voxform.yaml:3:16: error: unknown variable "nmae" in ${var.nmae}` + "\nhint: did you mean \"name\"?"},
		{text: "a ${each.key}", wantErr: "voxform.yaml:3:18: error: ${each.key} is only available in a block with for_each"},
		{text: "${self.x}", wantErr: "voxform.yaml:3:16: error: unknown reference ${self.x}"},
		{text: "x ${var.name", wantErr: "voxform.yaml:3:18: error: unterminated reference \"${var.name\""},
		{text: "${var.list}", wantErr: "voxform.yaml:3:16: error: ${var.list} is a list and cannot be inserted into a string"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			doc := "variables: { name: Asha, count: 3, list: [a] }\nvoices:\n  v: { model: \"" +
				strings.ReplaceAll(tt.text, `"`, `\"`) + "\" }\n"
			m, ds := load(t, doc, nil, LoadOptions{})
			if tt.wantErr != "" {
				if len(ds) == 0 || !strings.HasPrefix(ds[0].String(), tt.wantErr) {
					t.Errorf("diagnostics %v, want %q", ds, tt.wantErr)
				}
				return
			}
			if len(ds) != 0 || len(m.Voices) != 1 {
				t.Fatalf("diagnostics: %v", ds)
			}
			var got any = m.Voices[0].Model
			if _, ok := tt.want.(int64); ok {
				got, _ = asInt(m.Voices[0].Model)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTypedInterpolation: a value that is exactly one reference keeps its
// type, so numeric fields can come from variables and CSV cells.
func TestTypedInterpolation(t *testing.T) {
	m, ds := load(t, `variables: { rate: 16000, speed: 0.9 }
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: "${var.speed}" }
syntheses:
  s:
    voice: v
    text: hi
    output: o.wav
    audio_config: { sample_rate: "${var.rate}", num_channels: "${var.rate}x" }
`, nil, LoadOptions{})
	want := `voxform.yaml:9:63: error: num_channels: want an integer, not "16000x"`
	if len(ds) != 1 || ds[0].String() != want {
		t.Fatalf("diagnostics %v, want %s", ds, want)
	}
	if len(m.Voices) != 1 || *m.Voices[0].Speed != 0.9 {
		t.Errorf("voice speed: %+v", m.Voices)
	}
}

// TestTextSpans: positions inside texts map back to the source, for
// literal, quoted, block and interpolated texts.
func TestTextSpans(t *testing.T) {
	m, ds := load(t, `voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
variables: { amount: "₹500" }
syntheses:
  plain: { voice: v, output: a.wav, text: Pay 42 }
  quoted: { voice: v, output: b.wav, text: "Pay ${var.amount} now 7" }
  block:
    voice: v
    output: c.wav
    text: |
      line one
        indented 9
`, nil, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	at := func(name, sub string) Pos {
		for _, s := range m.Syntheses {
			if s.Name == name {
				return PosAt(s.TextSpans, s.Text, strings.Index(s.Text, sub))
			}
		}
		return Pos{}
	}
	tests := []struct {
		name, sub string
		want      Pos
	}{
		{"plain", "42", Pos{"voxform.yaml", 5, 47}},
		{"quoted", "500", Pos{"voxform.yaml", 3, 24}},
		{"quoted", "7", Pos{"voxform.yaml", 6, 67}},
		{"block", "9", Pos{"voxform.yaml", 12, 18}},
	}
	for _, tt := range tests {
		if got := at(tt.name, tt.sub); got != tt.want {
			t.Errorf("%s %q at %v, want %v", tt.name, tt.sub, got, tt.want)
		}
	}
}

// TestMergeKeys: YAML anchors, aliases and merge keys work as YAML defines.
func TestMergeKeys(t *testing.T) {
	m, ds := load(t, `x-base: &base { model: tts-v2.5, voice: Kaveri, language: hi-IN }
x-lang: &lang { language: ta-IN, voice: Girish }
voices:
  a: *base
  b: { <<: *base, voice: Nalini }
  c: { <<: [*lang, *base] }
`, nil, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got := map[string]string{}
	for _, v := range m.Voices {
		got[v.Name] = v.Model + " " + v.Voice + " " + v.Language
	}
	want := map[string]string{"a": "tts-v2.5 Kaveri hi-IN", "b": "tts-v2.5 Nalini hi-IN", "c": "tts-v2.5 Girish ta-IN"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("voices (-want +got):\n%s", diff)
	}
}

// TestSpeedWords: slow, medium and fast are 0.85, 1.0 and 1.15; numbers
// pass through.
// conformance: TTS-010, TTS-012, TTS-013, TTS-014
func TestSpeedWords(t *testing.T) {
	m, ds := load(t, `voices:
  s: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: slow }
  m: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: medium }
  f: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: fast }
  n: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: 0.9 }
  q: { model: tts-v2.5, voice: Kaveri, language: hi-IN, speed: "1.1" }
  d: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
`, nil, LoadOptions{})
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	got := map[string]float64{}
	for _, v := range m.Voices {
		if v.Speed == nil {
			got[v.Name] = -1
			continue
		}
		got[v.Name] = *v.Speed
	}
	want := map[string]float64{"s": 0.85, "m": 1.0, "f": 1.15, "n": 0.9, "q": 1.1, "d": -1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("speeds (-want +got):\n%s", diff)
	}
}

// TestSynthesisDetailsIsZero: isZero, which decides whether a synthesis
// holds its details at all, knows every field of SynthesisDetails.
func TestSynthesisDetailsIsZero(t *testing.T) {
	fieldtest.EachSet(t, &SynthesisDetails{}, true, (*SynthesisDetails).isZero)
}

// TestPlainSynthesisHoldsNoDetails: a prompt that sets none of the rare
// fields holds none (a pointer, not 128 bytes), one that sets them holds
// them, and changing one instance's leaves the others' alone.
func TestPlainSynthesisHoldsNoDetails(t *testing.T) {
	m, ds := load(t, `version: 1
voices:
  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  plain:
    for_each: [a, b]
    voice: v
    text: "prompt ${each.key}"
    output: "build/${each.key}.wav"
  cued:
    for_each: [a, b]
    voice: v
    text: "prompt ${each.key}"
    output: "build/cued/${each.key}.wav"
    cues: { json: "build/cued/${each.key}.json" }
    lifecycle: { prevent_destroy: true }
`, nil, LoadOptions{})
	if ds.HasErrors() || len(m.Syntheses) != 4 {
		t.Fatalf("load: %v", ds)
	}
	for _, s := range m.Syntheses {
		held := s.details.Peek() != nil
		if want := s.Name == "cued"; held != want {
			t.Errorf("%s holds details: %v, want %v", s.Address, held, want)
		}
	}
	byAddr := map[string]*Synthesis{}
	for _, s := range m.Syntheses {
		byAddr[s.Address] = s
	}
	a, b := byAddr[`synthesis.cued["a"]`], byAddr[`synthesis.cued["b"]`]
	if c := a.Details().Cues; c == nil || c.JSON != "build/cued/a.json" || !a.Details().Lifecycle.PreventDestroy {
		t.Fatalf("%s details: %+v", a.Address, a.Details())
	}
	*b = *a // an instance copied from another shares its details
	b.Edit().Lifecycle.PreventDestroy = false
	if !a.Details().Lifecycle.PreventDestroy {
		t.Error("an edit of a copy changed the original's details")
	}
	if (&Synthesis{}).WithDetails(SynthesisDetails{}).details.Peek() != nil {
		t.Error("empty details are held")
	}
}

// orderValidator notes when its check runs; its ValidateRaw reports raw.
type orderValidator struct {
	log *[]string
	raw Diagnostics
}

func (v orderValidator) ValidateRaw(*Raw) Diagnostics { return v.raw }
func (v orderValidator) Check(*Manifest, LoadOptions) Diagnostics {
	*v.log = append(*v.log, "check")
	return nil
}

// TestExpandedBeforeCheck: LoadOptions.Expanded is called once the
// manifest is expanded, before its check (a plan reads its state while the
// check runs), and not at all when validating or expanding it failed: no
// plan follows.
func TestExpandedBeforeCheck(t *testing.T) {
	const head = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\nsyntheses:\n  a:\n    text: hello\n    output: a.wav\n"
	for _, tt := range []struct {
		name, voice string
		raw         Diagnostics
		want        string
	}{
		{"valid", "v", nil, "expanded check"},
		{"an unknown voice", "w", nil, "check"},
		{"a schema error", "v", Diagnostics{{Severity: SeverityError, Message: "bad"}}, "check"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			opts := LoadOptions{Expanded: func() { log = append(log, "expanded") }}
			LoadSources(t.TempDir(), []string{"voxform.yaml"}, [][]byte{[]byte(head + "    voice: " + tt.voice + "\n")}, opts, orderValidator{&log, tt.raw})
			if got := strings.Join(log, " "); got != tt.want {
				t.Errorf("calls: %q, want %q", got, tt.want)
			}
		})
	}
}
