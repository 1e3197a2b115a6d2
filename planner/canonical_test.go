package planner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

func stdCanonical(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, 0, -7, int64(1) << 60, 1.0, 1.15, 0.85, 48000.0, 1e21, 1e-7, 123456789.125, -0.0000001,
		"", "plain", `quote " backslash \ slash /`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "<laugh> & >",
		"नमस्ते", "bad \xff utf8", "line\u2028sep\u2029", "emoji 😀",
		[]any{1, "a", nil, []any{}}, map[string]any{},
		map[string]any{"z": 1, "a": map[string]any{"y": []any{1.5, "x"}, "b": false}, "m": "\u00e9"},
		[]string{"typed", "slice"}, struct{ A int }{1},
	}
	for _, v := range values {
		got, err := Canonical(v)
		if err != nil {
			t.Errorf("Canonical(%#v): %v", v, err)
			continue
		}
		if want := stdCanonical(v); !bytes.Equal(got, want) {
			t.Errorf("Canonical(%#v) = %s, want %s", v, got, want)
		}
	}
}

func FuzzCanonicalString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff\xfe", "\u2028", "नमस्ते <sigh>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := map[string]any{s: s, "n": []any{s}}
		got, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdCanonical(v); !bytes.Equal(got, want) {
			t.Fatalf("got %q want %q", got, want)
		}
	})
}

// Every request's fingerprint is the SHA-256 of canonical JSON, an object
// starting with {"kind": — so no fingerprint is the hash of anything
// that starts otherwise, as state.ContentKey's "voxform imported 1"
// domain does (an imported file's cache key is never a request's).
func TestFingerprintPreimageIsJSON(t *testing.T) {
	for _, req := range []map[string]any{{}, {"text": "voxform imported 1\x00"}, {"recorded": map[string]any{"sha256": "00"}}} {
		var scratch []byte
		_, fp, err := encodeRequest(&scratch, "synthesis", req, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(scratch)
		if !bytes.HasPrefix(scratch, []byte(`{"kind":`)) || hex.EncodeToString(sum[:]) != fp || !json.Valid(scratch) {
			t.Fatalf("fingerprint %s of %q: not the hash of a JSON object starting {\"kind\":", fp, scratch)
		}
	}
}
