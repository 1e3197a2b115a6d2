package state

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnredactedPathOnlyThere: a state can name a kept transcript only at
// the path voxform gives it; any other path (an output, a file outside,
// a traversal) is refused before it reaches a file operation.
func TestUnredactedPathOnlyThere(t *testing.T) {
	good := UnredactedPath(`transcription.calls["a.wav"]`)
	if !IsUnredactedPath(good) {
		t.Fatalf("%s refused", good)
	}
	for _, p := range []string{"out/a.json", ".voxform/unredacted/../../secret.json", "/etc/passwd",
		".voxform/unredacted/" + strings.Repeat("A", 32) + ".json", ".voxform/unredacted/x.json", ".voxform/state.snapshot"} {
		if IsUnredactedPath(p) {
			t.Errorf("%s accepted", p)
		}
		r := (&Resource{}).WithDetails(Details{Redaction: &Redaction{Policy: "mobile", Version: 1, Unredacted: &Kept{Path: p, SHA256: strings.Repeat("a", 64)}}})
		if err := r.CheckPaths(); err == nil {
			t.Errorf("a state naming %s as the kept transcript was accepted", p)
		}
	}
	for _, r := range []*Redaction{
		{Policy: "", Version: 1},
		{Policy: "mobile\n,x", Version: 1},
		{Policy: strings.Repeat("a", MaxPolicyLen+1), Version: 1},
		{Policy: "mobile", Version: -1},
		{Policy: "mobile", Version: 1, Unredacted: &Kept{Path: good, SHA256: "xyz"}},
	} {
		if err := r.Check(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// TestKeepUnredacted: the kept transcript is owner-readable only, in an
// owner-only directory, read back as kept, removed by RemoveUnredacted; a
// link in its place (a directory a repository could hold) is never
// followed.
func TestKeepUnredacted(t *testing.T) {
	dir := t.TempDir()
	const addr = `transcription.calls["a.wav"]`
	k, err := KeepUnredacted(dir, addr, func(w io.Writer) error { _, err := io.WriteString(w, `{"transcript":"x"}`); return err })
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, k.Path)
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kept file %v %v", st, err)
	}
	if d, _ := os.Stat(filepath.Dir(p)); d.Mode().Perm() != 0o700 {
		t.Errorf("kept directory mode %v", d.Mode().Perm())
	}
	f, err := OpenUnredacted(dir, addr, k)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != `{"transcript":"x"}` {
		t.Errorf("read back %q", b)
	}
	if _, err := OpenUnredacted(dir, `transcription.other["b.wav"]`, k); err == nil {
		t.Error("another address opened this kept file")
	}
	if err := RemoveUnredacted(dir, addr, k); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("not removed: %v", err)
	}

	other := t.TempDir()
	link := t.TempDir()
	if err := os.MkdirAll(filepath.Join(link, CacheDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(link, strings.TrimSuffix(UnredactedDir, "/"))); err != nil {
		t.Fatal(err)
	}
	if _, err := KeepUnredacted(link, addr, func(w io.Writer) error { return nil }); err == nil {
		t.Error("kept through a link")
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
}
