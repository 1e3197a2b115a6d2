package untrusted

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/numfmt"
)

// MaxExcerpt is how many characters of a text Excerpt and Body keep.
const MaxExcerpt = 200

// MaxScan is how many bytes of a text Excerpt and Body read: more than an
// excerpt needs, even of markup.
const MaxScan = 16 << 10

// Escape returns s with every character that could act on a terminal
// written as an escape: line breaks and tabs included. Text without such
// characters is returned as it is.
func Escape(s string) string { return escape(s, false) }

// Lines is Escape but for line breaks and tabs, which it keeps: for a
// message of several lines (errors joined by errors.Join).
func Lines(s string) string { return escape(s, true) }

// Excerpt returns a short, single-line, inert form of s: runs of white
// space (line breaks included) read as one space, other controls are
// escaped, and past MaxExcerpt characters the text is cut and its length
// given: "first words… (65,536 bytes)". Only the first MaxScan bytes of s
// are read.
func Excerpt(s string) string {
	size := len(s)
	cut := len(s) > MaxScan
	if cut {
		s = prefix(s, MaxScan)
	}
	return excerpt(s, size, cut)
}

// Body is Excerpt for a body read from a host (an error page, an
// unexpected answer): only its first MaxScan bytes are read, and the text
// of HTML or XML is shown without its markup. The length given is
// len(body).
func Body(body []byte) string {
	size := len(body)
	cut := len(body) > MaxScan
	s := prefix(string(body[:min(len(body), MaxScan+utf8.UTFMax)]), MaxScan)
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "<") {
		s = markupText(t)
	}
	return excerpt(s, size, cut)
}

// prefix is s cut to at most n bytes, at the start of a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// excerpt folds the white space of s, escapes it and keeps MaxExcerpt
// characters; past them, or when cut says s is already a part of its
// source, it ends with the source's size in bytes.
func excerpt(s string, size int, cut bool) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		e := escapeRune(r, s[i:i+w], false)
		if n += utf8.RuneCountInString(e); n > MaxExcerpt {
			cut = true
			break
		}
		b.WriteString(e)
		i += w
	}
	if !cut {
		return b.String()
	}
	return fmt.Sprintf("%s… (%s bytes)", strings.TrimRight(b.String(), " "), numfmt.Thousands(size))
}

// escape writes the characters of s that could act on a terminal as
// escapes; keep says line breaks and tabs stay.
func escape(s string, keep bool) string {
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if escapeRune(r, s[i:i+w], keep) != s[i:i+w] {
			break
		}
		i += w
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteString(escapeRune(r, s[i:i+w], keep))
		i += w
	}
	return b.String()
}

// escapeRune is how the character r, spelt raw in the text, is shown.
func escapeRune(r rune, raw string, keep bool) string {
	switch {
	case r == utf8.RuneError && len(raw) == 1:
		return fmt.Sprintf(`\x%02x`, raw[0])
	case keep && (r == '\n' || r == '\t'):
		return raw
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case !acts(r):
		return raw
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	}
	return strings.Trim(strconv.QuoteRuneToASCII(r), "'")
}

// acts reports whether r may act on a terminal or on how the text around
// it reads: a control (C0, DEL, C1), a format character (bidirectional
// controls, zero-width spaces, tag characters) other than the zero-width
// non-joiner and joiner that Indic and Arabic scripts need, or a line or
// paragraph separator.
func acts(r rune) bool {
	switch {
	case r == '\u200c' || r == '\u200d':
		return false
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true
	}
	return false
}
