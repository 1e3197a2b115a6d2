package schema_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
	"github.com/voxform/voxform/speechapi"
)

// TestAudioLimits checks the documented per-API limits on input files,
// probed from generated WAV headers (sparse files, so hours cost nothing),
// by their whole positioned diagnostics. The corpus case
// invalid/audio-limits holds the same limits side by side.
//
// conformance: STT-031, STT-032, OB-032, OB-034, BJ-095, BJ-098, ERR-016, ERR-035
func TestAudioLimits(t *testing.T) {
	const at = "voxform.yaml:3:22: "
	batchHint := "\nhint: split the recording, or give it under urls: (a public https URL has no size cap)"
	tests := []struct {
		name string
		api  string
		rate int
		dur  time.Duration
		size int64 // total file size, padded with a sparse hole; 0 for the WAV's own
		want []string
	}{
		// conformance: STT-031, ERR-016
		{name: "rest 60 s accepted", api: "rest", rate: 16000, dur: 60 * time.Second,
			want: []string{at + `warning: input "in/a.wav" is 1m0s long; api rest works best up to 30s`}},
		{name: "rest over 60 s", api: "rest", rate: 16000, dur: 61 * time.Second,
			want: []string{at + `error: input "in/a.wav" is 1m1s long; api rest takes files up to 1m0s`}},
		{name: "rest over 30 s warns", api: "rest", rate: 16000, dur: 45 * time.Second,
			want: []string{at + `warning: input "in/a.wav" is 45s long; api rest works best up to 30s`}},
		{name: "rest 30 s is ideal", api: "rest", rate: 16000, dur: 30 * time.Second},
		// conformance: STT-032
		{name: "rest 8 kHz", api: "rest", rate: 8000, dur: 10 * time.Second},
		{name: "rest 44.1 kHz", api: "rest", rate: 44100, dur: 10 * time.Second},
		{name: "rest 48 kHz refused", api: "rest", rate: 48000, dur: 10 * time.Second,
			want: []string{at + `error: input "in/a.wav" is sampled at 48000 Hz; api rest takes 8000 to 44100 Hz`}},
		// conformance: OB-032
		{name: "legacy just under 1 h", api: "batch_legacy", rate: 8000, dur: time.Hour - time.Second},
		{name: "legacy 1 h refused", api: "batch_legacy", rate: 8000, dur: time.Hour,
			want: []string{at + `error: input "in/a.wav" is 1h0m0s long; api batch_legacy takes files under 1h0m0s`}},
		// conformance: OB-034 (80 MB per call, fields included: what speechapi.PlanLegacy sends alone)
		{name: "legacy largest file accepted", api: "batch_legacy", rate: 8000, dur: 10 * time.Second, size: 79_933_440},
		{name: "legacy file over 80 MB call refused", api: "batch_legacy", rate: 8000, dur: 10 * time.Second, size: 79_933_441,
			want: []string{at + `error: input "in/a.wav" is 79,933,441 bytes; api batch_legacy takes files up to 79,933,440 bytes (80 MB per call, form fields included)` +
				"\nhint: split the recording, or use api batch"}},
		// conformance: BJ-095 (a megabyte is 1,000,000 bytes, as the emulator and speechapi count)
		{name: "batch 10 MB accepted", api: "batch", rate: 8000, dur: 10 * time.Second, size: 10_000_000},
		{name: "batch over 10 MB refused", api: "batch", rate: 8000, dur: 10 * time.Second, size: 10_000_001,
			want: []string{at + `error: input "in/a.wav" is 10,000,001 bytes; api batch takes files up to 10,000,000 bytes (10 MB per uploaded file)` + batchHint}},
		// conformance: BJ-098, ERR-035 (a 4 h 16-bit file is far over 10 MB: both limits apply)
		{name: "batch over 4 h", api: "batch", rate: 8000, dur: 4*time.Hour + time.Second, want: []string{
			at + `error: input "in/a.wav" is 230,416,044 bytes; api batch takes files up to 10,000,000 bytes (10 MB per uploaded file)` + batchHint,
			at + `error: input "in/a.wav" is 4h0m1s long; api batch takes files up to 4h0m0s`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "voxform.yaml", "version: 1\ntranscriptions:\n  calls: { inputs: [\"in/*.wav\"], api: "+tt.api+
				", language_code: hi-IN, output_dir: out }\n")
			p := filepath.Join(dir, "in/a.wav")
			writeWAV(t, p, tt.rate, tt.dur)
			if tt.size > 0 {
				if err := os.Truncate(p, tt.size); err != nil {
					t.Fatal(err)
				}
			}
			_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			wantErr := slices.ContainsFunc(tt.want, func(s string) bool { return strings.HasPrefix(s, at+"error:") })
			if ds.HasErrors() != wantErr {
				t.Errorf("HasErrors = %v, want %v", ds.HasErrors(), wantErr)
			}
		})
	}
}

// TestFileSizeLimitsMatchTheClient: the largest file validate accepts per
// API is exactly the largest speechapi sends, so that a valid manifest never
// fails at upload and no file the client could send is refused.
//
// conformance: OB-034, BJ-095
func TestFileSizeLimitsMatchTheClient(t *testing.T) {
	cat := contract.Builtin()
	legacy := cat.Recognition[manifest.APIBatchLegacy].MaxFileBytes
	if _, err := speechapi.PlanLegacy([]speechapi.Source{{Name: "a.wav", Size: legacy}}); err != nil {
		t.Errorf("speechapi refuses the largest batch_legacy file validate accepts (%d bytes): %v", legacy, err)
	}
	if _, err := speechapi.PlanLegacy([]speechapi.Source{{Name: "a.wav", Size: legacy + 1}}); err == nil {
		t.Errorf("speechapi sends a %d-byte file that validate refuses", legacy+1)
	}
	batch := cat.Recognition[manifest.APIBatch].MaxFileBytes
	if _, err := speechapi.PlanJobs([]speechapi.Source{{Name: "a.wav", Size: batch}}); err != nil {
		t.Errorf("speechapi refuses the largest batch file validate accepts (%d bytes): %v", batch, err)
	}
	if _, err := speechapi.PlanJobs([]speechapi.Source{{Name: "a.wav", Size: batch + 1}}); err == nil {
		t.Errorf("speechapi uploads a %d-byte file that validate refuses", batch+1)
	}
}

// TestNoProbe: with probing off, durations are not read.
func TestNoProbe(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", "version: 1\ntranscriptions:\n  calls: { inputs: [a.wav], api: rest, language_code: hi-IN, output_dir: out }\n")
	writeWAV(t, filepath.Join(dir, "a.wav"), 16000, 2*time.Minute)
	if _, ds := manifest.Load(dir, manifest.LoadOptions{NoProbe: true}, schema.Validator{}); len(ds) != 0 {
		t.Errorf("diagnostics with NoProbe: %v", ds)
	}
	if _, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{}); !ds.HasErrors() {
		t.Error("a 2-minute rest input passed")
	}
}

// TestEndpointNames: service.paths accepts exactly the client's endpoint
// names, in the semantic rules and in the JSON Schema.
func TestEndpointNames(t *testing.T) {
	var want []string
	for name := range speechapi.DefaultPaths {
		want = append(want, name)
	}
	sort.Strings(want)
	got := slices.Clone(schema.EndpointNames)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("endpoint names (-speechapi +schema):\n%s", diff)
	}
	var inSchema []string
	for _, name := range want {
		if strings.Contains(string(schema.JSON), `"`+name+`"`) {
			inSchema = append(inSchema, name)
		}
	}
	if diff := cmp.Diff(want, inSchema); diff != "" {
		t.Errorf("endpoint names in manifest.schema.json (-want +got):\n%s", diff)
	}
}

// TestCatalogExtension: the manifest's catalog: block adds models, voices,
// languages and recognition codes; unknown models in it are errors.
func TestCatalogExtension(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
catalog:
  models: [tts-v2.6]
  voices: { tts-v2.5: [Arjun], tts-v2.6: [Meera], tts-v9: [X] }
  languages: { tts-v3.0: [ta-IN] }
  recognition_languages: { batch: [gu-IN] }
voices:
  arjun: { model: tts-v2.5, voice: Arjun, language: hi-IN }
  meera: { model: tts-v2.6, voice: Meera, language: hi-IN, speed: fast }
  tamil: { model: tts-v3.0, voice: Shivani, language: ta-IN }
transcriptions:
  t: { urls: ["https://x.example.com/a.wav"], api: batch, language_code: gu-IN, output_dir: o }
`)
	_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	var msgs []string
	for _, d := range ds {
		msgs = append(msgs, d.String())
	}
	want := []string{"voxform.yaml:4:51: error: catalog: unknown model \"tts-v9\"\nhint: declare new models under catalog.models"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
