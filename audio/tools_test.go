package audio_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
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
