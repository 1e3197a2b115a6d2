package cache_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/owned"
)

func TestGC(t *testing.T) {
	// Entries a, b and d were last used two days ago, c an hour ago.
	// "shared" is a blob of both d and c; "orphan" is nobody's.
	for _, tc := range []struct {
		name        string
		touchA      bool // a used now (Touch)
		keep        []string
		olderThan   time.Duration
		dryRun      bool
		wantEntries []string // left
		wantBlobs   []string // left
		wantReport  [2]int   // entries, blobs removed
	}{
		{"everything", false, nil, 0, false, nil, nil, [2]int{4, 5}},
		{"keep b", false, []string{"b"}, 0, false, []string{"b"}, []string{"b"}, [2]int{3, 4}},
		{"older than a day", false, nil, 24 * time.Hour, false, []string{"c"}, []string{"c", "shared"}, [2]int{3, 3}},
		{"keep b, older than a day", false, []string{"b"}, 24 * time.Hour, false, []string{"b", "c"}, []string{"b", "c", "shared"}, [2]int{2, 2}},
		{"dry run", false, []string{"b"}, 24 * time.Hour, true, []string{"b", "c"}, []string{"b", "c", "shared"}, [2]int{2, 2}},
		{"touched", true, nil, 24 * time.Hour, false, []string{"a", "c"}, []string{"a", "c", "shared"}, [2]int{2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			l := openLocal(t)
			blobs := map[string]string{} // sha → name
			entries := map[string]string{}
			add := func(name string, mtime time.Time, files map[string]string) {
				e := store(t, l, name, files)
				entries[e.Fingerprint] = name
				for _, f := range e.Files {
					blobs[f.SHA256] = files[f.Role]
				}
				os.Chtimes(entryPath(l, e.Fingerprint), mtime, mtime)
				if name == "a" && tc.touchA {
					l.Touch(e.Fingerprint)
				}
			}
			old, recent := now.Add(-48*time.Hour), now.Add(-time.Hour)
			add("a", old, map[string]string{"audio": "a"})
			add("b", old, map[string]string{"audio": "b"})
			add("c", recent, map[string]string{"json": "c", "txt": "shared"})
			add("d", old, map[string]string{"json": "shared"})
			orphan := store(t, l, "orphan", map[string]string{"audio": "orphan"})
			os.Remove(entryPath(l, orphan.Fingerprint))
			blobs[orphan.Files[0].SHA256] = "orphan"
			// Temporary files of writes in progress are not GC's.
			temps := []string{
				filepath.Join(l.Dir(), "v1", "blobs", "ab", owned.TempPrefix(sum([]byte("t")))+"0123456789abcdef"),
				filepath.Join(l.Dir(), "v1", "entries", "ab", owned.TempPrefix(fpOf("t")+".json")+"0123"),
			}
			for _, p := range temps {
				os.MkdirAll(filepath.Dir(p), 0o700)
				os.WriteFile(p, []byte("partial"), 0o600)
				os.Chtimes(p, old, old)
			}
			before := map[string]int64{}
			for _, f := range files(t, l.Dir()) {
				st, _ := os.Stat(filepath.Join(l.Dir(), f))
				before[f] = st.Size()
			}
			opts := cache.GCOptions{OlderThan: tc.olderThan, Now: now, DryRun: tc.dryRun}
			if tc.keep != nil {
				opts.Keep = func(fp string) bool { return slices.Contains(tc.keep, entries[fp]) }
			}
			rep, err := l.GC(opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.dryRun {
				if got := len(files(t, l.Dir())); got != len(before) {
					t.Fatalf("a dry run removed %d files", len(before)-got)
				}
				// A real run removes just what the dry run reported.
				opts.DryRun = false
				real, err := l.GC(opts)
				if err != nil {
					t.Fatal(err)
				}
				if real != rep {
					t.Errorf("dry run reported %+v, the real run %+v", rep, real)
				}
			}
			var leftEntries, leftBlobs []string
			for fp, name := range entries {
				if l.Has(fp) {
					leftEntries = append(leftEntries, name)
				}
			}
			for sha, name := range blobs {
				if _, err := os.Stat(blobPath(l, sha)); err == nil {
					leftBlobs = append(leftBlobs, name)
				}
			}
			sort.Strings(leftEntries)
			sort.Strings(leftBlobs)
			if diff := cmp.Diff(tc.wantEntries, leftEntries); diff != "" {
				t.Errorf("entries left (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantBlobs, leftBlobs); diff != "" {
				t.Errorf("blobs left (-want +got):\n%s", diff)
			}
			if got := [2]int{rep.Entries, rep.Blobs}; got != tc.wantReport {
				t.Errorf("report counts %v, want %v", got, tc.wantReport)
			}
			after := map[string]bool{}
			for _, f := range files(t, l.Dir()) {
				after[f] = true
			}
			var removed int64
			for f, n := range before {
				if !after[f] {
					removed += n
				}
			}
			if rep.Bytes != removed {
				t.Errorf("report bytes %d, want %d (removed)", rep.Bytes, removed)
			}
			for _, p := range temps {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("temporary file removed by GC: %v", err)
				}
			}
		})
	}
}

// TestInterruptedWrites: the temporary files of a write that never ended
// are never taken for entries or blobs, and OpenLocal sweeps them, but
// only when no writer holds the cache lock.
func TestInterruptedWrites(t *testing.T) {
	l := openLocal(t)
	e, _ := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "complete content"})
	sha := e.Files[0].SHA256
	blobTemp := filepath.Join(l.Dir(), "v1", "blobs", sha[:2], owned.TempPrefix(sha)+"00ff00ff00ff00ff")
	entryTemp := filepath.Join(l.Dir(), "v1", "entries", e.Fingerprint[:2], owned.TempPrefix(e.Fingerprint+".json")+"0a0b")
	entryJSON := `{"version":1,"fingerprint":"` + e.Fingerprint + `","kind":"synthesis","files":[{"role":"audio","sha256":"` + sha + `","size":16}]}`
	for p, content := range map[string]string{blobTemp: "complete content", entryTemp: entryJSON} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if l.Has(e.Fingerprint) {
		t.Error("a temporary entry is visible")
	}
	if got, err := l.Entry(e.Fingerprint); got != nil || err != nil {
		t.Errorf("Entry = %v, %v; want nil, nil", got, err)
	}
	if _, err := copyOut(t, l, sha); err == nil {
		t.Error("a temporary blob was copied out")
	}
	if rep, err := l.GC(cache.GCOptions{}); err != nil || rep != (cache.GCReport{}) {
		t.Errorf("GC = %+v, %v; want nothing removed", rep, err)
	}

	// A writer in progress (the shared lock, as Store holds it): its
	// temporary files are left alone.
	lock, err := os.OpenFile(filepath.Join(l.Dir(), "v1", "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.OpenLocal(l.Dir()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{blobTemp, entryTemp} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("swept during a write: %v", err)
		}
	}
	lock.Close()

	if _, err := cache.OpenLocal(l.Dir()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{blobTemp, entryTemp} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not swept: %v", filepath.Base(p), err)
		}
	}
}

// TestGCWaitsForStore: GC started while a Store is midway (one blob
// written, the entry not yet) waits for it, and then keeps what the
// finished Store references.
func TestGCWaitsForStore(t *testing.T) {
	l := openLocal(t)
	second := strings.Repeat("s", 1000)
	e, paths := outputs(t, fpOf("x"), "transcription", map[string]string{"json": "x", "txt": second})
	waiting, done := make(chan struct{}), make(chan error, 1)
	var ran bool
	cache.SetCopyHook(func(n int64) {
		if n != int64(len(second)) || ran {
			return
		}
		ran = true // the first blob is in place, the second being copied
		cache.SetGCHook(func() { close(waiting) })
		go func() {
			_, err := l.GC(cache.GCOptions{Keep: func(fp string) bool { return fp == e.Fingerprint }})
			done <- err
		}()
		select {
		case <-waiting:
		case err := <-done:
			t.Error("GC ran during a Store")
			done <- err
		case <-time.After(30 * time.Second):
			t.Error("GC neither waited nor ran")
		}
	})
	defer cache.SetCopyHook(nil)
	defer cache.SetGCHook(nil)
	if err := l.Store(e, paths); err != nil {
		t.Fatal(err)
	}
	if !ran {
		t.Fatal("the copy hook never ran")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, f := range e.Files {
		if _, err := copyOut(t, l, f.SHA256); err != nil {
			t.Errorf("%s after GC: %v", f.Role, err)
		}
	}
}
