package state

import (
	"bytes"
	"strconv"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/owned"
)

// FuzzDecode: any bytes give a state or an error, never a panic; a decoded
// state encodes and decodes again to the same encoding.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version": 1, "lineage": "x", "serial": 3, "resources": {"synthesis.a": {"kind": "synthesis", "status": "complete", "fingerprint": "f", "request": {"text": "<laugh>"}, "outputs": [{"path": "a.wav", "sha256": "00", "size": 1}], "created_at": "2026-11-22T05:00:00Z", "updated_at": "2026-11-22T05:00:00Z"}}}`))
	f.Add([]byte(`{"version": 2}`))
	f.Add([]byte(`{"resources": {"a": null}, "version": 1}`))
	// Hostile paths: outside the tree, absolute, voxform's own files.
	for _, p := range []string{"../victim.txt", "/etc/passwd", "a/../../b", ".voxform/hashes.json", "voxform.state.json", "./a.wav", ""} {
		f.Add([]byte(`{"version": 1, "resources": {"synthesis.a": {"kind": "synthesis", "status": "complete", "fingerprint": "f", "outputs": [{"path": "` + p + `", "sha256": "00", "size": 1}], "created_at": "2026-11-22T05:00:00Z", "updated_at": "2026-11-22T05:00:00Z"}}}`))
		f.Add([]byte(`{"version": 1, "resources": {}, "written": [{"path": "` + p + `", "address": "synthesis.a", "sha256": "00"}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever decodes names only addresses and paths voxform may own.
		for addr, r := range st.Resources {
			if err := CheckAddress(addr); err != nil {
				t.Fatalf("decoded %q: %v", addr, err)
			}
			for _, o := range r.Outputs {
				if err := owned.CheckRel(o.Path); err != nil {
					t.Fatalf("decoded %s with output %q: %v", addr, o.Path, err)
				}
			}
		}
		for _, w := range st.Written {
			if err := owned.CheckRel(w.Path); err != nil {
				t.Fatalf("decoded written %q: %v", w.Path, err)
			}
		}
		var one, two bytes.Buffer
		if err := st.Encode(&one); err != nil {
			t.Fatalf("encode a decoded state: %v", err)
		}
		again, err := Decode(bytes.NewReader(one.Bytes()))
		if err != nil {
			t.Fatalf("decode an encoded state: %v\n%s", err, one.Bytes())
		}
		again.Encode(&two)
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Fatalf("encoding not stable:\n%s\n%s", one.Bytes(), two.Bytes())
		}
	})
}

// FuzzJournalLine: a journal line decodes only if intact; never a panic.
func FuzzJournalLine(f *testing.F) {
	line, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.a": sampleResource("x")}})
	f.Add(line)
	f.Add(line[:len(line)-1])
	f.Add([]byte("00000000 {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, ok := decodeRecord(data)
		if ok && rec == nil {
			t.Fatal("ok without a record")
		}
	})
}

// FuzzAddress: any string is an address or refused, never a panic; an
// address accepted spells itself (String gives it back) and holds only
// printable runes, so no control character or escape sequence reaches a
// terminal through one. Any key of a block makes an address that parses
// back to it.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"synthesis.a", `synthesis.menu["billing"]`, `transcription.calls["recordings/a.wav"]`,
		hostileAddress, `synthesis.a["` + "\x1b[2K" + `"]`, `synthesis.a["\x1b[2K"]`, `voice.n["a"]["b"]`, "synthesis.p[1]",
		`synthesis.a["\u202e"]`, "synthesis.\u00e9", "embedding.-a", "voice.a\n", `synthesis.a["\xff"]`, ""} {
		f.Add(s, "key")
	}
	f.Add("voice.v", "\x1b[1A\u202e\xff\"\\")
	f.Fuzz(func(t *testing.T, s, key string) {
		if a, err := ParseAddress(s); err == nil {
			if a.String() != s {
				t.Fatalf("%q accepted as %#v, which spells %q", s, a, a.String())
			}
			if !utf8.ValidString(s) {
				t.Fatalf("%q accepted: not UTF-8", s)
			}
			for _, r := range s {
				if unicode.IsControl(r) || !strconv.IsPrint(r) {
					t.Fatalf("%q accepted with %U", s, r)
				}
			}
		}
		a := Address{Kind: "synthesis", Name: "n", Key: key, HasKey: true}
		if got, err := ParseAddress(a.String()); err != nil || got != a {
			t.Fatalf("key %q: %q parses as %#v, %v", key, a.String(), got, err)
		}
	})
}
