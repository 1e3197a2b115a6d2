package owned

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// dirent is one linux_dirent64 record of name and type, padded to 8 bytes.
func dirent(name string, typ byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint16(b[16:18], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestEachDirent(t *testing.T) {
	var b []byte
	for _, e := range []struct {
		name string
		typ  byte
	}{{".", 4}, {"..", 4}, {"a.wav", 8}, {"link", 10}, {"long-name.wav", 0}} {
		b = append(b, dirent(e.name, e.typ)...)
	}
	var got []string
	if err := eachDirent(b, func(name []byte, typ byte) { got = append(got, string(name)+":"+string('0'+rune(typ%10))) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.wav:8", "link:0", "long-name.wav:0"}
	if len(got) != len(want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %q, want %q", got, want)
		}
	}
	// A record cut short, of a length under its head or past the end, is
	// refused, not read past.
	for _, bad := range [][]byte{b[:len(b)-3], b[:10], func() []byte {
		c := dirent("x", 8)
		binary.NativeEndian.PutUint16(c[16:18], 200)
		return c
	}(), func() []byte {
		c := dirent("x", 8)
		binary.NativeEndian.PutUint16(c[16:18], 5)
		return c
	}()} {
		if err := eachDirent(bad, func([]byte, byte) {}); err == nil {
			t.Errorf("% x: no error", bad)
		}
	}
}

// TestIsLinkAt: an entry whose type the file system does not give is
// asked about: a link is one, a file or an entry gone is not, and an
// entry that cannot be asked about is an error (the directory is then
// checked file by file).
func TestIsLinkAt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.wav"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.wav", filepath.Join(dir, "link.wav")); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for name, want := range map[string]bool{"a.wav": false, "link.wav": true, "gone.wav": false} {
		if got, err := isLinkAt(int(d.Fd()), name); got != want || err != nil {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := isLinkAt(int(d.Fd()), "a.wav/x"); err == nil { // ENOTDIR
		t.Error("an entry that cannot be asked about: no error")
	}
}
