package redact

import (
	"strings"

	"github.com/voxform/voxform/listen"
)

// code is an identifier of letters and digits in fixed places: PAN and
// IFSC.
type code struct {
	kind Kind
	// ok reports whether the upper-case s of the code's length is one.
	ok func(s string) bool
	// blocks are the offsets between the code's parts: a code read in
	// several words has each word a single character or whole parts.
	blocks []int
}

var codes = []code{
	{PAN, panOK, []int{0, 5, 9, 10}},
	{IFSC, ifscOK, []int{0, 4, 5, 11}},
}

// panHolders are the fourth letter of a PAN: the holder's type (person,
// company, HUF, firm, association, trust, body of individuals, local
// authority, artificial juridical person, government).
const panHolders = "PCHFATBLJG"

// panOK: five letters, the fourth a holder type, four digits, a letter.
func panOK(s string) bool {
	return letters(s[:5]) && strings.IndexByte(panHolders, s[3]) >= 0 && allDigits(s[5:9]) && letters(s[9:])
}

// ifscOK: four letters (the bank), a zero, six letters or digits (the
// branch).
func ifscOK(s string) bool {
	if !letters(s[:4]) || s[4] != '0' {
		return false
	}
	for i := 5; i < 11; i++ {
		if !isUpper(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

func letters(s string) bool {
	for i := range len(s) {
		if !isUpper(s[i]) {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// codeSpans finds PANs and IFSCs: one word in any case ("ABCPE1234F",
// "sbin0001234"), or words following each other with spaces or hyphens
// between, letters in capitals and digits written or spoken ("A B C P E
// one two three four F", "SBIN 0001234").
func (p Policy) codeSpans(s string, ws []listen.Word) []Span {
	var out []Span
	for i := 0; i < len(ws); i++ {
		for _, c := range codes {
			if !p.has(c.kind) {
				continue
			}
			if e := c.match(s, ws, i); e > i {
				out = append(out, Span{Kind: c.kind, Start: ws[i].Start, End: ws[e-1].End})
				i = e - 1
				break
			}
		}
	}
	return out
}

// match returns the index after the words from ws[i] that spell the
// code, or i.
func (c code) match(s string, ws []listen.Word, i int) int {
	size := c.blocks[len(c.blocks)-1]
	src := s[ws[i].Start:ws[i].End]
	if len(src) == size && asciiAlnum(src) {
		if c.ok(strings.ToUpper(src)) {
			return i + 1
		}
		return i
	}
	var b strings.Builder
	for e := i; e < len(ws) && b.Len() < size; e++ {
		if e > i && strings.Trim(s[ws[e-1].End:ws[e].Start], " -") != "" {
			return i
		}
		piece := ws[e].Text
		if !allDigits(piece) {
			piece = s[ws[e].Start:ws[e].End]
		}
		if !asciiAlnum(piece) || strings.ToUpper(piece) != piece ||
			(len(piece) > 1 && !(c.boundary(b.Len()) && c.boundary(b.Len()+len(piece)))) {
			return i
		}
		b.WriteString(piece)
		if b.Len() == size && e > i && c.ok(b.String()) {
			return e + 1
		}
	}
	return i
}

func (c code) boundary(at int) bool {
	for _, b := range c.blocks {
		if b == at {
			return true
		}
	}
	return false
}

func asciiAlnum(s string) bool {
	for i := range len(s) {
		if c := s[i] | 0x20; (c < 'a' || c > 'z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return s != ""
}
