package schema

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/manifest"
)

// maxTagName is the longest audio tag name, in characters
// (speech-synthesis.md, Audio tags: names are short).
const maxTagName = 40

// nextTag returns the first audio tag of text at or after byte from: '<',
// 1 to maxTagName characters other than '<', '>' and a newline, then '>'.
// Scanning a text tag by tag takes time linear in the text.
func nextTag(text string, from int) (Tag, bool) {
	for from < len(text) {
		i := strings.IndexByte(text[from:], '<')
		if i < 0 {
			return Tag{}, false
		}
		start := from + i
		j, n := start+1, 0
		for j < len(text) && n <= maxTagName {
			c := text[j]
			if c == '<' || c == '>' || c == '\n' {
				break
			}
			if c < utf8.RuneSelf {
				j++
			} else {
				_, w := utf8.DecodeRuneInString(text[j:])
				j += w
			}
			n++
		}
		if n >= 1 && n <= maxTagName && j < len(text) && text[j] == '>' {
			return Tag{Name: text[start+1 : j], Offset: start, End: j + 1}, true
		}
		// No tag starts at start, nor before the next '<'.
		from = start + 1
	}
	return Tag{}, false
}

// digitAt returns the width of the digit (of any script: Unicode Nd) at
// byte i of text, or 0.
func digitAt(text string, i int) int {
	c := text[i]
	if c < utf8.RuneSelf {
		if '0' <= c && c <= '9' {
			return 1
		}
		return 0
	}
	r, w := utf8.DecodeRuneInString(text[i:])
	if unicode.IsDigit(r) {
		return w
	}
	return 0
}

// nextDigits returns the first run of digits of text at or after byte
// from: digits joined by single separators of phone numbers, amounts,
// dates and IDs (space . , : / -). Scanning a text run by run takes time
// linear in the text.
func nextDigits(text string, from int) (start, end int, ok bool) {
	i := from
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf && (c < '0' || c > '9') {
			i++
			continue
		}
		if digitAt(text, i) > 0 {
			break
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		i += w
	}
	if i >= len(text) {
		return 0, 0, false
	}
	start = i
	for i < len(text) {
		j := i
		if w := digitAt(text, j); w > 0 {
			i += w
			continue
		}
		if strings.IndexByte(" .,:/-", text[j]) < 0 || j+1 >= len(text) || digitAt(text, j+1) == 0 {
			break
		}
		i = j + 1
	}
	return start, i, true
}

// textPos finds the source positions of byte offsets of a synthesis text,
// as manifest.PosAt does, falling back to the text field's position when
// the source has none. Offsets asked for in increasing order cost time
// linear in the text in all; a smaller offset starts again.
type textPos struct {
	spans    []manifest.Span
	text     string
	fallback manifest.Pos
	// i is the span holding off (-1: none yet); p is the position of off
	// when that span is exact.
	i   int
	off int
	p   manifest.Pos
}

func newTextPos(s *manifest.Synthesis, fallback manifest.Pos) *textPos {
	return &textPos{spans: s.TextSpans, text: s.Text, fallback: fallback, i: -1}
}

// at returns the position of byte offset off.
func (t *textPos) at(off int) manifest.Pos {
	if off < t.off || t.i < 0 {
		t.i, t.off = -1, 0
	}
	i := t.i
	for i+1 < len(t.spans) && t.spans[i+1].Offset <= off {
		i++
	}
	if i < 0 {
		return t.fallback
	}
	cur := t.spans[i]
	if i != t.i {
		t.i, t.off, t.p = i, cur.Offset, cur.Pos
	}
	p := cur.Pos
	if cur.Exact && off <= len(t.text) {
		for _, r := range t.text[t.off:off] {
			if r == '\n' {
				t.p.Line++
				t.p.Col = 1
				continue
			}
			t.p.Col++
		}
		t.off = off
		p = t.p
	}
	if p.Line == 0 {
		return t.fallback
	}
	return p
}

// quoteDigits quotes a run of digits for a message: whole when short,
// else its start and its length.
func quoteDigits(run string) string {
	n := 0
	for i := range run {
		if n == maxQuotedDigits {
			return strconv.Quote(run[:i]) + "... (" + thousands(int64(utf8.RuneCountInString(run))) + " characters)"
		}
		n++
	}
	return strconv.Quote(run)
}
