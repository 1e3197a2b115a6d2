package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedProjects makes two manifest directories whose state files are
// symbolic links to one state file in a third directory, as two projects
// sharing a state would: project1/voxform.state.json ->
// ../shared/voxform.state.json, and the same for project2. The shared state
// file is not created.
func sharedProjects(t *testing.T) (root string, b1, b2 *Local) {
	t.Helper()
	root = t.TempDir()
	for _, d := range []string{"shared", "project1", "project2"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"project1", "project2"} {
		if err := os.Symlink(filepath.Join("..", "shared", StateFileName), filepath.Join(root, p, StateFileName)); err != nil {
			t.Fatal(err)
		}
	}
	return root, NewLocal(filepath.Join(root, "project1")), NewLocal(filepath.Join(root, "project2"))
}

// recordOne writes a state holding addr through b.
func recordOne(t *testing.T, b *Local, addr string) {
	t.Helper()
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	rec, err := b.Open(context.Background(), lk, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(addr, sampleResource(addr)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// isLink reports whether path is a symbolic link.
func isLink(t *testing.T, path string) bool {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()&os.ModeSymlink != 0
}

// TestSharedStateOneLock: two manifest directories whose state files are
// links to one file contend for one lock; the second fails naming the
// first holder, before and after the shared file exists.
func TestSharedStateOneLock(t *testing.T) {
	root, b1, b2 := sharedProjects(t)
	for _, exists := range []bool{false, true} {
		if exists {
			recordOne(t, b1, "synthesis.a")
		}
		lk1, err := b1.Lock(context.Background(), "apply")
		if err != nil {
			t.Fatal(err)
		}
		lk2, err := b2.Lock(context.Background(), "apply")
		var le *LockedError
		if !errors.As(err, &le) {
			if lk2 != nil {
				lk2.Unlock()
			}
			lk1.Unlock()
			t.Fatalf("state exists %v: second lock through another link: %v, want a *LockedError", exists, err)
		}
		if le.Info.ID != lk1.Info().ID || le.Info.PID != os.Getpid() {
			t.Errorf("locked error names %+v, want the first holder %+v", le.Info, lk1.Info())
		}
		if want := filepath.Join(root, "shared", StateFileName+LockSuffix); !sameRealPath(t, le.Path, want) {
			t.Errorf("lock file %s, want %s", le.Path, want)
		}
		lk1.Unlock()
	}
	for _, p := range []string{"project1", "project2"} {
		if _, err := os.Lstat(filepath.Join(root, p, StateFileName+LockSuffix)); !os.IsNotExist(err) {
			t.Errorf("a lock file beside the link in %s: %v", p, err)
		}
	}
}

// sameRealPath compares two paths after resolving their directories (the
// temporary directory may itself be reached through a link).
func sameRealPath(t *testing.T, a, b string) bool {
	t.Helper()
	ra, err1 := filepath.EvalSymlinks(filepath.Dir(a))
	rb, err2 := filepath.EvalSymlinks(filepath.Dir(b))
	return err1 == nil && err2 == nil && filepath.Join(ra, filepath.Base(a)) == filepath.Join(rb, filepath.Base(b))
}

// TestSharedStateWriteKeepsLink: a write through one link replaces the real
// file, not the link; the other directory reads the new state; the journal
// of an apply is beside the real file.
func TestSharedStateWriteKeepsLink(t *testing.T) {
	root, b1, b2 := sharedProjects(t)
	recordOne(t, b1, "synthesis.a") // the first write creates the shared file

	lk, err := b2.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b2.Open(context.Background(), lk, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record("synthesis.b", sampleResource("b")); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "shared", StateFileName)
	if _, err := os.Stat(shared + JournalSuffix); err != nil {
		t.Errorf("no journal beside the real state file: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "project2", StateFileName+JournalSuffix)); !os.IsNotExist(err) {
		t.Errorf("a journal beside the link: %v", err)
	}
	if !sameRealPath(t, b1.JournalPath(), shared+JournalSuffix) {
		t.Errorf("JournalPath %s, want beside %s", b1.JournalPath(), shared)
	}
	mid, err := b1.Read(context.Background()) // the other directory sees the journal too
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mid.Resources["synthesis.b"]; !ok {
		t.Errorf("mid-apply read through the other link misses synthesis.b: %v", mid.Addresses())
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()

	for _, p := range []string{"project1", "project2"} {
		if !isLink(t, filepath.Join(root, p, StateFileName)) {
			t.Errorf("%s/%s is no longer a symbolic link", p, StateFileName)
		}
	}
	if isLink(t, shared) {
		t.Errorf("the shared state file is a link")
	}
	if _, err := os.Stat(shared + JournalSuffix); !os.IsNotExist(err) {
		t.Errorf("journal not removed after the fold: %v", err)
	}
	got, err := b1.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Serial != 2 || len(got.Resources) != 2 {
		t.Errorf("read through the other link: serial %d, resources %v; want serial 2 with synthesis.a and synthesis.b", got.Serial, got.Addresses())
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, "*", "."+StateFileName+".*tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestStateLinkResolution: chains of links, relative targets through a
// linked directory, and links to what is not a regular file.
func TestStateLinkResolution(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, at string) {
		if err := os.Symlink(target, filepath.Join(root, at)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/states")
	mk("elsewhere")
	mk("p-chain")
	mk("p-via-dir")
	mk("p-dir")
	mk("p-dev")
	mk("p-missing-dir")
	mk("p-loop")
	// p-chain -> hop -> real/states/s.json
	link(filepath.Join("real", "states", "s.json"), "hop")
	link(filepath.Join("..", "hop"), "p-chain/"+StateFileName)
	// elsewhere/in is a link to real/states: "in/../s.json" is
	// real/s.json, not elsewhere/s.json.
	link(filepath.Join("..", "real", "states"), "elsewhere/in")
	link("../elsewhere/in/../s.json", "p-via-dir/"+StateFileName)
	link(filepath.Join("..", "real"), "p-dir/"+StateFileName)
	link(os.DevNull, "p-dev/"+StateFileName)
	link(filepath.Join("..", "nowhere", "s.json"), "p-missing-dir/"+StateFileName)
	link(StateFileName, "p-loop/"+StateFileName)

	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, want, wantErr string
	}{
		{dir: "p-chain", want: "real/states/s.json"},
		{dir: "p-via-dir", want: "real/s.json"},
		{dir: "p-dir", wantErr: "is a directory, not a regular file"},
		{dir: "p-dev", wantErr: "is a device, not a regular file"},
		{dir: "p-missing-dir", wantErr: "no such file or directory"},
		{dir: "p-loop", wantErr: "more than 40 symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			b := NewLocal(filepath.Join(root, tt.dir))
			got, err := b.RealStatePath()
			if tt.wantErr == "" {
				if err != nil || got != filepath.Join(realRoot, tt.want) {
					t.Fatalf("RealStatePath = %q, %v; want %s", got, err, filepath.Join(realRoot, tt.want))
				}
				recordOne(t, b, "synthesis.a")
				if !isLink(t, b.StatePath()) {
					t.Errorf("the link was replaced")
				}
				if _, err := os.Stat(got); err != nil {
					t.Errorf("no state at the link's target: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("RealStatePath = %q, %v; want an error containing %q", got, err, tt.wantErr)
			}
			if _, err := b.Lock(context.Background(), "apply"); err == nil || !strings.HasPrefix(err.Error(), "lock state: ") {
				t.Errorf("Lock: %v, want a lock state error", err)
			}
			if _, err := b.Read(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "read state: ") {
				t.Errorf("Read: %v, want a read state error", err)
			}
		})
	}
}
