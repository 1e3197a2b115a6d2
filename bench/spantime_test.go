package main

import (
	"strings"
	"testing"
	"unicode"
)

// The span-time corpus: the span is the number as the transcript writes
// it, what is said before and through it are prefixes of the whole
// utterance said, and every language and form is there.
func TestSpanCorpus(t *testing.T) {
	groups := map[string]int{}
	for _, c := range spanCorpus(6) {
		groups[c.group]++
		span := c.text[c.start:c.end]
		if span == "" || strings.TrimSpace(span) != span {
			t.Errorf("%q: span %q", c.text, span)
		}
		digits := strings.IndexFunc(span, unicode.IsDigit) >= 0
		if digits != strings.HasSuffix(c.group, "digits") {
			t.Errorf("%s: span %q", c.group, span)
		}
		if !strings.HasPrefix(c.said, c.saidBefore) || !strings.HasPrefix(c.said, c.saidThrough) || len(c.saidThrough) <= len(c.saidBefore) {
			t.Errorf("%q: said before %q, through %q", c.said, c.saidBefore, c.saidThrough)
		}
		said := strings.Fields(strings.TrimPrefix(c.saidThrough, c.saidBefore))
		if want := strings.Fields(span); digits {
			want = strings.Split(strings.ReplaceAll(span, " ", ""), "")
			if strings.Join(said, " ") != strings.Join(want, " ") {
				t.Errorf("%q said as %q, not one digit at a time", span, said)
			}
		} else if strings.Join(said, " ") != span {
			t.Errorf("%q said as %q", span, said)
		}
	}
	for _, g := range []string{"en digits", "en words", "hi digits", "hi words"} {
		if groups[g] != 6 {
			t.Errorf("%s: %d utterances, want 6", g, groups[g])
		}
	}
}
