package audio_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func ffmpegPipe(t *testing.T, in []byte, args ...string) []byte {
	t.Helper()
	requireTool(t, "ffmpeg")
	cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-nostdin"}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// genFFmpeg writes a file made by ffmpeg from a 440 Hz sine of the given
// seconds, with extra output arguments, and returns its path.
func genFFmpeg(t testing.TB, name string, seconds float64, rate int, out ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi",
		"-i", "sine=frequency=440:sample_rate=" + strconv.Itoa(rate) + ":duration=" + strconv.FormatFloat(seconds, 'f', -1, 64)}
	args = append(args, out...)
	run(t, "ffmpeg", append(args, path)...)
	return path
}

// probeResult is what ffprobe says about a file's first audio stream.
type probeResult struct {
	Codec      string
	SampleRate int
	Channels   int
	Duration   time.Duration
	Format     string
}

// ffprobe runs ffprobe on path and fails the test if ffprobe rejects it.
func ffprobe(t testing.TB, path string) probeResult {
	t.Helper()
	requireTool(t, "ffprobe")
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
	return probeResult{Codec: s.CodecName, SampleRate: rate, Channels: s.Channels,
		Duration: time.Duration(secs * float64(time.Second)), Format: v.Format.FormatName}
}
