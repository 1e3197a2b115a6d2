package cache_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/cache"
)

func TestStoreRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		files      map[string]string
	}{
		{"synthesis", "synthesis", map[string]string{"audio": "RIFF....WAVEfmt audio bytes"}},
		{"embedding", "embedding", map[string]string{"embedding": `{"vector":[0.1,0.2]}`}},
		{"transcription", "transcription", map[string]string{
			"json": `{"text":"hello"}`, "txt": "hello\n", "srt": "1\n00:00:00,000 --> 00:00:01,000\nhello\n", "vtt": "WEBVTT\n\nhello\n",
		}},
		{"same content twice", "transcription", map[string]string{"txt": "hello", "json": "hello"}},
		{"empty file", "transcription", map[string]string{"txt": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := openLocal(t)
			e, paths := outputs(t, fpOf(tc.name), tc.kind, tc.files)
			if l.Has(e.Fingerprint) {
				t.Fatal("Has before Store")
			}
			if got, err := l.Entry(e.Fingerprint); got != nil || err != nil {
				t.Fatalf("Entry before Store = %v, %v; want nil, nil", got, err)
			}
			if err := l.Store(e, paths); err != nil {
				t.Fatal(err)
			}
			if !l.Has(e.Fingerprint) {
				t.Fatal("not Has after Store")
			}
			got, err := l.Entry(e.Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Errorf("Entry (-stored +read):\n%s", diff)
			}
			for role, content := range tc.files {
				f, ok := got.File(role)
				if !ok {
					t.Fatalf("no file %s", role)
				}
				data, err := copyOut(t, l, f.SHA256)
				if err != nil {
					t.Fatal(err)
				}
				if string(data) != content {
					t.Errorf("%s: CopyBlob gave %q, want %q", role, data, content)
				}
			}
			// Idempotent: stored again, the blobs are not rewritten.
			before := inodes(t, l, e)
			if err := l.Store(e, paths); err != nil {
				t.Fatalf("Store again: %v", err)
			}
			if diff := cmp.Diff(before, inodes(t, l, e)); diff != "" {
				t.Errorf("blobs rewritten by a second Store (-before +after):\n%s", diff)
			}
		})
	}
}

// inodes maps each blob of e to its inode.
func inodes(t *testing.T, l *cache.Local, e *cache.Entry) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, f := range e.Files {
		st, err := os.Stat(blobPath(l, f.SHA256))
		if err != nil {
			t.Fatal(err)
		}
		out[f.SHA256] = st.Sys().(*syscall.Stat_t).Ino
	}
	return out
}

// TestStoreNeverLinks: a blob is its own file, so an in-place edit of the
// project's file after Store leaves the cached content alone.
func TestStoreNeverLinks(t *testing.T) {
	l := openLocal(t)
	e, paths := outputs(t, fpOf("x"), "synthesis", map[string]string{"audio": "original audio"})
	if err := l.Store(e, paths); err != nil {
		t.Fatal(err)
	}
	src, _ := os.Stat(paths["audio"])
	blob, _ := os.Stat(blobPath(l, e.Files[0].SHA256))
	if os.SameFile(src, blob) || blob.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Fatal("the blob is a hard link")
	}
	f, err := os.OpenFile(paths["audio"], os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("EDITED"), 0)
	f.Close()
	data, err := copyOut(t, l, e.Files[0].SHA256)
	if err != nil || string(data) != "original audio" {
		t.Fatalf("CopyBlob after an edit of the source = %q, %v; want the original", data, err)
	}
}

func TestStoreRefusesMismatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		break_  func(e *cache.Entry, paths map[string]string)
		corrupt bool
	}{
		{"wrong sha256", func(e *cache.Entry, _ map[string]string) { e.Files[1].SHA256 = sum([]byte("other")) }, true},
		{"wrong size", func(e *cache.Entry, _ map[string]string) { e.Files[1].Size++ }, true},
		{"file changed since", func(_ *cache.Entry, p map[string]string) { os.WriteFile(p["txt"], []byte("HELLO"), 0o644) }, true},
		{"no path for a file", func(_ *cache.Entry, p map[string]string) { delete(p, "txt") }, false},
		{"a path for no file", func(_ *cache.Entry, p map[string]string) { p["vtt"] = p["txt"] }, false},
		{"missing file", func(_ *cache.Entry, p map[string]string) { os.Remove(p["txt"]) }, false},
		{"a directory", func(_ *cache.Entry, p map[string]string) { p["txt"] = filepath.Dir(p["txt"]) }, false},
		{"unknown role", func(e *cache.Entry, p map[string]string) {
			e.Files[1].Role = "mp3"
			p["mp3"] = p["txt"]
			delete(p, "txt")
		}, true},
		{"uppercase sha256", func(e *cache.Entry, _ map[string]string) { e.Files[1].SHA256 = strings.ToUpper(e.Files[1].SHA256) }, true},
		{"other version", func(e *cache.Entry, _ map[string]string) { e.Version = 2 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := openLocal(t)
			e, paths := outputs(t, fpOf("x"), "transcription", map[string]string{"json": `{"text":"hello"}`, "txt": "hello"})
			tc.break_(e, paths)
			err := l.Store(e, paths)
			if err == nil {
				t.Fatal("Store succeeded")
			}
			if errors.Is(err, cache.ErrCorrupt) != tc.corrupt {
				t.Errorf("Store = %v; wrapping ErrCorrupt: %v, want %v", err, !tc.corrupt, tc.corrupt)
			}
			if l.Has(e.Fingerprint) {
				t.Error("an entry was stored")
			}
			for _, f := range files(t, filepath.Join(l.Dir(), "v1")) {
				if strings.HasPrefix(f, "blobs/") && strings.HasSuffix(f, e.Files[1].SHA256) {
					t.Errorf("blob %s stored", f)
				}
				if strings.Contains(f, ".voxform-tmp-") {
					t.Errorf("temporary file %s left", f)
				}
			}
		})
	}
}

func TestCopyBlobVerifies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string // what the blob is changed to
	}{
		{"same size", "HELLO WORLD"},
		{"shorter", "hello"},
		{"longer", "hello world, and more"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := openLocal(t)
			e := store(t, l, "x", map[string]string{"audio": "hello world"})
			sha := e.Files[0].SHA256
			if err := os.WriteFile(blobPath(l, sha), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "out")
			dst, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			err = l.CopyBlob(sha, dst)
			if !errors.Is(err, cache.ErrCorrupt) {
				t.Fatalf("CopyBlob = %v, want ErrCorrupt", err)
			}
			if st, _ := dst.Stat(); st.Size() != 0 {
				t.Errorf("dst holds %d bytes, want 0", st.Size())
			}
			if _, err := os.Stat(blobPath(l, sha)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("corrupt blob still there: %v", err)
			}
			if _, err := copyOut(t, l, sha); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("CopyBlob again = %v, want not exist", err)
			}
		})
	}
}

func TestMalformedEntryRemoved(t *testing.T) {
	fp := fpOf("x")
	good := `{"version":1,"fingerprint":"` + fp + `","kind":"synthesis","files":[{"role":"audio","sha256":"` + sum(nil) + `","size":0}]}`
	for _, tc := range []struct {
		name, content, want string
	}{
		{"not JSON", "{not json", "invalid character"},
		{"empty", "", "EOF"},
		{"other version", strings.Replace(good, `"version":1`, `"version":2`, 1), "version 2, want 1"},
		{"other fingerprint", strings.Replace(good, fp, fpOf("y"), 1), "fingerprint"},
		{"invalid sha256", strings.Replace(good, sum(nil), "../../etc/passwd", 1), "invalid sha256"},
		{"unknown role", strings.Replace(good, `"audio"`, `"exe"`, 1), "unknown file role"},
		{"no kind", strings.Replace(good, `"synthesis"`, `""`, 1), "no kind"},
		{"unknown kind", strings.Replace(good, `"synthesis"`, `"\u001b[2Kvoice"`, 1), `unknown kind "\x1b[2Kvoice"`},
		{"negative size", strings.Replace(good, `"size":0`, `"size":-1`, 1), "negative size"},
		{"data after", good + "{}", "data after"},
		{"too large", good + strings.Repeat(" ", cache.MaxEntrySize), "limit of 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := openLocal(t)
			p := entryPath(l, fp)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			e, err := l.Entry(fp)
			if e != nil || !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Entry = %v, %v; want ErrCorrupt with %q", e, err, tc.want)
			}
			if l.Has(fp) {
				t.Error("malformed entry not removed")
			}
		})
	}
	t.Run("good", func(t *testing.T) {
		l := openLocal(t)
		p := entryPath(l, fp)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(good), 0o600)
		if e, err := l.Entry(fp); e == nil || err != nil {
			t.Fatalf("Entry = %v, %v", e, err)
		}
	})
}

func TestHostileKeysRefused(t *testing.T) {
	valid := fpOf("x")
	for _, key := range []string{
		"", "../x", "../../victim", strings.ToUpper(valid), valid[:63], valid + "0",
		"../" + valid[3:], valid[:62] + "/x", valid[:63] + "g", valid[:32] + "\x00" + valid[33:],
	} {
		t.Run(key, func(t *testing.T) {
			base := t.TempDir()
			victim := filepath.Join(base, "victim.json")
			os.WriteFile(victim, []byte("victim"), 0o644)
			l, err := cache.OpenLocal(filepath.Join(base, "c"))
			if err != nil {
				t.Fatal(err)
			}
			if l.Has(key) {
				t.Error("Has")
			}
			if e, err := l.Entry(key); e != nil || err == nil || !strings.Contains(err.Error(), "invalid fingerprint") {
				t.Errorf("Entry = %v, %v; want an invalid fingerprint error", e, err)
			}
			if err := l.Remove(key); err == nil {
				t.Error("Remove succeeded")
			}
			l.Touch(key)
			e, paths := outputs(t, valid, "synthesis", map[string]string{"audio": "a"})
			e.Fingerprint = key
			if err := l.Store(e, paths); err == nil {
				t.Error("Store succeeded")
			}
			if err := l.CopyBlob(key, nil); err == nil || !strings.Contains(err.Error(), "invalid sha256") {
				t.Errorf("CopyBlob = %v, want an invalid sha256 error", err)
			}
			c := &cache.Cache{Local: l}
			if e, err := c.Fetch(t.Context(), key); e != nil || err == nil {
				t.Errorf("Fetch = %v, %v; want an error", e, err)
			}
			if got, err := c.Lookup(t.Context(), []string{key}); err != nil || len(got) != 0 {
				t.Errorf("Lookup = %v, %v; want nothing", got, err)
			}
			if data, _ := os.ReadFile(victim); string(data) != "victim" {
				t.Error("victim touched")
			}
			if got := files(t, base); !cmp.Equal(got, []string{"c/v1/lock", "victim.json"}) {
				t.Errorf("files = %v", got)
			}
		})
	}
}
