package listen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNumbersKeepsDigitGroups: spoken numbers become digits and "double"
// repeats, but adjacent numbers stay apart, each with its own bytes.
func TestNumbersKeepsDigitGroups(t *testing.T) {
	text := "Call nine eight double five, ninety eight सात ९८ 1,00,000"
	got := Numbers(text)
	want := []Word{
		{"call", 0, 4}, {"9", 5, 9}, {"8", 10, 15}, {"55", 16, 27}, {"98", 29, 41},
		{"7", 42, 51}, {"98", 52, 58}, {"100000", 59, 67},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Numbers(%q) (-want +got):\n%s", text, d)
	}
	if s, w := Currency("₹"); !s || w {
		t.Error("₹ is a sign")
	}
	if s, w := Currency("रुपये"); s || !w {
		t.Error("रुपये is spoken")
	}
}

// TestNumbersStreamDigits: romanized Hindi and Devanagari English digit
// words are digits inside a stream of four digit words or more, and
// words outside one; Normalize leaves them words.
func TestNumbersStreamDigits(t *testing.T) {
	for text, want := range map[string]string{
		"nine eight saat six five":   "9 8 7 6 5",
		"chaar paanch 0119 8704 hai": "4 5 0119 8704 hai",
		"नाइन एट डबल सेवन सिक्स":     "9 8 77 6",
		"ninety saat do teen":        "97 2 3",
		"do teen din baad sat baje":  "do teen din baad sat baje",
		"mobile no 98765 43210":      "mobile no 98765 43210",
	} {
		var got []string
		for _, w := range Numbers(text) {
			got = append(got, w.Text)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("Numbers(%q) = %q, want %q", text, g, want)
		}
	}
	if got := Normalize("nine eight saat six").Strings(); strings.Join(got, " ") != "98 saat 6" {
		t.Errorf("Normalize read stream digits: %q", got)
	}
}
