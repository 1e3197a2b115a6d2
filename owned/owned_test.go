package owned_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/owned"
)

func TestCheckRel(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"build/a.wav", ""},
		{"a.wav", ""},
		{".hidden/a.wav", ""},
		{"voxform.yaml.out", ""},
		{"", "is empty"},
		{"/etc/passwd", "absolute path"},
		{"../victim.txt", "outside the manifest directory"},
		{"..", "outside the manifest directory"},
		{"build/../../victim.txt", "outside the manifest directory"},
		{"build/../a.wav", "not in clean form"},
		{"./a.wav", "not in clean form"},
		{"build//a.wav", "not in clean form"},
		{".", "manifest directory itself"},
		{".voxform/hashes.json", ".voxform/"},
		{".voxform", ".voxform/"},
		{"voxform.state.json", "state files"},
		{"voxform.state.json.journal", "state files"},
		{"voxform.state.json.lock", "state files"},
		{".voxform.state.json.tmp-123", "state files"},
		{"a\x00b", "NUL"},
		{".git/hooks/pre-commit", "version control"},
		{".GIT/HEAD", "version control"},
		{"Voxform.State.Json", "state files"},
		{".VOXFORM/x", ".voxform/"},
	} {
		err := owned.CheckRel(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckRel(%q) = %v, want nil", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckRel(%q) = %v, want an error with %q", tc.path, err, tc.want)
		}
	}
}

// tree makes a manifest directory beside an outside directory holding
// victim.txt, and returns both.
func tree(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "project"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, ".voxform")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "victim.txt"), "the user's file")
	return dir, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, dir string) *owned.Root {
	t.Helper()
	r, err := owned.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestCheckResolvesSymlinks(t *testing.T) {
	dir, outside := tree(t)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(dir, "out")))               // leads outside
	must(os.Symlink(".voxform", filepath.Join(dir, "cache")))          // leads into .voxform
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))        // a real directory
	must(os.Symlink("real", filepath.Join(dir, "alias")))              // a link inside the tree
	must(os.Symlink("../outside/victim.txt", filepath.Join(dir, "v"))) // a file link
	r := open(t, dir)
	for _, tc := range []struct{ path, want string }{
		{"build/new/a.wav", ""},
		{"alias/sub/a.wav", ""},
		{"alias/new/a.wav", ""},
		{"out/a.wav", "outside the manifest directory"},
		{"out/deeper/a.wav", "outside the manifest directory"},
		{"cache/a.wav", ".voxform/"},
		{"v", "symbolic link"},
	} {
		err := r.Check(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%q) = %v, want an error with %q", tc.path, err, tc.want)
		}
	}
	// Writing through the outside link is refused, and nothing is made there.
	if _, err := r.OpenDir("out/x/a.wav", true); err == nil {
		t.Fatal("OpenDir through a link to outside succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !os.IsNotExist(err) {
		t.Fatalf("a directory was made outside: %v", err)
	}
	if err := r.Remove("out/victim.txt"); err == nil {
		t.Fatal("Remove through a link to outside succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "victim.txt")); err != nil {
		t.Fatalf("the outside file is gone: %v", err)
	}
}

func TestStateFileThroughLinkIsKept(t *testing.T) {
	dir, _ := tree(t)
	if err := os.MkdirAll(filepath.Join(dir, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "shared", "s.json"), "{}")
	if err := os.Symlink("shared/s.json", filepath.Join(dir, owned.StateFile)); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	for _, p := range []string{"shared/s.json", "shared/s.json.journal"} {
		if err := r.Check(p); err == nil || !strings.Contains(err.Error(), "state file") {
			t.Errorf("Check(%q) = %v, want the state file refused", p, err)
		}
	}
}

func TestCommitRefusesAFileItDidNotMake(t *testing.T) {
	dir, _ := tree(t)
	write(t, filepath.Join(dir, "a.wav"), "the user's recording")
	r := open(t, dir)
	d, err := r.OpenDir("a.wav", true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.CreateTemp("a.wav")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("voxform's audio")
	f.Close()
	err = d.Commit(filepath.Base(f.Name()), "a.wav", false)
	if !errors.Is(err, owned.ErrNotOwned) {
		t.Fatalf("Commit over a foreign file: %v, want ErrNotOwned", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.wav")); string(b) != "the user's recording" {
		t.Fatalf("the user's file was replaced: %q", b)
	}
	if err := d.Commit(filepath.Base(f.Name()), "a.wav", true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.wav")); string(b) != "voxform's audio" {
		t.Fatalf("replace did not replace: %q", b)
	}
}

func TestRenameRefusesToReplace(t *testing.T) {
	dir, _ := tree(t)
	write(t, filepath.Join(dir, "old.wav"), "voxform's output")
	write(t, filepath.Join(dir, "new.wav"), "the user's file")
	r := open(t, dir)
	if err := r.Rename("old.wav", "new.wav", false); !errors.Is(err, owned.ErrNotOwned) {
		t.Fatalf("Rename over a foreign file: %v", err)
	}
	for p, want := range map[string]string{"old.wav": "voxform's output", "new.wav": "the user's file"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
	if err := r.Rename("old.wav", "moved/old.wav", false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "moved", "old.wav")); string(b) != "voxform's output" {
		t.Fatalf("moved file = %q", b)
	}
}

// A directory swapped for a link after it was opened does not redirect
// the write: it lands in the directory that was checked.
func TestOpenDirHoldsTheCheckedDirectory(t *testing.T) {
	dir, outside := tree(t)
	r := open(t, dir)
	d, err := r.OpenDir("build/a.wav", true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Rename(filepath.Join(dir, "build"), filepath.Join(dir, "build.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	f, err := d.CreateTemp("a.wav")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := d.Commit(filepath.Base(f.Name()), "a.wav", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "a.wav")); !os.IsNotExist(err) {
		t.Fatalf("the write followed the swapped link outside: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "build.old", "a.wav")); err != nil {
		t.Fatalf("the write is not in the checked directory: %v", err)
	}
}

// TestTempNames: temporary files are recognised by their whole name, so
// that a sweep never takes a user's file for one.
func TestTempNames(t *testing.T) {
	for _, c := range []struct {
		entry, of string
		isTemp    bool
		isTempOf  bool
	}{
		{owned.TempPrefix("a.wav") + "0123456789abcdef", "a.wav", true, true},
		{".a.wav.tmp-12ab", "a.wav", false, true}, // an earlier version's state temp
		{owned.TempPrefix("a.wav") + "0123456789abcdef0", "a.wav", false, false},
		{owned.TempPrefix("a.wav") + "XYZ", "a.wav", false, false},
		{owned.TempPrefix("a.wav"), "a.wav", false, false},
		{"a.wav.voxform-tmp-12", "a.wav", false, false},
		{owned.TempPrefix("b.wav") + "12", "a.wav", true, false},
		{"notes.txt", "notes.txt", false, false},
	} {
		if got := owned.IsTemp(c.entry); got != c.isTemp {
			t.Errorf("IsTemp(%q) = %v, want %v", c.entry, got, c.isTemp)
		}
		if got := owned.IsTempOf(c.entry, c.of); got != c.isTempOf {
			t.Errorf("IsTempOf(%q, %q) = %v, want %v", c.entry, c.of, got, c.isTempOf)
		}
	}
}

// TestCheckManyFilesOfADirectory: past a few files of one directory, Check
// lists the directory once instead of asking about each file; a symbolic
// link among them is refused all the same, and a file of a directory not
// made yet is fine.
func TestCheckManyFilesOfADirectory(t *testing.T) {
	dir, outside := tree(t)
	build := filepath.Join(dir, "build")
	if err := os.Mkdir(build, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := range n {
		if i == 30 {
			if err := os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(build, "p30.wav")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(build, fmt.Sprintf("p%02d.wav", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, dir)
	for i := range n + 5 { // the last five do not exist
		err := r.Check(fmt.Sprintf("build/p%02d.wav", i))
		if i == 30 {
			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("build/p30.wav, a link: %v", err)
			}
		} else if err != nil {
			t.Errorf("build/p%02d.wav: %v", i, err)
		}
	}
	for i := range 10 {
		if err := r.Check(fmt.Sprintf("new/p%02d.wav", i)); err != nil {
			t.Errorf("new/p%02d.wav: %v", i, err)
		}
	}
}

// TestCheckLargeDirectory: a directory whose listing takes several reads
// (getdents64 answers in 64 KiB here) still has each of its links found,
// wherever they fall, and no file taken for one.
func TestCheckLargeDirectory(t *testing.T) {
	dir, outside := tree(t)
	build := filepath.Join(dir, "build")
	if err := os.Mkdir(build, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 3000 // names of about 100 bytes: over 300 KiB of entries
	pad := strings.Repeat("x", 90)
	name := func(i int) string { return fmt.Sprintf("p%04d-%s.wav", i, pad) }
	links := map[int]bool{0: true, 1234: true, n - 1: true}
	for i := range n {
		p := filepath.Join(build, name(i))
		var err error
		if links[i] {
			err = os.Symlink(filepath.Join(outside, "victim.txt"), p)
		} else {
			err = os.WriteFile(p, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, dir)
	for i := range n {
		err := r.Check("build/" + name(i))
		if links[i] {
			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("%s, a link: %v", name(i), err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", name(i), err)
		}
	}
}
