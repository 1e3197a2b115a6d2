package owned_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/voxform/voxform/owned"
)

// TestOpenInput: an input named inside the manifest directory is read only
// where it really is inside it (a link out of it, or a directory on its
// way that leads out, is refused before the file is opened); an input
// named outside is opened as named; and only a regular file is read, never
// a directory, a named pipe, a device or a procfs file.
func TestOpenInput(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	writeInput(t, outside, "secret.txt", "outside")
	dir := filepath.Join(base, "project")
	writeInput(t, dir, "texts/a.txt", "inside")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "secret.txt"), "out.txt")
	link("/proc/self/environ", "environ.txt")
	link(outside, "shared")
	link("texts/a.txt", "rel-in.txt")
	link(filepath.Join(dir, "texts/a.txt"), "abs-in.txt")
	writeInput(t, dir, ".git/config", "[http] extraheader = AUTHORIZATION: basic TOKEN")
	writeInput(t, dir, "vendor/lib/.git/config", "TOKEN")
	writeInput(t, dir, ".voxform/hashes.bin", "cache")
	link(".git/config", "notes.txt")
	link("vendor/lib/.git/config", "notes2.txt")
	link(".voxform/hashes.bin", "notes3.txt")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want, refused string }{
		{name: "texts/a.txt", want: "inside"},
		{name: "rel-in.txt", want: "inside"},
		{name: "abs-in.txt", want: "inside"},
		{name: filepath.Join(outside, "secret.txt"), want: "outside"}, // named explicitly
		{name: "../outside/secret.txt", want: "outside"},              // spelled outside: named explicitly
		{name: "out.txt", refused: "leads outside the manifest directory through a symbolic link"},
		// Spelled through ".." or absolute but leading back into the
		// project: a file of the project, checked as one.
		{name: "../project/out.txt", refused: "leads outside the manifest directory through a symbolic link"},
		{name: filepath.Join(dir, "out.txt"), refused: "leads outside the manifest directory through a symbolic link"},
		{name: "../project/texts/a.txt", want: "inside"},
		// Links inside the project to version control's or voxform's own
		// files (a CI checkout keeps its token in .git/config).
		{name: "notes.txt", refused: `resolves to ".git/config", which is inside .git/, which belongs to version control`},
		{name: "notes2.txt", refused: "inside .git/, which belongs to version control"},
		{name: "notes3.txt", refused: "which voxform keeps for its caches"},
		{name: ".git/config", refused: "belongs to version control"},
		{name: "environ.txt", refused: "leads outside the manifest directory through a symbolic link"},
		{name: "shared/secret.txt", refused: "leads outside the manifest directory through a symbolic link"},
		{name: "texts", refused: "is a directory, not a regular file"},
		{name: "pipe.txt", refused: "is a named pipe or socket, not a regular file"},
		{name: "/dev/zero", refused: "is a device, not a regular file"},
		{name: "/proc/self/environ", refused: "is a file of the kernel's proc file system, not a regular file"},
		{name: "/proc/self/status", refused: "is a file of the kernel's proc file system, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := owned.OpenInput(dir, tc.name)
			if tc.refused != "" {
				if err == nil {
					f.Close()
					t.Fatalf("opened; want refused: %s", tc.refused)
				}
				if !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("error %q; want one saying %q", err, tc.refused)
				}
				var oe *owned.Error
				if errors.As(err, &oe) && oe.Path != tc.name {
					t.Errorf("error names %q; want the input as named, %q", oe.Path, tc.name)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if err != nil || string(b) != tc.want {
				t.Errorf("read %q, %v; want %q", b, err, tc.want)
			}
		})
	}
}

// TestOpenInputLinkNotFollowedOut: a refused link's target is never opened:
// a named pipe outside the project, reached through a link, would block an
// open without O_NONBLOCK and is not even reached.
func TestOpenInputLinkNotFollowedOut(t *testing.T) {
	outside := t.TempDir()
	pipe := filepath.Join(outside, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(pipe, filepath.Join(dir, "p.csv")); err != nil {
		t.Fatal(err)
	}
	r, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.ReadInput("p.csv", 10)
	var oe *owned.Error
	if !errors.As(err, &oe) || !strings.Contains(oe.Reason, "leads outside") {
		t.Fatalf("error %v; want the link refused as leading outside", err)
	}
	if strings.Contains(err.Error(), outside) {
		t.Errorf("error %q names the link's target", err)
	}
}

func writeInput(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
