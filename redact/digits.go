package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/listen"
	"golang.org/x/text/unicode/norm"
)

// Bounds of the number detectors.
const (
	// maxEntityDigits is the longest number an identifier is (a card of
	// 19 digits); a run's partition looks no further ahead.
	maxEntityDigits = 19
	// cueWindow is how many words before a number an account or phone
	// word is looked for.
	cueWindow = 6
)

// digitSpans finds the numbers: runs of digit groups (written digits, a
// spoken number, "double five") that follow each other with nothing but
// spaces, hyphens, commas or brackets between them, each run wholly
// partitioned into identifiers.
func (p Policy) digitSpans(s string, ws []listen.Word) []Span {
	if !p.has(Mobile) && !p.has(Aadhaar) && !p.has(Card) && !p.has(BankAccount) {
		return nil
	}
	var out []Span
	for i := 0; i < len(ws); {
		if !allDigits(ws[i].Text) {
			i++
			continue
		}
		j := i + 1
		for j < len(ws) && allDigits(ws[j].Text) && joinable(s[ws[j-1].End:ws[j].Start]) {
			j++
		}
		out = append(out, p.splitRun(s, ws, i, j)...)
		i = j
	}
	return out
}

// joinable: what may stand between two groups of one number.
func joinable(gap string) bool {
	for _, r := range gap {
		if !unicode.IsSpace(r) && !strings.ContainsRune("-,()", r) {
			return false
		}
	}
	return true
}

// run partitions the digit groups ws[i:j] into identifiers, preferring
// the fewest (longest first). A run that cannot be wholly partitioned,
// or is an amount of rupees, has none: a valid number inside a longer
// string of digits is not taken out of it.
func (p Policy) run(s string, ws []listen.Word, i, j int) []Span {
	if amount(s, ws, i, j) {
		return nil
	}
	c := cue(s, ws, i)
	plus := ws[i].Start > 0 && s[ws[i].Start-1] == '+'
	n := j - i
	var all strings.Builder
	at := make([]int, n+1) // at[k]: where group k starts in all
	for k := range n {
		at[k] = all.Len()
		all.WriteString(ws[i+k].Text)
	}
	at[n] = all.Len()
	digits := all.String()
	next := make([]int, n+1) // next[k]: where the identifier starting at group k ends, 0: none
	kinds := make([]Kind, n)
	next[n] = n
	for k := n - 1; k >= 0; k-- {
		for e := k + 1; e <= n && at[e]-at[k] <= maxEntityDigits; e++ {
			if kind := p.classify(digits[at[k]:at[e]], plus && k == 0, c); kind != "" && next[e] > 0 {
				next[k], kinds[k] = e, kind
			}
		}
	}
	if next[0] == 0 {
		return nil
	}
	var out []Span
	for k := 0; k < n; k = next[k] {
		sp := Span{Kind: kinds[k], Start: ws[i+k].Start, End: ws[i+next[k]-1].End}
		if k == 0 && plus && sp.Kind == Mobile {
			sp.Start--
		}
		out = append(out, sp)
	}
	return out
}

// splitRun partitions the run ws[i:j]; when it has no partition, each
// stretch of it between commas and between written digits and spoken
// words is partitioned on its own: "nine ... zero, one more thing" and
// "लिख दो 9876543210" (दो: "give", read as 2) have a mobile number, which
// "... zero one more thing" does not.
func (p Policy) splitRun(s string, ws []listen.Word, i, j int) []Span {
	if spans := p.run(s, ws, i, j); spans != nil {
		return spans
	}
	var out []Span
	from := i
	for k := i + 1; k <= j; k++ {
		if k == j || strings.Contains(s[ws[k-1].End:ws[k].Start], ",") || written(s, ws[k-1]) != written(s, ws[k]) {
			if from > i || k < j {
				out = append(out, p.run(s, ws, from, k)...)
			}
			from = k
		}
	}
	return out
}

// written: the word is digits as written, not a spoken number.
func written(s string, w listen.Word) bool {
	r, _ := utf8.DecodeRuneInString(s[w.Start:w.End])
	return unicode.IsDigit(r)
}

// classify names the identifier the digits d are, among the policy's
// kinds: a number with a check digit first, then an account number after
// an account word, then a mobile number. plus: a "+" is written before d.
func (p Policy) classify(d string, plus bool, c cueKind) Kind {
	switch {
	case plus && len(d) == 12 && p.has(Mobile) && mobile(d):
		return Mobile
	case p.has(Card) && card(d):
		return Card
	case p.has(Aadhaar) && aadhaar(d):
		return Aadhaar
	case p.has(BankAccount) && c == accountCue && len(d) >= 9 && len(d) <= 18:
		return BankAccount
	case p.has(Mobile) && mobile(d):
		return Mobile
	}
	return ""
}

// mobile: ten digits, the first 6 to 9, perhaps after 0 or 91.
func mobile(d string) bool {
	switch {
	case len(d) == 11 && d[0] == '0':
		d = d[1:]
	case len(d) == 12 && d[:2] == "91":
		d = d[2:]
	}
	return len(d) == 10 && d[0] >= '6'
}

// aadhaar: twelve digits, the first 2 to 9, the last Verhoeff's.
func aadhaar(d string) bool { return len(d) == 12 && d[0] >= '2' && Verhoeff(d) }

// card: 13 to 19 digits under a payment network's first digit (2 to 6;
// RuPay's 81 and 82), the last Luhn's.
func card(d string) bool {
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	network := (d[0] >= '2' && d[0] <= '6') || d[:2] == "81" || d[:2] == "82"
	return network && Luhn(d)
}

// amount: the run ws[i:j] is a sum of rupees, after a rupee sign ("₹",
// "Rs.") or before a rupee word ("rupees", "रुपये"), with only spaces
// between.
func amount(s string, ws []listen.Word, i, j int) bool {
	if i > 0 {
		if sign, _ := listen.Currency(ws[i-1].Text); sign && strings.TrimSpace(strings.TrimPrefix(s[ws[i-1].End:ws[i].Start], ".")) == "" {
			return true
		}
	}
	if j < len(ws) {
		if _, spoken := listen.Currency(ws[j].Text); spoken && strings.TrimSpace(s[ws[j-1].End:ws[j].Start]) == "" {
			return true
		}
	}
	return false
}

type cueKind uint8

const (
	noCue cueKind = iota
	accountCue
	phoneCue
)

// cueWords name an account or a phone; keyed in NFC, case-folded as
// listen writes words.
var cueWords = func() map[string]cueKind {
	m := map[string]cueKind{}
	for _, w := range strings.Fields("account accounts acct acc खाता खाते खातों अकाउंट अकॉउंट एकाउंट अकाउन्ट") {
		m[norm.NFC.String(w)] = accountCue
	}
	for _, w := range strings.Fields("mobile phone cell whatsapp contact call मोबाइल मोबाईल फोन फ़ोन कॉल") {
		m[norm.NFC.String(w)] = phoneCue
	}
	return m
}()

// cue is the nearest account or phone word among the cueWindow words
// before ws[i], in its sentence and after any number before it ("a/c"
// is an account word).
func cue(s string, ws []listen.Word, i int) cueKind {
	for k := i - 1; k >= 0 && k >= i-cueWindow; k-- {
		if sentenceEnd(s[ws[k].End:ws[k+1].Start], ws[k].Text) {
			break
		}
		if allDigits(ws[k].Text) { // a word before another number is that number's
			break
		}
		if c := cueWords[ws[k].Text]; c != noCue {
			return c
		}
		if k > 0 && ws[k].Text == "c" && ws[k-1].Text == "a" && s[ws[k-1].End:ws[k].Start] == "/" {
			return accountCue
		}
	}
	return noCue
}

// sentenceEnd: the gap after word ends a sentence; the point of "no."
// or "acct." does not.
func sentenceEnd(gap, word string) bool {
	if strings.ContainsAny(gap, "?!।॥") {
		return true
	}
	abbrev := word == "no" || word == "nos" || word == "num" || cueWords[word] == accountCue
	return strings.Contains(gap, ".") && !abbrev
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
