package narration_test

import (
	"strings"
	"testing"
)

// TestSpokenLen: SpokenLen is the length of what Apply makes, for texts
// with tags, case, languages and multi-word terms; past max it stops and
// says so.
func TestSpokenLen(t *testing.T) {
	l := mustParse(t, "l.csv", "term,spoken,language,case\n"+
		"Dr.,Doctor,,\nRBI,Reserve Bank of India,,exact\n"+
		"new delhi,नई दिल्ली,hi,\nkm,kilometres,,\na,"+strings.Repeat("x", 500)+",,\n")
	for _, text := range []string{
		"", "nothing to replace", "Dr. Rao of the RBI", "rbi and RBI", "New  Delhi is far",
		"<laugh> a Dr. <whisper>a</whisper> a", "10 km a", strings.Repeat("a ", 1000),
	} {
		for _, lang := range []string{"", "hi-IN", "en-IN"} {
			out, _ := l.Apply(text, lang)
			n, over := l.SpokenLen(text, lang, 1<<30)
			if n != len(out) || over {
				t.Errorf("SpokenLen(%q, %q) = %d, %v; Apply made %d bytes", text, lang, n, over, len(out))
			}
			if len(out) > 0 {
				if n, over := l.SpokenLen(text, lang, len(out)-1); !over || n < len(out)-1 {
					t.Errorf("SpokenLen(%q, %q, %d) = %d, %v; want over", text, lang, len(out)-1, n, over)
				}
			}
		}
	}
	// It stops once past max: a text of a million a's is measured to just
	// past the limit, not to the 500 MB it would make.
	n, over := l.SpokenLen(strings.Repeat("a ", 1_000_000), "", 1<<20)
	if !over || n > 1<<20+502 {
		t.Errorf("SpokenLen of a million a's, max 1 MiB = %d, %v; want over, stopped just past 1 MiB", n, over)
	}
}
