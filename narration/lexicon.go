package narration

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entry is one pronunciation: where Term stands in a text, Spoken is sent.
type Entry struct {
	Term   string // as written in the file, white space collapsed to single spaces
	Spoken string
	// Language limits the entry to texts in that language (a BCP-47 tag
	// such as hi-IN, or a language such as hi for all of its regions);
	// empty, to every language.
	Language string
	// Exact is set by "case: exact": the term matches only as written.
	// Otherwise letters match in either case (simple Unicode case folding,
	// as strings.EqualFold), which changes nothing in scripts without case.
	Exact bool
	Pos   Pos // where the entry is in its file
}

// Lexicon is a set of pronunciations, applied to a text before the
// request is formed.
//
// Rules:
//
//   - Whole words. A term matches only where it does not begin or end in
//     the middle of a word: when its first character is a word character
//     (a letter, a combining mark, a digit, a zero-width joiner or
//     non-joiner), the character before the match must not be one, and
//     likewise at its end. Marks count as word characters, so "राम" is not
//     found in "रामायण" nor "क" in "कि". A term that begins with a symbol
//     ("₹", "#") may begin anywhere.
//   - White space in a term matches any run of white space in the text of
//     at most 16 characters and one line break: a term may span a wrapped
//     line, never a paragraph.
//   - Longest first. At each place, from the left, the longest term that
//     matches wins; between entries of that term, the one for the most
//     specific language (hi-IN before hi before every language), then the
//     case-exact one. Scanning resumes after the replaced text: a spoken
//     form is never matched again.
//   - Audio tags are never matched nor replaced, and no match spans one.
//
// A Lexicon is safe for concurrent use once loaded.
type Lexicon struct {
	entries     []*Entry
	nodes       []node // nodes[0] is the root
	edges       map[edge]int32
	language    string
	languagePos Pos
	warnings    []*Error
}

// node is a trie node over folded characters (white space as ' ').
type node struct {
	entries []int32 // entries whose term ends here
}

type edge struct {
	from int32
	r    rune
}

// Len is the number of entries.
func (l *Lexicon) Len() int { return len(l.entries) }

// Entries returns the entries in file order.
func (l *Lexicon) Entries() []*Entry { return l.entries }

// Language returns the language the file declares for all its entries (a
// PLS lexicon's xml:lang) and where; "" for a format that declares none.
func (l *Lexicon) Language() (string, Pos) { return l.language, l.languagePos }

// Warnings returns what of the file cannot apply, each at its place (a PLS
// lexeme with only phonemes), in file order.
func (l *Lexicon) Warnings() []*Error { return l.warnings }

// Applied is one replacement Apply made.
type Applied struct {
	Start, End int // the replaced text: text[Start:End] of the original
	Out        int // where Entry.Spoken starts in the result
	Entry      *Entry
}

// Apply returns text with the lexicon's terms replaced by their spoken
// forms for a text in language (an empty language takes the entries
// without one only), and the replacements in order. It takes time linear
// in the text times the longest term.
func (l *Lexicon) Apply(text, language string) (string, []Applied) {
	if l == nil || len(l.entries) == 0 {
		return text, nil
	}
	var out strings.Builder
	var applied []Applied
	copied := 0 // text[:copied] is in out
	l.scan(text, language, func(start, end int, e *Entry) bool {
		if out.Len() == 0 {
			out.Grow(len(text) + len(text)/8)
		}
		out.WriteString(text[copied:start])
		applied = append(applied, Applied{Start: start, End: end, Out: out.Len(), Entry: e})
		out.WriteString(e.Spoken)
		copied = end
		return true
	})
	if applied == nil {
		return text, nil
	}
	out.WriteString(text[copied:])
	return out.String(), applied
}

// SpokenLen is the length in bytes of the text Apply returns, without
// making it: once the text so far passes max, the count stops and over is
// set (n is then only past max). A one-line lexicon can make a text a
// hundred times longer; this is how its length is bounded cheaply.
func (l *Lexicon) SpokenLen(text, language string, max int) (n int, over bool) {
	if l == nil || len(l.entries) == 0 {
		return len(text), len(text) > max
	}
	copied := 0 // text[:copied] is counted in n
	l.scan(text, language, func(start, end int, e *Entry) bool {
		n += start - copied + len(e.Spoken)
		copied = end
		return n <= max
	})
	if n > max {
		return n, true
	}
	n += len(text) - copied
	return n, n > max
}

// scan finds the replacements Apply makes, in order, and calls found with
// each (the replaced text is text[start:end]) until it returns false.
func (l *Lexicon) scan(text, language string, found func(start, end int, e *Entry) bool) {
	segStart := 0
	for segStart <= len(text) {
		tag, hasTag := NextTag(text, segStart)
		segEnd := len(text)
		if hasTag {
			segEnd = tag.Offset
		}
		for i := segStart; i < segEnd; {
			if end, e := l.match(text, i, segEnd, language); e != nil {
				if !found(i, end, e) {
					return
				}
				i = end
				continue
			}
			_, w := utf8.DecodeRuneInString(text[i:])
			i += w
		}
		if !hasTag {
			return
		}
		segStart = tag.End
	}
}

// maxTermSpace bounds the white space that one space of a term matches.
const maxTermSpace = 16

// match returns the end and entry of the longest term that matches at
// byte i of text, not past end, for language; nil when none does.
func (l *Lexicon) match(text string, i, end int, language string) (int, *Entry) {
	first, _ := utf8.DecodeRuneInString(text[i:])
	if i > 0 && isWordRune(first) {
		if before, _ := utf8.DecodeLastRuneInString(text[:i]); isWordRune(before) {
			return 0, nil
		}
	}
	var best *Entry
	bestEnd := 0
	n := int32(0)
	for j := i; j < end; {
		r, w := utf8.DecodeRuneInString(text[j:])
		key := fold(r)
		if isSpace(r) {
			key = ' '
			w = spaceRun(text[j:end])
			if w == 0 {
				break
			}
		}
		next, ok := l.edges[edge{n, key}]
		if !ok {
			break
		}
		n, j = next, j+w
		if len(l.nodes[n].entries) == 0 {
			continue
		}
		if isWordRune(r) && j < len(text) {
			if after, _ := utf8.DecodeRuneInString(text[j:]); isWordRune(after) {
				continue
			}
		}
		if e := l.choose(n, text[i:j], language); e != nil {
			best, bestEnd = e, j
		}
	}
	return bestEnd, best
}

// spaceRun returns the length of the white space at the start of s that
// one space of a term matches, or 0 when it is too long or holds two line
// breaks.
func spaceRun(s string) int {
	n, chars, lines := 0, 0, 0
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		if !isSpace(r) {
			break
		}
		if r == '\n' {
			lines++
		}
		n += w
		chars++
		if chars > maxTermSpace || lines > 1 {
			return 0
		}
	}
	return n
}

// choose returns the entry of node n that applies to matched (the text
// matched) in language: the most specific language, then case-exact.
func (l *Lexicon) choose(n int32, matched, language string) *Entry {
	var best *Entry
	bestRank := -1
	for _, k := range l.nodes[n].entries {
		e := l.entries[k]
		spec := languageMatch(e.Language, language)
		if spec < 0 || e.Exact && !sameText(matched, e.Term) {
			continue
		}
		rank := spec * 2
		if e.Exact {
			rank++
		}
		if rank > bestRank {
			best, bestRank = e, rank
		}
	}
	return best
}

// LanguageApplies reports whether an entry for language entry applies to
// a text in language text (Apply's rule): an entry for every language (""),
// for the text's language, or for a less specific one (hi for hi-IN; never
// en-US for en-IN), tags compared without regard to case.
func LanguageApplies(entry, text string) bool { return languageMatch(entry, text) >= 0 }

// languageMatch returns how specifically an entry's language applies to
// a text's: -1 not at all, 0 for an entry of every language, else the
// number of the entry's subtags (hi 1, hi-IN 2). Tags compare without
// regard to case (BCP 47 section 2.1.1).
func languageMatch(entry, text string) int {
	if entry == "" {
		return 0
	}
	if len(text) < len(entry) || !strings.EqualFold(text[:len(entry)], entry) ||
		len(text) > len(entry) && text[len(entry)] != '-' {
		return -1
	}
	return strings.Count(entry, "-") + 1
}

// sameText reports whether matched is term exactly, any run of white
// space matching one space of the term.
func sameText(matched, term string) bool {
	i, j := 0, 0
	for i < len(matched) && j < len(term) {
		r, w := utf8.DecodeRuneInString(matched[i:])
		if isSpace(r) {
			if term[j] != ' ' {
				return false
			}
			i += spaceRun(matched[i:])
			j++
			continue
		}
		if !strings.HasPrefix(term[j:], matched[i:i+w]) {
			return false
		}
		i, j = i+w, j+w
	}
	return i == len(matched) && j == len(term)
}

// isWordRune: letters, combining marks (Devanagari vowel signs and
// viramas are marks, not letters), digits and numbers, and the zero-width
// joiner and non-joiner that sit inside Indic words.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || r == zwj || r == zwnj
}

// fold maps r to one representative of its case class: the smallest rune
// of its simple case folding orbit.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// Span is a range of bytes of a text.
type Span struct{ Start, End int }

// UncoveredDigits returns the digit runs of text (NextDigits, outside
// audio tags) that no replacement of applied covers, trimmed to begin and
// end with a digit: what the service would still mispronounce
// (speech-synthesis.md, "What the service does", item 5). applied is
// Apply's answer for text.
func UncoveredDigits(text string, applied []Applied) []Span {
	var out []Span
	k := 0
	tag, inTags := NextTag(text, 0)
	for start, end, ok := NextDigits(text, 0); ok; start, end, ok = NextDigits(text, end) {
		for inTags && tag.End <= start {
			tag, inTags = NextTag(text, tag.End)
		}
		if inTags && tag.Offset <= start {
			continue // a run that starts in a tag ends in it
		}
		for at := start; at < end; {
			for k < len(applied) && applied[k].End <= at {
				k++
			}
			stop := end
			if k < len(applied) && applied[k].Start < end {
				stop = max(applied[k].Start, at)
			}
			if s, ok := digitSpan(text, at, stop); ok {
				out = append(out, s)
			}
			if stop == end {
				break
			}
			at = applied[k].End
		}
	}
	return out
}

// digitSpan trims text[a:b] to its first and last digit.
func digitSpan(text string, a, b int) (Span, bool) {
	for a < b && digitAt(text, a) == 0 {
		_, w := utf8.DecodeRuneInString(text[a:])
		a += w
	}
	if a >= b {
		return Span{}, false
	}
	for {
		r, w := utf8.DecodeLastRuneInString(text[a:b])
		if unicode.IsDigit(r) {
			break
		}
		b -= w
	}
	return Span{a, b}, true
}

// OriginalOffset maps a byte offset of Apply's result to the text it was
// applied to: an offset inside a spoken form maps to the start of the term
// it replaced. applied is Apply's answer.
func OriginalOffset(applied []Applied, out int) int {
	k := sort.Search(len(applied), func(k int) bool { return applied[k].Out > out }) - 1
	if k < 0 {
		return out
	}
	a := applied[k]
	spokenEnd := a.Out + len(a.Entry.Spoken)
	if out < spokenEnd {
		return a.Start
	}
	return a.End + out - spokenEnd
}
