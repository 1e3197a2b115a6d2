package listen

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Word is one normalized word and where it came from: Start and End are
// byte offsets into Text of the Normalized it belongs to, covering every
// source word it was made from ("twenty five" becomes one Word "25").
type Word struct {
	Text       string
	Start, End int
}

// Normalized is a text as the check compares it: Text is the input with
// the invisible characters removed and put in NFC, Words its normalized
// words in order.
type Normalized struct {
	Text  string
	Words []Word
}

// invisible are removed before anything else: the zero-width joiner and
// non-joiner only choose how a conjunct is drawn, never which word it is,
// and recognizers put them where the writer did not; the others draw
// nothing at all.
var invisible = strings.NewReplacer(
	"\u200c", "", // zero-width non-joiner
	"\u200d", "", // zero-width joiner
	"\u200b", "", // zero-width space
	"\u2060", "", // word joiner
	"\ufeff", "", // byte order mark, zero-width no-break space
	"\u00ad", "", // soft hyphen
)

// Normalize puts s in the form the check compares: see the package
// documentation for each rule. The same function is applied to the text
// that was sent and to the transcript, so a rule that cannot tell two
// spellings apart makes them equal on both sides alike.
func Normalize(s string) Normalized {
	text := norm.NFC.String(invisible.Replace(s))
	words := tokenize(text)
	words = numbers(words)
	words = times(words)
	words = joinDigits(words)
	words = rupees(words)
	words = dates(words)
	return Normalized{Text: text, Words: words}
}

// Strings is the text of each word.
func (n Normalized) Strings() []string {
	out := make([]string, len(n.Words))
	for i, w := range n.Words {
		out[i] = w.Text
	}
	return out
}

// indicZeros are the digit zeros of the scripts of the ten languages
// (Devanagari serves Hindi and Marathi) and of Odia; each block's ten
// digits follow its zero.
var indicZeros = []rune{0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66}

// asciiDigit maps a digit of any of those scripts to '0'..'9'; other
// runes come back unchanged.
func asciiDigit(r rune) rune {
	for _, z := range indicZeros {
		if r >= z && r <= z+9 {
			return '0' + (r - z)
		}
	}
	return r
}

func isDigit(r rune) bool { return asciiDigit(r) >= '0' && asciiDigit(r) <= '9' }

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u02bc' }

// inWord: letters, combining marks (an Indic vowel sign or virama is part
// of its word) and decimal digits of any script make words.
func inWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) }

// tokenize splits text into words: every rune that is not a letter, mark
// or digit separates words, except an apostrophe inside a word (deleted:
// "don't" is "dont"), a comma between digits (deleted: Indian grouping
// "1,00,000"), a point or colon between digits (kept: "12.50", "19:00").
// A currency sign is a word of its own. Digits become ASCII, Latin
// letters are case-folded.
func tokenize(text string) []Word {
	var out []Word
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, Word{Text: fold(b.String()), Start: start, End: end})
		}
		b.Reset()
		start = -1
	}
	for i, r := range text {
		switch {
		case inWord(r):
			if start < 0 {
				start = i
			}
			b.WriteRune(asciiDigit(r))
		case start >= 0 && isApostrophe(r) && nextInWord(text, i, r, unicode.IsLetter):
		case start >= 0 && (r == ',' || r == '.' || r == ':') && lastDigit(b.String()) && nextInWord(text, i, r, isDigit):
			if r != ',' {
				b.WriteRune(r)
			}
		case unicode.Is(unicode.Sc, r):
			flush(i)
			out = append(out, Word{Text: string(r), Start: i, End: i + utf8.RuneLen(r)})
		default:
			flush(i)
		}
	}
	flush(len(text))
	return out
}

// nextInWord reports whether the rune after the one r at i satisfies ok.
func nextInWord(text string, i int, r rune, ok func(rune) bool) bool {
	next, n := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
	return n > 0 && ok(next)
}

func lastDigit(s string) bool { return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' }

// fold case-folds Latin letters; the Indic scripts have no case, so a
// word without an upper-case letter or a Latin letter beyond ASCII (ß
// folds to ss) is only lowered.
func fold(s string) string {
	for _, r := range s {
		if r >= utf8.RuneSelf && (unicode.IsUpper(r) || unicode.Is(unicode.Latin, r)) {
			return cases.Fold().String(s)
		}
	}
	return strings.ToLower(s)
}

// merged is one word standing for words[i:j].
func merged(words []Word, i, j int, text string) Word {
	return Word{Text: text, Start: words[i].Start, End: words[j-1].End}
}
