package schema_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// recordedAs is recordedManifest with synthesis.legal's recording (a
// lossless conversion to 24-bit raw, at voxform.yaml:17:22) at path,
// and every other recording present.
func recordedAs(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	for _, k := range []string{"a", "b"} {
		writeRecording(t, filepath.Join(dir, "studio", k+".wav"), pcm16k, 1600)
	}
	writeFile(t, dir, "voxform.yaml", strings.Replace(recordedManifest, "studio/legal.wav", path, 1))
	return dir
}

// loadDiags loads the manifest in dir and renders its diagnostics.
func loadDiags(dir string) (string, bool) {
	_, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	return fmtDiags(ds), ds.HasErrors()
}

// wantRefused: loading dir fails with an error at at holding every want.
func wantRefused(t *testing.T, dir, at string, wants ...string) string {
	t.Helper()
	s, failed := loadDiags(dir)
	if !failed || !strings.Contains(s, at) {
		t.Errorf("want an error at %s, got %v", at, s)
	}
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("error without %q: %v", w, s)
		}
	}
	return s
}

// TestRecordedTruncated: a WAV recording whose data chunk holds less
// than its header declares (cut short, or a header declaring 2 GiB over
// 8 KB) is refused at its recorded: line, naming the declared size and
// the file's, even where a lossless conversion would read it to its end.
func TestRecordedTruncated(t *testing.T) {
	dir := recordedAs(t, "studio/cut.wav")
	whole := filepath.Join(dir, "studio", "whole.wav")
	writeRecording(t, whole, pcm16k, 16000) // 32,000 bytes of data
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "studio/cut.wav", string(b[:20000]))
	wantRefused(t, dir, "voxform.yaml:17:22", "recorded studio/cut.wav", "32000", "20000")

	huge := append([]byte(nil), b[:44+8192]...)
	binary.LittleEndian.PutUint32(huge[4:8], 2<<30+36)
	binary.LittleEndian.PutUint32(huge[40:44], 2<<30)
	writeFile(t, dir, "studio/cut.wav", string(huge))
	wantRefused(t, dir, "voxform.yaml:17:22", "recorded studio/cut.wav", "2147483648", "8236")

	writeFile(t, dir, "studio/cut.wav", string(b))
	if s, failed := loadDiags(dir); failed {
		t.Errorf("the whole recording: %v", s)
	}
}

// TestRecordedTooLarge: a recording over MaxRecordingBytes is refused
// when the manifest is validated, naming the bound, not only at apply.
func TestRecordedTooLarge(t *testing.T) {
	dir := recordedAs(t, "studio/big.wav")
	p := filepath.Join(dir, "studio", "big.wav")
	writeRecording(t, p, pcm16k, 1600)
	if err := os.Truncate(p, 4<<30+1); err != nil { // sparse: MaxRecordingBytes+1
		t.Fatal(err)
	}
	wantRefused(t, dir, "voxform.yaml:17:22", "recorded studio/big.wav", "4,294,967,296 bytes", "MaxRecordingBytes")
}

// TestRecordedLinkToOutput: a recording that is, through a link inside
// the manifest directory, another resource's output is refused at its
// recorded: line, naming the output; a link to a file that is no output
// stays allowed.
func TestRecordedLinkToOutput(t *testing.T) {
	dir := recordedAs(t, "studio/link.wav")
	writeRecording(t, filepath.Join(dir, "out", "a.wav"), pcm16k, 1600) // menu["a"]'s output, applied
	if err := os.Symlink("../out/a.wav", filepath.Join(dir, "studio", "link.wav")); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, dir, "voxform.yaml:17:22", "recorded studio/link.wav", `"out/a.wav"`, `synthesis.menu["a"]`)

	if err := os.Remove(filepath.Join(dir, "studio", "link.wav")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.wav", filepath.Join(dir, "studio", "link.wav")); err != nil {
		t.Fatal(err)
	}
	if s, failed := loadDiags(dir); failed {
		t.Errorf("a link to another recording inside the directory: %v", s)
	}
}

// TestRecordedNotAudio: a recording that is not audio is refused
// without quoting its content (it may be any project file, a key
// among them), saying what containers are read; a transcription input
// is warned about alike (the one probe message).
func TestRecordedNotAudio(t *testing.T) {
	const secret = "sk-live-SECRETKEY-0123456789abcdef\n"
	dir := recordedAs(t, "secrets.env")
	writeFile(t, dir, "secrets.env", secret)
	s := wantRefused(t, dir, "voxform.yaml:17:22", "recorded secrets.env", "WAV")
	if strings.Contains(s, "sk-live") || strings.Contains(s, "SECRET") {
		t.Errorf("the recording's content in the error: %v", s)
	}

	dir = t.TempDir()
	writeFile(t, dir, "voxform.yaml", "version: 1\ntranscriptions:\n  calls: { inputs: [a.wav], api: rest, language_code: hi-IN, output_dir: out }\n")
	writeFile(t, dir, "a.wav", secret)
	s, _ = loadDiags(dir)
	if !strings.Contains(s, "a.wav") || strings.Contains(s, "sk-live") || strings.Contains(s, "SECRET") {
		t.Errorf("a transcription input that is not audio: want a diagnostic without its content, got %v", s)
	}
}

// TestRecordedAbsolute: an absolute recording is refused as an input,
// not as an output.
func TestRecordedAbsolute(t *testing.T) {
	dir := recordedAs(t, "/srv/studio/legal.wav")
	s := wantRefused(t, dir, "voxform.yaml:17:22", "reads inputs only inside the manifest directory")
	if strings.Contains(s, "writes") {
		t.Errorf("a recording is an input: %v", s)
	}
}
