package listen

import (
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
