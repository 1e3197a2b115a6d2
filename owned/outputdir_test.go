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
