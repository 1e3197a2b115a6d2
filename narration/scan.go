package narration

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTagName is the longest audio tag name, in characters
// (speech-synthesis.md, Audio tags: names are short words; the longest
// documented, "clears throat", has 13).
const MaxTagName = 40

// Tag is an audio tag found in a text: "<", 1 to MaxTagName characters
// other than '<', '>' and a newline, then ">" (speech-synthesis.md, Audio
// tags: syntax <tag>, no closing tag). Known or not: the service strips an
// unknown tag (rule 3), so a tag is a tag by its syntax.
type Tag struct {
	Name   string
	Offset int // byte offset of '<'
	End    int // byte offset just past '>'
}

// NextTag returns the first audio tag of text at or after byte from.
// Scanning a text tag by tag (from = the previous tag's End) takes time
// linear in the text.
func NextTag(text string, from int) (Tag, bool) {
	for from < len(text) {
		i := strings.IndexByte(text[from:], '<')
		if i < 0 {
			return Tag{}, false
		}
		start := from + i
		j, n := start+1, 0
		for j < len(text) && n <= MaxTagName {
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
		if n >= 1 && n <= MaxTagName && j < len(text) && text[j] == '>' {
			return Tag{Name: text[start+1 : j], Offset: start, End: j + 1}, true
		}
		// No tag starts at start, nor before the next '<'.
		from = start + 1
	}
	return Tag{}, false
}

// FindTags returns the audio tags of text, known or not, in order.
func FindTags(text string) []Tag {
	var out []Tag
	for t, ok := NextTag(text, 0); ok; t, ok = NextTag(text, t.End) {
		out = append(out, t)
	}
	return out
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

// digitSeparators join digits into one run: the separators of phone
// numbers, amounts, dates and IDs.
const digitSeparators = " .,:/-"

// NextDigits returns the first run of digits of text at or after byte
// from: digits of any script (Unicode Nd) joined by single separators
// (space . , : / -), as in "1800 123 456", "1,500.50", "2026-10-01" and
// "४२". The service mispronounces such runs (speech-synthesis.md, "What
// the service does", item 5), and a split never falls inside one.
// Scanning a text run by run (from = the previous run's end) takes time
// linear in the text.
func NextDigits(text string, from int) (start, end int, ok bool) {
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
		if strings.IndexByte(digitSeparators, text[j]) < 0 || j+1 >= len(text) || digitAt(text, j+1) == 0 {
			break
		}
		i = j + 1
	}
	return start, i, true
}
