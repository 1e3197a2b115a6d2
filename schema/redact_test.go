package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// TestRedactChecks: unknown kinds are named at kinds:, a redacted copy of
// a recording that is not WAV is refused at audio: (by its content, not its
// name), and channel roles need is_multi_channel.
func TestRedactChecks(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "rec", "a.wav"), 16000, time.Second)
	os.WriteFile(filepath.Join(dir, "rec", "b.mp3"), []byte("ID3\x04\x00\x00\x00\x00\x00\x00not audio"), 0o644)
	os.WriteFile(filepath.Join(dir, "rec", "c.wav"), []byte("ID3\x04\x00\x00\x00\x00\x00\x00an mp3 named wav"), 0o644)
	head := "version: 1\ntranscriptions:\n  calls:\n    api: batch\n    language_code: hi-IN\n    output_dir: out\n"
	for _, tc := range []struct{ body, want string }{
		{"    inputs: [rec/a.wav]\n    is_multi_channel: true\n    channels: {0: agent}\n    redact: {kinds: all, audio: silence}\n", ""},
		{"    inputs: [rec/a.wav]\n    redact: [mobile, passport]\n", `voxform.yaml:8:13: error: redact: parse redaction kind "passport": unknown kind (valid: mobile, aadhaar`},
		{"    inputs: [rec/b.mp3]\n    redact: {kinds: [mobile], audio: beep}\n", "voxform.yaml:8:38: error: redact.audio: rec/b.mp3: only WAV"},
		{"    inputs: [rec/c.wav]\n    redact: {kinds: [mobile], audio: beep}\n", "voxform.yaml:8:38: error: redact.audio: rec/c.wav: only WAV"},
		{"    inputs: [rec/a.wav]\n    channels: {0: agent}\n", "voxform.yaml:8:15: error: channels: names roles of channels, but is_multi_channel is not true"},
		{"    inputs: [rec/a.wav]\n    callback_url: https://hooks.example.com/x\n    redact: [mobile]\n", "warning: callback_url: the service posts the unredacted transcript to https://hooks.example.com/x"},
	} {
		os.WriteFile(filepath.Join(dir, "voxform.yaml"), []byte(head+tc.body), 0o644)
		_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		all := strings.Join(got, "\n")
		if tc.want == "" && ds.HasErrors() || tc.want != "" && !strings.Contains(all, tc.want) {
			t.Errorf("%s: got\n%s\nwant %q", tc.body, all, tc.want)
		}
	}
}
