package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

const recordedManifest = `version: 1
voices:
  narrator: {model: tts-v2.5, voice: Kaveri, language: en-IN}
syntheses:
  menu:
    for_each: [a, b]
    voice: narrator
    text: "press ${each.key}"
    output: "out/${each.key}.wav"
    audio_config: {sample_rate: 16000}
    recorded: "studio/${each.key}.wav"
  legal:
    voice: narrator
    text: "calls are recorded"
    output: out/legal.raw
    audio_config: {container: raw, sample_rate: 16000, sample_width: 3}
    recorded: {path: studio/legal.wav}
`

// writeRecording writes a WAV of f holding frames frames of a ramp.
func writeRecording(t *testing.T, path string, f audio.Format, frames int) {
	t.Helper()
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, f, int64(frames*f.BlockAlign())); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, frames*f.Channels)
	for i := range x {
		x[i] = float64(i%200-100) / 128
	}
	b.Write(audio.AppendSamples(nil, f, x))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var pcm16k = audio.Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}

// TestRecorded: recorded: is read in its short form (interpolated per
// for_each instance, as output: is) and as a map; a recording whose
// conversion to the declared format is lossless (16-bit WAV to 24-bit
// raw) is taken, a lossy one (another rate) is refused at its position
// with both formats named unless convert: true declares it; recorded: is
// refused with cues: or listen.regenerate, in defaults.synthesis, out of the manifest
// directory, and through a link out of it.
func TestRecorded(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"a", "b", "legal"} {
		writeRecording(t, filepath.Join(dir, "studio", k+".wav"), pcm16k, 1600)
	}
	writeFile(t, dir, "voxform.yaml", recordedManifest)
	m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got := map[string]manifest.Recorded{}
	for _, s := range m.Syntheses {
		if s.Details().Recorded != nil {
			got[s.Address] = *s.Details().Recorded
		}
	}
	want := map[string]manifest.Recorded{
		`synthesis.menu["a"]`: {Path: "studio/a.wav"},
		`synthesis.menu["b"]`: {Path: "studio/b.wav"},
		`synthesis.legal`:     {Path: "studio/legal.wav"},
	}
	for a, w := range want {
		if got[a] != w {
			t.Errorf("%s: recorded %+v, want %+v", a, got[a], w)
		}
	}

	refused := func(name, doc, wantAt string, wants ...string) {
		t.Helper()
		writeFile(t, dir, "voxform.yaml", doc)
		_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		s := fmtDiags(ds)
		if !ds.HasErrors() || !strings.Contains(s, wantAt) {
			t.Errorf("%s: want an error at %s, got %v", name, wantAt, s)
		}
		for _, w := range wants {
			if !strings.Contains(s, w) {
				t.Errorf("%s: error without %q: %v", name, w, s)
			}
		}
	}
	lossy := strings.Replace(recordedManifest, "sample_rate: 16000, sample_width: 3", "sample_rate: 8000, sample_width: 3", 1)
	refused("a rate change", lossy, "voxform.yaml:17:22", "16000 Hz, 1 ch, 16-bit pcm", "raw, 8000 Hz, 1 ch, 3-byte linear_pcm", "convert: true")
	writeFile(t, dir, "voxform.yaml", strings.Replace(lossy, "{path: studio/legal.wav}", "{path: studio/legal.wav, convert: true}", 1))
	if _, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{}); ds.HasErrors() {
		t.Errorf("convert: true declares the rate change: %v", ds)
	}
	refused("cues", strings.Replace(recordedManifest, "    recorded: {path", "    cues: {vtt: out/legal.vtt}\n    recorded: {path", 1),
		"voxform.yaml:17:11", "recorded and cues")
	refused("regenerate", strings.Replace(recordedManifest, "    recorded: {path", "    listen: {regenerate: 2}\n    recorded: {path", 1),
		"voxform.yaml:17:26", "listen.regenerate")
	refused("in defaults", strings.Replace(recordedManifest, "syntheses:", "defaults:\n  synthesis: {recorded: studio/a.wav}\nsyntheses:", 1),
		"voxform.yaml:5:", "recorded")
	refused("outside", strings.Replace(recordedManifest, "studio/legal.wav", "../legal.wav", 1), "voxform.yaml:17:22", "../legal.wav")
	refused("no path", strings.Replace(recordedManifest, "{path: studio/legal.wav}", "{convert: true}", 1), "voxform.yaml:17:5", "path")
	outside := t.TempDir()
	writeRecording(t, filepath.Join(outside, "x.wav"), pcm16k, 1600)
	if err := os.Symlink(filepath.Join(outside, "x.wav"), filepath.Join(dir, "studio", "link.wav")); err != nil {
		t.Fatal(err)
	}
	refused("a link out", strings.Replace(recordedManifest, "studio/legal.wav", "studio/link.wav", 1), "voxform.yaml:17:22", "studio/link.wav")
	refused("an output", strings.Replace(recordedManifest, "output: out/legal.raw", "output: studio/a.wav", 1), "", "also an input")
}

// TestRecordedEncodingChecked: a WAV recording for an mp3 output is an
// encoding, refused without convert: true (naming it); with it, an MP3
// bit rate LAME would not keep at the declared rate is refused when the
// manifest loads, at the bitrate, as is an empty recording, and a valid
// one loads.
func TestRecordedEncodingChecked(t *testing.T) {
	dir := t.TempDir()
	writeRecording(t, filepath.Join(dir, "studio", "a.wav"), pcm16k, 1600)
	doc := func(cfg, rec string) string {
		return `version: 1
voices:
  narrator: {model: tts-v2.5, voice: Kaveri, language: en-IN}
syntheses:
  a:
    voice: narrator
    text: "press a"
    output: out/a.mp3
    audio_config: {container: mp3, ` + cfg + `}
    recorded: ` + rec + "\n"
	}
	writeRecording(t, filepath.Join(dir, "studio", "empty.wav"), pcm16k, 0)
	for _, tc := range []struct{ cfg, rec, at, want string }{
		{"sample_rate: 16000", "{path: studio/empty.wav, convert: true}", "voxform.yaml:10:22", "holds no audio, and an empty mp3 file cannot be encoded"},
		{"sample_rate: 16000", "studio/a.wav", "voxform.yaml:10:15", "an MP3 encoding"},
		{"sample_rate: 8000, bitrate: 128k", "{path: studio/a.wav, convert: true}", "voxform.yaml:9:64", "128000 bit/s is not an MP3 bit rate at 8000 Hz"},
		{"sample_rate: 8000, bitrate: 64k", "{path: studio/a.wav, convert: true}", "", ""},
	} {
		writeFile(t, dir, "voxform.yaml", doc(tc.cfg, tc.rec))
		_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		s := fmtDiags(ds)
		switch {
		case tc.want == "" && ds.HasErrors():
			t.Errorf("%s: %v", tc.cfg, s)
		case tc.want != "" && (!strings.Contains(s, tc.at) || !strings.Contains(s, tc.want)):
			t.Errorf("%s, %s: %v, want %q at %s", tc.cfg, tc.rec, s, tc.want, tc.at)
		}
	}
}
