package audiotest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// RequireTool fails the test when an external tool is missing: these tests
// must never pass by skipping.
func RequireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is required for this test (scripts/deps.sh installs it): %v", name, err)
	}
}

// Run runs a command and fails the test with its output when it fails.
func Run(t testing.TB, name string, args ...string) {
	t.Helper()
	RequireTool(t, name)
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// WriteFile writes b to a new file name in a temporary directory of t
// and returns its path.
func WriteFile(t testing.TB, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FFmpegMake runs ffmpeg with args (inputs, filters, output options)
// writing to a new file name in dir, and returns its path.
func FFmpegMake(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	Run(t, "ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y"}, args...), path)...)
	return path
}

// ProbeResult is what ffprobe says about a file's first audio stream.
type ProbeResult struct {
	Codec      string
	SampleRate int
	Channels   int
	Duration   time.Duration
	Format     string
}

// FFprobe runs ffprobe on path and fails the test if ffprobe rejects it.
func FFprobe(t testing.TB, path string) ProbeResult {
	t.Helper()
	RequireTool(t, "ffprobe")
	cmd := exec.Command("ffprobe", "-v", "error", "-show_entries",
		"stream=codec_name,sample_rate,channels,duration:format=duration,format_name", "-of", "json", path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("ffprobe %s: %v\n%s", path, err, errb.String())
	}
	var v struct {
		Streams []struct {
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
			Duration   string `json:"duration"`
		}
		Format struct {
			Duration   string `json:"duration"`
			FormatName string `json:"format_name"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || len(v.Streams) == 0 {
		t.Fatalf("ffprobe %s: %v: %s", path, err, out.String())
	}
	s := v.Streams[0]
	rate, _ := strconv.Atoi(s.SampleRate)
	d := s.Duration
	if d == "" {
		d = v.Format.Duration
	}
	secs, _ := strconv.ParseFloat(d, 64)
	return ProbeResult{Codec: s.CodecName, SampleRate: rate, Channels: s.Channels,
		Duration: time.Duration(secs * float64(time.Second)), Format: v.Format.FormatName}
}

// AbsDur is the magnitude of d.
func AbsDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
