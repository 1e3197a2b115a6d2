package cache_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/voxform/voxform/cache"
)

// sum is the SHA-256 of data in lowercase hex.
func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// fpOf is a fingerprint made from a name.
func fpOf(name string) string { return sum([]byte("request " + name)) }

// outputs writes files (role → content) into a new directory, as a
// project's outputs, and returns the entry of fp describing them and the
// paths Store takes.
func outputs(t *testing.T, fp, kind string, files map[string]string) (*cache.Entry, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	e := &cache.Entry{
		Version:     cache.FormatVersion,
		Fingerprint: fp,
		Kind:        kind,
		Meta:        cache.Meta{DurationSeconds: 1.5, DetectedLanguage: "en", Model: "m1"},
		CreatedAt:   time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	paths := map[string]string{}
	roles := make([]string, 0, len(files))
	for role := range files {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		data := []byte(files[role])
		p := filepath.Join(dir, role+".out")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[role] = p
		e.Files = append(e.Files, cache.File{Role: role, SHA256: sum(data), Size: int64(len(data))})
	}
	return e, paths
}

// openLocal opens a local cache in a new directory.
func openLocal(t *testing.T) *cache.Local {
	t.Helper()
	l, err := cache.OpenLocal(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// store stores an entry of files (role → content) under fp's name.
func store(t *testing.T, l *cache.Local, name string, files map[string]string) *cache.Entry {
	t.Helper()
	e, paths := outputs(t, fpOf(name), "synthesis", files)
	if err := l.Store(e, paths); err != nil {
		t.Fatalf("Store: %v", err)
	}
	return e
}

func entryPath(l *cache.Local, fp string) string {
	return filepath.Join(l.Dir(), "v1", "entries", fp[:2], fp+".json")
}

func blobPath(l *cache.Local, sha string) string {
	return filepath.Join(l.Dir(), "v1", "blobs", sha[:2], sha)
}

// files lists every file below dir (relative paths), temporary ones too.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyOut copies the blob sha out of l with CopyBlob and returns it.
func copyOut(t *testing.T, l *cache.Local, sha string) ([]byte, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := l.CopyBlob(sha, f); err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}
