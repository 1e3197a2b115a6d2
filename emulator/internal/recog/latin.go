package recog

import (
	"strings"
	"unicode"
)

// en-IN accepts English-Hindi mixed audio and answers in Latin script
// (speech-recognition.md, "Language codes"). The emulator romanizes
// Devanagari in a simple, deterministic way: consonants carry an inherent
// "a" unless a vowel sign or virama follows, and a word's final inherent
// "a" is dropped.

var devConsonants = map[rune]string{
	'क': "k", 'ख': "kh", 'ग': "g", 'घ': "gh", 'ङ': "ng", 'च': "ch", 'छ': "chh", 'ज': "j", 'झ': "jh",
	'ञ': "ny", 'ट': "t", 'ठ': "th", 'ड': "d", 'ढ': "dh", 'ण': "n", 'त': "t", 'थ': "th", 'द': "d",
	'ध': "dh", 'न': "n", 'प': "p", 'फ': "ph", 'ब': "b", 'भ': "bh", 'म': "m", 'य': "y", 'र': "r",
	'ल': "l", 'व': "v", 'श': "sh", 'ष': "sh", 'स': "s", 'ह': "h",
	'\u0958': "q", '\u0959': "kh", '\u095A': "g", '\u095B': "z", '\u095C': "r", '\u095D': "rh", '\u095E': "f",
}

// nuktaForms are consonants changed by a following nukta sign.
var nuktaForms = map[rune]string{'क': "q", 'ज': "z", 'फ': "f", 'ड': "r", 'ढ': "rh"}

var devVowels = map[rune]string{
	'अ': "a", 'आ': "aa", 'इ': "i", 'ई': "ee", 'उ': "u", 'ऊ': "oo", 'ए': "e", 'ऐ': "ai", 'ओ': "o",
	'औ': "au", 'ऋ': "ri",
}

var devSigns = map[rune]string{
	'ा': "aa", 'ि': "i", 'ी': "ee", 'ु': "u", 'ू': "oo", 'े': "e", 'ै': "ai", 'ो': "o", 'ौ': "au",
	'ृ': "ri", 'ॅ': "e", 'ॉ': "o",
}

const (
	virama    = '्'
	nukta     = '़'
	anusvara  = 'ं'
	candrabin = 'ँ'
	visarga   = 'ः'
)

func hasDevanagari(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Devanagari, r) }) >= 0
}

// romanize writes Devanagari in Latin letters; other text passes through.
func romanize(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if c, ok := devConsonants[r]; ok {
			next := rune(0)
			if i+1 < len(rs) && rs[i+1] == nukta {
				if n, ok := nuktaForms[r]; ok {
					c = n
				}
				i++
			}
			b.WriteString(c)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			_, sign := devSigns[next]
			wordEnd := next == 0 || !unicode.Is(unicode.Devanagari, next) || next == '।'
			if !sign && next != virama && !wordEnd {
				b.WriteByte('a')
			}
			continue
		}
		switch {
		case devVowels[r] != "":
			b.WriteString(devVowels[r])
		case devSigns[r] != "":
			b.WriteString(devSigns[r])
		case r == anusvara || r == candrabin:
			b.WriteByte('n')
		case r == visarga:
			b.WriteByte('h')
		case r == '।' || r == '॥':
			b.WriteByte('.')
		case r >= '०' && r <= '९':
			b.WriteRune('0' + (r - '०'))
		case r == virama || r == nukta:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
