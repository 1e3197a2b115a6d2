package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sortedBothWays checks that appendSorted writes raw (made compact first)
// at prefix exactly as the generic tree does.
func sortedBothWays(t testing.TB, raw []byte, prefix string) {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		if _, err := appendSorted(nil, raw, prefix); err == nil {
			t.Fatalf("%q: not JSON, no error", raw)
		}
		return
	}
	want, werr := appendSortedGeneric(nil, c.Bytes(), prefix)
	got, gerr := appendSorted(nil, c.Bytes(), prefix)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("%s at %q:\ngot  %s (%v)\nwant %s (%v)", c.Bytes(), prefix, got, gerr, want, werr)
	}
}

// randomJSON is a random value of depth at most d, its strings drawn from
// the awkward ones.
func randomJSON(r *rand.Rand, d int) string {
	strs := []string{`"a"`, `"b"`, `""`, `"<laugh> & \"q\""`, `"\u00e9"`, `"é"`, `"\/"`, `"line\nbreak"`,
		`"\u2028"`, "\"\xe2\x80\xa9\"", "\"a\xe2\x80\xa8b\"", "\"\xff\"", `"\ud800"`, `"\b\f\t"`, `"\u0007"`, `"नमस्ते"`, `"z\\"`}
	switch k := r.IntN(10); {
	case d <= 0 || k < 3:
		return strs[r.IntN(len(strs))]
	case k < 5:
		nums := []string{"0", "-1", "1.5", "1e400", "-0.0", "12345678901234567890", "true", "false", "null", "2E-3"}
		return nums[r.IntN(len(nums))]
	case k < 7:
		n := r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(r, d-1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		keys := []string{`"a"`, `"b"`, `"B"`, `"aa"`, `"é"`, `"\u00e9"`, `"a\"b"`, `"kind"`, `"request"`, `""`, `"<"`}
		n := r.IntN(5)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = keys[r.IntN(len(keys))] + ": " + randomJSON(r, d-1)
		}
		return "{ " + strings.Join(parts, " ,\n") + "}"
	}
}

// TestSortedAsTheTree: the sorted form is written byte for byte as the
// generic tree writes it, for awkward values (escapes, keys given twice,
// U+2028, invalid UTF-8, big numbers) at any depth and prefix.
func TestSortedAsTheTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		v := randomJSON(r, 5)
		sortedBothWays(t, []byte(v), []string{"", "  ", "    "}[i%3])
	}
	deep := strings.Repeat(`{"a":`, maxSortDepth) + "1" + strings.Repeat("}", maxSortDepth)
	sortedBothWays(t, []byte(deep), "") // as deep as encoding/json reads
	for _, bad := range []string{``, `{`, `[1,`, `{"a":}`, `"x`, `{"a" 1}`, `[1 2]`, `{"a":1}x`,
		strings.Repeat("[", maxSortDepth+1) + strings.Repeat("]", maxSortDepth+1)} { // deeper: refused, as it would be read
		if _, err := appendSorted(nil, []byte(bad), ""); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestEncodeAsTheTree: a state's file form is what MarshalSorted wrote
// through the generic tree, for resources of every field.
func TestEncodeAsTheTree(t *testing.T) {
	f := New()
	for i := range 50 {
		r := sampleResource(fmt.Sprintf("text <%d> \"quoted\" \u2028 é", i))
		r.Edit().RequestIDs = []string{"r1", "r2"}
		details := r.Edit()
		details.JobID, details.Model = fmt.Sprintf("job-%d", i), "saarika:v2.5"
		f.Resources[fmt.Sprintf(`synthesis.menu["p%02d"]`, i)] = r
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	raw, err := marshalNoEscape(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := appendSortedGeneric(nil, raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want)+"\n" {
		t.Fatalf("Encode differs from the tree's form:\n%s\nwant\n%s", got, want)
	}
}

func FuzzSorted(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		f.Add([]byte(randomJSON(r, 4)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sortedBothWays(t, b, "  ")
	})
}
