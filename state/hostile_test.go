package state

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/owned"
)

// Files a repository (or a local user) can plant where voxform keeps its
// own: links out of the project, hard links, pipes, and files too large to
// read. None may be followed, written through or read without bound.

// project makes a manifest directory beside an outside directory holding
// victim.txt, and returns both.
func project(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "project"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(outside, "victim.txt"), "the user's file")
	return dir, outside
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listing returns the names and contents of the files in dir.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

func TestLockFileIsNeverFollowed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, lock, outside string)
		want  string
	}{
		{"link to a file outside", func(t *testing.T, lock, outside string) {
			if err := os.Symlink("../outside/victim.txt", lock); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link; voxform keeps its own files there"},
		{"dangling link", func(t *testing.T, lock, outside string) {
			if err := os.Symlink("../outside/new.txt", lock); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link; voxform keeps its own files there"},
		{"hard link to a file outside", func(t *testing.T, lock, outside string) {
			if err := os.Link(filepath.Join(outside, "victim.txt"), lock); err != nil {
				t.Fatal(err)
			}
		}, "has 2 names (hard links); voxform keeps its own files there"},
		{"named pipe", func(t *testing.T, lock, outside string) {
			if err := syscall.Mkfifo(lock, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a named pipe, not a regular file"},
		{"directory", func(t *testing.T, lock, outside string) {
			if err := os.Mkdir(lock, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "is a directory, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := project(t)
			b := NewLocal(dir)
			tc.plant(t, b.LockPath(), outside)
			lk, err := b.Lock(context.Background(), "plan")
			if err == nil {
				lk.Unlock()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), b.LockPath()) {
				t.Errorf("Lock: %v, want an error naming %s with %q", err, b.LockPath(), tc.want)
			}
			if err := b.ForceUnlock(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ForceUnlock: %v, want an error with %q", err, tc.want)
			}
			if got, want := listing(t, outside), map[string]string{"victim.txt": "the user's file"}; !maps.Equal(got, want) {
				t.Errorf("outside the project: %v, want %v", names(got), names(want))
			}
			if _, err := os.Lstat(b.LockPath()); err != nil {
				t.Errorf("the planted lock file is gone: %v", err)
			}
		})
	}
}

// names lists the files of a listing, with their sizes.
func names(m map[string]string) []string {
	var out []string
	for n, c := range m {
		out = append(out, fmt.Sprintf("%s (%d bytes)", n, len(c)))
	}
	slices.Sort(out)
	return out
}

func TestJournalMustBeRegular(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, journal, outside string)
		want  string
	}{
		{"link to a file outside", func(t *testing.T, journal, outside string) {
			if err := os.Symlink("../outside/victim.txt", journal); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link; voxform keeps its own files there"},
		{"link to a device", func(t *testing.T, journal, outside string) {
			if err := os.Symlink(os.DevNull, journal); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link; voxform keeps its own files there"},
		{"named pipe", func(t *testing.T, journal, outside string) {
			if err := syscall.Mkfifo(journal, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is a named pipe, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := project(t)
			b := NewLocal(dir)
			recordOne(t, b, "synthesis.a")
			tc.plant(t, b.JournalPath(), outside)
			err := readUnblocked(t, b)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), b.JournalPath()) {
				t.Errorf("Read: %v, want an error naming %s with %q", err, b.JournalPath(), tc.want)
			}
			lk, err := b.Lock(context.Background(), "apply")
			if err != nil {
				t.Fatal(err)
			}
			defer lk.Unlock()
			if _, err := b.Open(context.Background(), lk, fixedNow); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want an error with %q", err, tc.want)
			}
			if _, err := os.Lstat(b.JournalPath()); err != nil {
				t.Errorf("the planted journal is gone: %v", err)
			}
			if got := listing(t, outside); got["victim.txt"] != "the user's file" || len(got) != 1 {
				t.Errorf("outside the project: %v, want victim.txt unchanged", names(got))
			}
		})
	}
}

// readUnblocked reads the state of b; should the read wait on a named pipe
// for a writer, it is given one that closes at once, and the test fails.
func readUnblocked(t *testing.T, b *Local) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := b.Read(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(b.JournalPath(), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("Read waited for a writer of a named pipe")
		return nil
	}
}

// journalWithBegin writes the begin record of a journal on top of the state
// of b and returns its path.
func journalWithBegin(t *testing.T, b *Local) string {
	t.Helper()
	st, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	line, err := encodeRecord(&record{Op: opBegin, Lineage: st.Lineage, BaseSerial: st.Serial})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, b.JournalPath(), string(line))
	return b.JournalPath()
}

func TestJournalLineLimit(t *testing.T) {
	put, err := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.b": sampleResource("b")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		after string // what follows the long line
	}{
		{"torn long last line", ""},
		{"long line in the middle", "\n" + string(put)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewLocal(t.TempDir())
			recordOne(t, b, "synthesis.a")
			path := journalWithBegin(t, b)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			if _, err := f.WriteAt(put, fi.Size()); err != nil {
				t.Fatal(err)
			}
			// A hole reads as zeros: a line of 4 * MaxJournalLine bytes
			// that takes no disk space.
			long := fi.Size() + int64(len(put)) + 4*MaxJournalLine
			if err := f.Truncate(long); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte(tc.after), long); err != nil {
				t.Fatal(err)
			}
			f.Close()

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = b.Read(context.Background())
			runtime.ReadMemStats(&after)
			want := "line 3 is longer than 64 MiB, the limit of a journal line"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Read: %v, want an error with %q", err, want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*MaxJournalLine {
				t.Errorf("reading the journal allocated %d MiB, want at most %d", alloc>>20, 3*MaxJournalLine>>20)
			}
			lk, err := b.Lock(context.Background(), "apply")
			if err != nil {
				t.Fatal(err)
			}
			defer lk.Unlock()
			if _, err := b.Open(context.Background(), lk, fixedNow); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Open: %v, want an error with %q", err, want)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the journal was removed: %v", err)
			}
		})
	}
}

// TestJournalTornLastLineEndsReplay: a torn line within the limit is what a
// kill leaves; it ends the replay, with no error, as before.
func TestJournalTornLastLineEndsReplay(t *testing.T) {
	b := NewLocal(t.TempDir())
	recordOne(t, b, "synthesis.a")
	path := journalWithBegin(t, b)
	put, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.b": sampleResource("b")}})
	torn, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.c": sampleResource("c")}})
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(put)
	f.Write(torn[:len(torn)-1])
	f.Close()
	st, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Addresses(); !slices.Equal(got, []string{"synthesis.a", "synthesis.b"}) {
		t.Errorf("replayed %v, want synthesis.a and synthesis.b", got)
	}
}

// TestJournalRecordOverLimitRefused: a record longer than a journal line
// may be is refused when written, so that replay never meets one.
func TestJournalRecordOverLimitRefused(t *testing.T) {
	b := NewLocal(t.TempDir())
	recordOne(t, b, "synthesis.a")
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	rec, err := b.Open(context.Background(), lk, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	err = rec.Record("synthesis.big", sampleResource(strings.Repeat("x", MaxJournalLine)))
	if want := "more than 64 MiB, the limit of a journal line"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Record: %v, want an error with %q", err, want)
	}
	if err := rec.Record("synthesis.b", sampleResource("b")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Addresses(); !slices.Equal(got, []string{"synthesis.a", "synthesis.b"}) {
		t.Errorf("state holds %v, want synthesis.a and synthesis.b", got)
	}
}

func TestStateFileSizeLimit(t *testing.T) {
	b := NewLocal(t.TempDir())
	// A hole: MaxStateSize + 1 bytes that take no disk space.
	if err := os.WriteFile(b.StatePath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(b.StatePath(), MaxStateSize+1); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := b.Read(context.Background())
	runtime.ReadMemStats(&after)
	want := "is larger than 1 GiB, the limit of a state file"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), b.StatePath()) {
		t.Errorf("Read: %v, want an error naming %s with %q", err, b.StatePath(), want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing the state file allocated %d KiB", alloc>>10)
	}
	lk, err := b.Lock(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	if _, err := b.Open(context.Background(), lk, fixedNow); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v, want an error with %q", err, want)
	}
}

func TestDecodeSizeLimit(t *testing.T) {
	const limit = 100
	small := `{"version": 1, "resources": {}}`
	if _, err := decode(strings.NewReader(small+strings.Repeat(" ", limit-len(small))), limit); err != nil {
		t.Errorf("a state of exactly the limit: %v", err)
	}
	_, err := decode(strings.NewReader(small+strings.Repeat(" ", limit)), limit)
	if want := "more than 100 bytes, the limit of a state file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("decode over the limit: %v, want an error with %q", err, want)
	}
}

// TestStateTempsSweptAtLock: the temporary files a process killed while
// writing the state left beside the real state file are removed when the
// lock is taken; nothing else is.
func TestStateTempsSweptAtLock(t *testing.T) {
	root, b1, _ := sharedProjects(t)
	recordOne(t, b1, "synthesis.a")
	shared, project := filepath.Join(root, "shared"), filepath.Join(root, "project1")
	writeFile(t, filepath.Join(root, "victim.txt"), "the user's file")
	prefix := "." + StateFileName + ".tmp-"
	// Earlier versions named them prefix+HEX; this one owned.TempPrefix.
	swept := []string{prefix + "2718281828", prefix + "0123456789abcdef", owned.TempPrefix(StateFileName) + "0badcafe"}
	kept := []string{prefix + "notours", prefix + "0123456789abcdef0", "." + StateFileName + ".tmp-", "x" + prefix + "12", ".other.json.tmp-12", owned.TempPrefix("other.json") + "12", owned.TempPrefix(StateFileName) + "xyz"}
	for _, n := range append(slices.Clone(swept), kept...) {
		writeFile(t, filepath.Join(shared, n), "partial state")
	}
	dirTemp, linkTemp, besideLink := prefix+"99", prefix+"feed", prefix+"31415"
	if err := os.Mkdir(filepath.Join(shared, dirTemp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "victim.txt"), filepath.Join(shared, linkTemp)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(project, besideLink), "not beside the real state file")
	kept = append(kept, dirTemp, linkTemp)

	lk, err := b1.Lock(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	for _, n := range swept {
		if _, err := os.Lstat(filepath.Join(shared, n)); !os.IsNotExist(err) {
			t.Errorf("%s not swept: %v", n, err)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(shared, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(project, besideLink)); err != nil {
		t.Errorf("a file beside the link was removed: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "victim.txt")); string(b) != "the user's file" {
		t.Errorf("victim.txt = %q, %v", b, err)
	}
	if st, err := b1.Read(context.Background()); err != nil || len(st.Resources) != 1 {
		t.Errorf("state after the sweep: %v, %v", st, err)
	}
}
