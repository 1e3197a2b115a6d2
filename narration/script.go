package narration

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/listen"
)

// Spoken is what a listening check compares a transcript with: text
// without its audio tags (a tag is an instruction, never words heard).
// Where a tag stood between two words with no space on either side, a
// space keeps them apart ("one<pause>two" is "one two"); nothing else
// changes.
func Spoken(text string) string {
	t, ok := NextTag(text, 0)
	if !ok {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for ; ok; t, ok = NextTag(text, t.End) {
		b.WriteString(text[last:t.Offset])
		last = t.End
		if b.Len() > 0 && last < len(text) && !spaceBefore(b.String()) && !spaceAfter(text[last:]) {
			b.WriteByte(' ')
		}
	}
	b.WriteString(text[last:])
	return b.String()
}

// spaceBefore reports whether s ends in white space.
func spaceBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// spaceAfter reports whether s starts with white space or a tag.
func spaceAfter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r) || r == '<'
}

// DominantScript names the script most letters of the spoken text are
// written in, as listen.Script names it ("" when none), and the share of
// the letters in that script: what a recognition language chosen from
// the text is chosen from, and how much of the text it will not write.
// Tag names, Latin on the wire, do not count.
func DominantScript(text string) (script string, share float64) {
	return listen.ScriptShare(Spoken(text))
}
