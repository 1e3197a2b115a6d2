package redact_test

import (
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/redact"
)

// FuzzFind: any text is searched without a panic and quickly; the spans
// lie in the text, are sorted, non-empty and apart; the segments'
// spans lie in their segments; Replace takes them all.
func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"my number is +91 98765 43210, aadhaar 2345 6789 0124",
		"nine eight सात six double five four three two one",
		"a/c no. 50100123456788 IFSC SBIN0001234 PAN A B C P E 1 2 3 4 F",
		"pay ramesh.k@okaxis or mail a.b@example.co.in.",
		"फ़ोन: 98765\u200d43210 ₹98,76,54,321 १२३४",
		"@@..@a@b.c 0 00 000 +",
		"\xff\xfe9876543210\u0301",
	} {
		f.Add(s)
	}
	p, err := redact.NewPolicy([]string{"all"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		start := time.Now()
		spans := p.Find(text)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Find of %d bytes took %v", len(text), d)
		}
		at := 0
		for _, s := range spans {
			if s.Start < at || s.Start >= s.End || s.End > len(text) {
				t.Fatalf("span %+v after %d in %d bytes: %+v", s, at, len(text), spans)
			}
			at = s.End
		}
		if got := redact.Replace(text, spans); len(spans) == 0 && got != text {
			t.Fatalf("nothing found, yet %q became %q", text, got)
		}
		segs := strings.Split(text, "\n")
		for i, ss := range p.FindInSegments(segs) {
			at := 0
			for _, s := range ss {
				if s.Start < at || s.Start >= s.End || s.End > len(segs[i]) {
					t.Fatalf("segment %d span %+v outside %d bytes", i, s, len(segs[i]))
				}
				at = s.End
			}
		}
	})
}
