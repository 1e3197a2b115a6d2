package state

import (
	"context"
	"os"
	"strings"
	"testing"
)

// hostileAddress erases the line above it and its own on a terminal: a
// state naming it would hide the planned delete of another resource.
const hostileAddress = "synthesis.a\x1b[1A\x1b[2K"

// A state file, a journal or a record whose address is not a voxform
// address is refused, the error naming the entry with the address
// escaped, never raw.
func TestAddressesValidatedOnLoad(t *testing.T) {
	res := `{"kind": "synthesis", "status": "complete", "fingerprint": "f", "created_at": "2026-11-22T05:00:00Z", "updated_at": "2026-11-22T05:00:00Z"}`
	for name, in := range map[string]string{
		"escape":        `{"version": 1, "resources": {"synthesis.a\u001b[1A\u001b[2K": ` + res + `}}`,
		"unquoted key":  `{"version": 1, "resources": {"synthesis.p[1]": ` + res + `}}`,
		"unknown kind":  `{"version": 1, "resources": {"bogus.a": ` + res + `}}`,
		"raw key":       `{"version": 1, "resources": {"synthesis.a[\"\u001b[2K\"]": ` + res + `}}`,
		"written":       `{"version": 1, "resources": {}, "written": [{"path": "a.wav", "address": "synthesis.a\u001b[1A", "sha256": "00"}]}`,
		"written empty": `{"version": 1, "resources": {}, "written": [{"path": "a.wav", "address": "", "sha256": "00"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(in))
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, "not a voxform address") {
				t.Fatalf("error: %q", msg)
			}
			if strings.Contains(in, `\u001b[1A`) && !strings.Contains(msg, `\x1b[1A`) {
				t.Fatalf("error does not name the entry escaped: %q", msg)
			}
		})
	}
	for _, ok := range []string{"voice.narrator", `synthesis.menu["billing"]`, `transcription.calls["recordings/a b.wav"]`, `synthesis.m["\x1b"]`, `synthesis.m["नमस्ते"]`} {
		if err := CheckAddress(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}

	// A journal line naming one stops the replay with the same error, and
	// a Recorder refuses to write one.
	b := NewLocal(t.TempDir())
	recordOne(t, b, "synthesis.a")
	path := journalWithBegin(t, b)
	line, err := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{hostileAddress: sampleResource("x")}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, readFile(t, path)+string(line))
	if _, err := b.Read(context.Background()); err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `\x1b[1A`) {
		t.Fatalf("journal: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	lk, err := b.Lock(context.Background(), "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	rec, err := b.Open(context.Background(), lk, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := rec.Record(hostileAddress, sampleResource("x")); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("record: %v", err)
	}
	if err := rec.Remove(hostileAddress); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("remove: %v", err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
