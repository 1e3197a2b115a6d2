package corpus

import (
	"math/rand/v2"
	"strings"
)

// The ways a number is written or read out, each as a transcript would
// carry it: the ITN's digits (plain, grouped, Indian comma grouping,
// Devanagari digits) or the words of a verbatim transcript (English,
// Hindi, the two mixed, pairs, "double" and "triple").

var englishDigits = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

var hindiDigits = [10]string{"शून्य", "एक", "दो", "तीन", "चार", "पाँच", "छह", "सात", "आठ", "नौ"}

var englishTeens = [10]string{"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var englishTens = [10]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

// form renders digits d.
type form struct {
	name   string
	render func(r *rand.Rand, d string, groups []int) string
}

var (
	plain   = form{"digits", func(_ *rand.Rand, d string, _ []int) string { return d }}
	grouped = form{"grouped digits", func(_ *rand.Rand, d string, g []int) string { return group(d, g, " ") }}
	hyphens = form{"hyphenated digits", func(_ *rand.Rand, d string, g []int) string { return group(d, g, "-") }}
	indian  = form{"Indian comma grouping", func(_ *rand.Rand, d string, _ []int) string { return indianGrouping(d) }}
	indic   = form{"Devanagari digits", func(_ *rand.Rand, d string, _ []int) string { return devanagari(d) }}
	english = form{"English words", func(r *rand.Rand, d string, _ []int) string { return spoken(r, d, 0) }}
	hindi   = form{"Hindi words", func(r *rand.Rand, d string, _ []int) string { return spoken(r, d, 1) }}
	mixed   = form{"English and Hindi words", func(r *rand.Rand, d string, _ []int) string { return spoken(r, d, 2) }}
	pairs   = form{"English pairs", func(r *rand.Rand, d string, _ []int) string { return englishPairs(d) }}
)

// numberForms are every form of a number of digits.
var numberForms = []form{plain, grouped, hyphens, indian, indic, english, hindi, mixed}

func group(d string, sizes []int, sep string) string {
	var parts []string
	for _, n := range sizes {
		if n >= len(d) {
			break
		}
		parts, d = append(parts, d[:n]), d[n:]
	}
	return strings.Join(append(parts, d), sep)
}

// indianGrouping writes d as the ITN writes cardinals: the last three
// digits, then groups of two ("2,34,56,78,90,124").
func indianGrouping(d string) string {
	if len(d) <= 3 {
		return d
	}
	head, tail := d[:len(d)-3], d[len(d)-3:]
	var parts []string
	if len(head)%2 == 1 {
		parts, head = append(parts, head[:1]), head[1:]
	}
	for ; head != ""; head = head[2:] {
		parts = append(parts, head[:2])
	}
	return strings.Join(append(parts, tail), ",")
}

func devanagari(d string) string {
	var b strings.Builder
	for _, c := range d {
		b.WriteRune('०' + (c - '0'))
	}
	return b.String()
}

// spoken reads d digit by digit in English (lang 0), Hindi (1) or each
// digit in either (2); a run of two or three equal digits is sometimes
// "double"/"triple" (डबल in Hindi).
func spoken(r *rand.Rand, d string, lang int) string {
	var words []string
	for i := 0; i < len(d); {
		n := 1
		for i+n < len(d) && d[i+n] == d[i] && n < 3 {
			n++
		}
		hi := lang == 1 || (lang == 2 && r.IntN(2) == 0)
		digit := englishDigits[d[i]-'0']
		if hi {
			digit = hindiDigits[d[i]-'0']
		}
		switch {
		case n == 2 && r.IntN(2) == 0:
			words = append(words, map[bool]string{false: "double", true: "डबल"}[hi], digit)
		case n == 3 && r.IntN(2) == 0 && !hi:
			words = append(words, "triple", digit)
		default:
			n = 1
			words = append(words, digit)
		}
		i += n
	}
	return strings.Join(words, " ")
}

// englishPairs reads d two digits at a time ("ninety eight seventy six"),
// a pair with a leading zero as two digits ("zero five"), an odd last
// digit alone.
func englishPairs(d string) string {
	var words []string
	for ; len(d) >= 2; d = d[2:] {
		a, b := d[0]-'0', d[1]-'0'
		switch {
		case a == 0:
			words = append(words, englishDigits[a], englishDigits[b])
		case a == 1:
			words = append(words, englishTeens[b])
		case b == 0:
			words = append(words, englishTens[a])
		default:
			words = append(words, englishTens[a], englishDigits[b])
		}
	}
	if d != "" {
		words = append(words, englishDigits[d[0]-'0'])
	}
	return strings.Join(words, " ")
}

// digits draws n random digits, the first from first.
func digits(r *rand.Rand, n int, first string) string {
	b := []byte{first[r.IntN(len(first))]}
	for len(b) < n {
		b = append(b, byte('0'+r.IntN(10)))
	}
	return string(b)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }
