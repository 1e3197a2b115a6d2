package redact

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// invisible are the characters listen.Normalize removes before anything
// else (zero-width joiner and non-joiner, zero-width space, word joiner,
// byte order mark, soft hyphen): a recognizer may put them inside a word
// or a number, and a detector must read through them.
func invisible(r rune) bool {
	switch r {
	case '\u200c', '\u200d', '\u200b', '\u2060', '\ufeff', '\u00ad':
		return true
	}
	return false
}

// prepared is a text as the detectors read it (invisible characters
// removed, NFC) and, when that differs from the text searched, where each
// of its bytes came from.
type prepared struct {
	s string
	// from[i] and to[i] are the offsets in the text searched at which the
	// piece holding byte i of s starts and ends; nil when s is the text.
	from, to []int
}

// prepare puts text in the form listen's number tables are keyed in. A
// text that is NFC and has no invisible character, as a service's
// transcript is, is read as it is.
func prepare(text string) prepared {
	if !strings.ContainsFunc(text, invisible) && norm.NFC.IsNormalString(text) {
		return prepared{s: text}
	}
	var visible strings.Builder
	var at, atEnd []int // the bytes of text each byte of visible came from
	for i, r := range text {
		if invisible(r) {
			continue
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		n := visible.Len()
		visible.WriteRune(r)
		for range visible.Len() - n {
			at, atEnd = append(at, i), append(atEnd, i+w)
		}
	}
	return nfc(visible.String(), at, atEnd)
}

// nfc normalizes v segment by segment (a segment is a starter and the
// marks that combine with it), mapping each output byte to the bytes of
// the text searched its segment was made from.
func nfc(v string, at, atEnd []int) prepared {
	var it norm.Iter
	it.InitString(norm.NFC, v)
	var b strings.Builder
	p := prepared{}
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		end := it.Pos()
		b.Write(seg)
		for range seg {
			p.from = append(p.from, at[start])
			p.to = append(p.to, atEnd[end-1])
		}
	}
	p.s = b.String()
	return p
}

// span maps bytes [start, end) of p.s to the text searched, widening to
// whole pieces.
func (p prepared) span(start, end int) (int, int) {
	if p.from == nil {
		return start, end
	}
	return p.from[start], p.to[end-1]
}
