package redact_test

import (
	"strings"
	"testing"
	"time"
)

// TestFindLongText: a quarter megabyte of each shape that makes a
// detector look far (one long run of digit groups, one long number,
// spelled letters, "@"s, combining marks) is read in seconds at worst
// on a loaded machine, where quadratic time would take minutes.
func TestFindLongText(t *testing.T) {
	p := mustPolicy(t, "all")
	for name, unit := range map[string]string{
		"digit groups":    "9 8 7 6 5 4 3 2 1 0 ",
		"one number":      "9876543210",
		"spelled letters": "A B C P E ",
		"at signs":        "a.b@c@d.",
		"marks":           "क\u0301\u200d",
		"number words":    "nine double eight सात ",
	} {
		t.Run(name, func(t *testing.T) {
			large := strings.Repeat(unit, (1<<18)/len(unit))
			start := time.Now()
			spans := p.Find(large)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("%d bytes took %v", len(large), d)
			}
			for _, s := range spans {
				if s.End > len(large) {
					t.Fatalf("span %+v", s)
				}
			}
		})
	}
}
