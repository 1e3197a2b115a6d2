package owned

import (
	"os"
	"path/filepath"
	"testing"
)

// OutputDir opens a directory once for the outputs written into it, and
// opens it again, checked, once it is no longer where it was.
func TestOutputDirKeepsTheCheckedHandle(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	use := func(rel string) *Dir {
		t.Helper()
		d, err := r.OutputDir(rel)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := use("build/a.raw")
	a.Close()
	b := use("build/b.raw")
	if a.fd != b.fd {
		t.Errorf("the second output of build/ opened it again (fd %d, then %d)", a.fd, b.fd)
	}
	if err := b.Writable(); err != nil {
		t.Fatalf("the kept handle was closed with a use of it: %v", err)
	}
	if err := os.Rename(filepath.Join(dir, "build"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	c := use("build/c.raw")
	if c.fd == b.fd || c.real != filepath.Join(r.real, "build") {
		t.Errorf("a directory moved away was used again: fd %d at %s", c.fd, c.real)
	}
	if err := b.Writable(); err != nil {
		t.Errorf("a retired handle was closed while a use of it may run: %v", err)
	}
}

// Each use of a kept directory counts among the directory's writers until
// it is closed, and a use refused after it was taken (an output path that
// resolves to the state file) is released: a lone writer's syncs of the
// directory do not wait for outputs that are not coming.
func TestOutputDirCountsItsWriters(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "shared", "state.json"), []byte("{}"), 0o644)
	if err := os.Symlink("shared/state.json", filepath.Join(dir, StateFile)); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := r.OutputDir("shared/a.raw")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.OutputDir("shared/b.raw")
	if err != nil {
		t.Fatal(err)
	}
	if n := a.group.writers; n != 2 {
		t.Errorf("%d writers counted with two outputs open in shared/, want 2", n)
	}
	if _, err := r.OutputDir("shared/state.json"); err == nil {
		t.Fatal("an output at the state file's real path was accepted")
	}
	a.Close()
	b.Close()
	b.Close()
	if n := a.group.writers; n != 0 {
		t.Errorf("%d writers counted once every use is closed, want 0", n)
	}
}
