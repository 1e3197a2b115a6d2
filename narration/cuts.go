package narration

import (
	"unicode"
	"unicode/utf8"
)

// class ranks the places a chunk may end (see Split).
type class uint8

const (
	classNone     class = iota
	classWord           // white space between words
	classClause         // a clause mark, a line break
	classSentence       // a sentence end, a paragraph break
)

// cut is a place where a chunk may end: its span ends at p, its sent text
// at q (q <= p; the white space between belongs to the chunk and is not
// sent). qc and pc are the characters of text[:q] and text[:p].
type cut struct {
	p, q, pc, qc int
	class        class
	anchor       bool // a sentence end where a chunk always ends
}

// prev is what the scanner read last, apart from white space.
type prev uint8

const (
	prevNone prev = iota
	prevWord
	prevTerminator // a sentence end mark (and closing quotes after it)
	prevClause
	prevDash // a clause mark that ends a clause even without white space
	prevTag
)

// scanner reads a text once, left to right, finding the cuts and tags
// that Split chooses from. The packer consumes cuts from the front as
// chunks are made, so every cut is kept and examined a bounded number of
// times: Split is linear.
type scanner struct {
	text    string
	max     int
	anchors bool
	pos     int // next byte to read
	posC    int // characters before pos
	last    int // end of the last byte that is not white space
	// lastC is the characters before last.
	lastC int
	prev  prev

	nextTag Tag // the first tag at or after pos
	hasNext bool
	digits  [2]int // the first run of digits ending after pos
	hasDig  bool

	sentence, sentenceC int // where the current sentence starts

	cuts []cut
	head int // cuts before head are passed
	tags []Tag
}

func newScanner(text string, max int, anchors bool) *scanner {
	s := &scanner{text: text, max: max, anchors: anchors}
	s.nextTag, s.hasNext = NextTag(text, 0)
	a, b, ok := NextDigits(text, 0)
	s.digits, s.hasDig = [2]int{a, b}, ok
	return s
}

// scanTo reads until the text ends or pos is past character limit and at
// least at byte at.
func (s *scanner) scanTo(limit, at int) {
	for s.pos < len(s.text) && (s.posC <= limit || s.pos < at) {
		s.step()
	}
}

// drop forgets the cuts at or before byte p.
func (s *scanner) drop(p int) {
	for s.head < len(s.cuts) && s.cuts[s.head].p <= p {
		s.head++
	}
	if s.head > 64 && s.head*2 > len(s.cuts) {
		s.cuts = s.cuts[:copy(s.cuts, s.cuts[s.head:])]
		s.head = 0
	}
}

// step reads one token: a tag, a run of white space or a character.
func (s *scanner) step() {
	if s.hasNext && s.pos == s.nextTag.Offset {
		s.tag()
		return
	}
	r, w := utf8.DecodeRuneInString(s.text[s.pos:])
	if isSpace(r) {
		s.space()
		return
	}
	s.pos += w
	s.posC++
	s.last, s.lastC = s.pos, s.posC
	switch {
	case isTerminator(r):
		s.prev = prevTerminator
	case s.prev == prevTerminator && isCloser(r):
	case isDash(r):
		s.prev = prevClause
		if next, _ := utf8.DecodeRuneInString(s.text[s.pos:]); s.pos < len(s.text) && (unicode.IsLetter(next) || unicode.IsMark(next)) {
			s.add(s.pos, s.pos, s.posC, s.posC, classClause)
		}
	case isClause(r):
		s.prev = prevClause
	default:
		s.prev = prevWord
	}
}

// tag reads the tag at pos. A sentence or clause end right before it is
// a cut before it: the tag goes with the text it applies to.
func (s *scanner) tag() {
	t := s.nextTag
	switch s.prev {
	case prevTerminator:
		s.add(t.Offset, t.Offset, s.posC, s.posC, classSentence)
	case prevClause:
		s.add(t.Offset, t.Offset, s.posC, s.posC, classClause)
	}
	s.tags = append(s.tags, t)
	s.posC += utf8.RuneCountInString(s.text[t.Offset:t.End])
	s.pos = t.End
	s.last, s.lastC = s.pos, s.posC
	s.prev = prevTag
	s.nextTag, s.hasNext = NextTag(s.text, s.pos)
}

// space reads a run of white space and makes it a cut of the class its
// surroundings give.
func (s *scanner) space() {
	a, ac := s.pos, s.posC
	lines := 0
	for s.pos < len(s.text) {
		r, w := utf8.DecodeRuneInString(s.text[s.pos:])
		if !isSpace(r) {
			break
		}
		if r == '\n' {
			lines++
		}
		s.pos += w
		s.posC++
	}
	p := s.prev
	s.prev = prevNone
	if a == 0 || s.pos == len(s.text) || p == prevTag || s.inDigits(a) {
		return
	}
	c := classWord
	switch {
	case lines >= 2 || p == prevTerminator:
		c = classSentence
	case p == prevClause || lines == 1:
		c = classClause
	}
	s.add(s.pos, a, s.posC, ac, c)
}

// inDigits reports whether byte i is inside a run of digits (not at its
// start).
func (s *scanner) inDigits(i int) bool {
	for s.hasDig && s.digits[1] <= i {
		a, b, ok := NextDigits(s.text, s.digits[1])
		s.digits, s.hasDig = [2]int{a, b}, ok
	}
	return s.hasDig && s.digits[0] < i
}

// add records a cut; a sentence end is an anchor when its sentence's
// hash says so (see Split).
func (s *scanner) add(p, q, pc, qc int, c class) {
	k := cut{p: p, q: q, pc: pc, qc: qc, class: c}
	if c == classSentence {
		n := qc - s.sentenceC
		k.anchor = s.anchors && n > 0 && fnv64a(s.text[s.sentence:q])%uint64(s.max) < uint64(n)
		s.sentence, s.sentenceC = p, pc
	}
	s.cuts = append(s.cuts, k)
}

// fnv64a is the FNV-1a 64-bit hash of s (hash/fnv without the copy).
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// isTerminator: the marks that end a sentence: Latin, Devanagari danda
// and double danda (used by Hindi, Marathi, Bengali and others),
// ellipsis, Arabic question mark and Urdu full stop.
func isTerminator(r rune) bool {
	switch r {
	case '.', '?', '!', '।', '॥', '…', '؟', '۔':
		return true
	}
	return false
}

// isCloser: closing quotes and brackets that may follow a sentence end.
func isCloser(r rune) bool {
	return r == '"' || r == '\'' || unicode.In(r, unicode.Pe, unicode.Pf)
}

// isClause: the marks that end a clause when white space follows.
func isClause(r rune) bool {
	switch r {
	case ',', ';', ':', '،', '؛':
		return true
	}
	return isDash(r)
}

func isDash(r rune) bool { return r == '—' || r == '–' }

// joinsPrevious reports whether r holds to the character before it:
// combining marks (Mn, Mc, Me: Indic vowel signs, viramas, nuktas) and
// the zero-width joiner and non-joiner.
func joinsPrevious(r rune) bool {
	if r < 0x300 {
		return false
	}
	return unicode.IsMark(r) || r == zwj || r == zwnj
}

// joinsNext reports whether r holds to the character after it: a virama
// forms a conjunct with the next consonant, and a joiner joins both sides.
func joinsNext(r rune) bool {
	return r == zwj || r == zwnj || isVirama(r)
}

const (
	zwnj = '\u200C'
	zwj  = '\u200D'
)

// isVirama: the viramas of the Brahmic scripts of the service's languages
// (Devanagari to Malayalam, at offset 0x4D of each block) and Malayalam's
// two others.
func isVirama(r rune) bool {
	if r >= 0x0900 && r < 0x0D80 && r&0x7F == 0x4D {
		return true
	}
	return r == 0x0D3B || r == 0x0D3C
}
