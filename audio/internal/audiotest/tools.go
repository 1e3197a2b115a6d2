package audiotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
