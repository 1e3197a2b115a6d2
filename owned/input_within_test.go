package owned_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/owned"
)

// TestOpenInputWithin: a link out of the manifest directory is read only
// when it leads into a directory the manifest names explicitly (itself
// possibly reached through a link); a link anywhere else, a procfs file
// among them, is refused as OpenInput refuses it, and so is a file of the
// named directory that is not a regular file.
func TestOpenInputWithin(t *testing.T) {
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	writeInput(t, shared, "a.wav", "recording")
	writeInput(t, base, "private/key.txt", "secret")
	if err := os.Symlink(shared, filepath.Join(base, "shared-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(shared, "environ.wav")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"recordings": shared,
		"key.wav":    filepath.Join(base, "private/key.txt"),
		"environ":    "/proc/self/environ",
		"proc":       "/proc/self",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	const outside = "leads outside the manifest directory through a symbolic link"
	for _, tc := range []struct {
		name    string
		dirs    []string
		want    string
		refused string
	}{
		{name: "recordings/a.wav", refused: outside},
		{name: "recordings/a.wav", dirs: []string{shared}, want: "recording"},
		{name: "recordings/a.wav", dirs: []string{filepath.Join(base, "shared-link")}, want: "recording"},
		{name: "recordings/a.wav", dirs: []string{filepath.Join(base, "private")}, refused: outside},
		{name: "key.wav", dirs: []string{shared}, refused: outside},
		{name: "environ", dirs: []string{shared}, refused: outside},
		{name: "proc/environ", dirs: []string{shared}, refused: outside},
		{name: "recordings/environ.wav", dirs: []string{shared}, refused: outside},
		{name: "recordings/environ.wav", dirs: []string{shared, "/proc"}, refused: "is a file of the kernel's proc file system"},
		{name: "recordings", dirs: []string{shared}, refused: "is a directory, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := owned.OpenInputWithin(dir, tc.name, tc.dirs)
			if tc.refused != "" {
				if err == nil {
					f.Close()
					t.Fatalf("opened within %v; want refused: %s", tc.dirs, tc.refused)
				}
				if !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("error %q; want one saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if b, err := io.ReadAll(f); err != nil || string(b) != tc.want {
				t.Errorf("read %q, %v; want %q", b, err, tc.want)
			}
		})
	}
}
