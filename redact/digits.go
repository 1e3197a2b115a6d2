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
		out = append(out, p.run(s, ws, i, j)...)
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

// run finds the identifiers of the digit groups ws[i:j]. It partitions
// the run wholly into identifiers when it can (the fewest: the longest
// first), so that a valid number inside a longer one is not taken out of
// it. When it cannot, or an amount of rupees is beside it, the run is
// cut at its cuts (see cuts) and as much of it as can be is partitioned
// into identifiers, the rest, whole pieces between cuts, left: the piece
// beside a rupee word is the amount and always left.
func (p Policy) run(s string, ws []listen.Word, i, j int) []Span {
	g := groupsOf(s, ws, i, j)
	lo, hi := 0, g.n
	if amountBefore(s, ws, i) {
		lo = g.nextCut(0)
	}
	if amountAfter(s, ws, j) {
		hi = g.prevCut(g.n)
	}
	if lo >= hi {
		return nil
	}
	c := cue(s, ws, i)
	plus := lo == 0 && ws[i].Start > 0 && s[ws[i].Start-1] == '+'
	next, kinds := p.cover(g, lo, hi, plus, c)
	var out []Span
	for k := lo; k < hi; k = abs(next[k]) {
		if next[k] < 0 {
			continue // a piece left
		}
		sp := Span{Kind: kinds[k], Start: ws[i+k].Start, End: ws[i+next[k]-1].End}
		if k == 0 && plus && sp.Kind == Mobile {
			sp.Start--
		}
		out = append(out, sp)
	}
	return out
}

// cover chooses, for each group k of g[lo:hi], where what starts there
// ends: next[k] = e, an identifier of groups k to e, or -e, a piece
// between cuts left. It leaves the fewest digits, then takes the longest
// identifier first; a run wholly partitioned leaves none.
func (p Policy) cover(g groups, lo, hi int, plus bool, c cueKind) (next []int, kinds []Kind) {
	const none = 1 << 30
	left := make([]int, hi+1) // digits left from group k on; none: k starts nothing
	next, kinds = make([]int, hi+1), make([]Kind, hi+1)
	for k := hi - 1; k >= lo; k-- {
		left[k] = none
		if k == lo || g.cut[k] || (k == g.tail && hi == g.n) {
			e := min(g.nextCut(k), hi)
			left[k], next[k] = g.at[e]-g.at[k]+left[e], -e
		}
		for e := k + 1; e <= hi && g.at[e]-g.at[k] <= maxEntityDigits; e++ {
			if left[e] > left[k] || left[e] == none {
				continue
			}
			kind := p.classify(g.digits[g.at[k]:g.at[e]], plus && k == 0, c)
			if kind != "" && (e != g.tail || next[e] > 0 || kind == Card) {
				left[k], next[k], kinds[k] = left[e], e, kind
			}
		}
	}
	return next, kinds
}

func abs(x int) int { return max(x, -x) }

// groups are the digit groups of one run: their digits joined, where
// each starts in them, and the cuts between them.
type groups struct {
	n      int
	digits string
	at     []int  // at[k]: where group k starts in digits; at[n]: its length
	cut    []bool // cut[k]: the run may be cut before group k (0 < k < n)
	// tail, when not 0, is the last group, the rest of the equal groups
	// before it, which may be cut off only after a card.
	tail int
}

// groupsOf reads the run ws[i:j]. The run may be cut before a group
//
//   - after a comma or a bracket;
//   - where written digits meet spoken words;
//   - where two groups of written digits, each of two digits or more,
//     differ in length ("4839201 | 9876543210", "9876543210 | 500
//     rupees"): a number written in groups keeps their length, and a
//     digit alone may be the number's last, said apart ("9876543210 2").
//
// A last group shorter than two or more equal groups before it is the
// rest of their number (fifteen digits in fours are "3440 6984 4313
// 121"), so it is cut off only after a card: a card number is read with
// its CVV or expiry after it ("4111 1111 1111 1111 | 123"). Spoken
// words, digit by digit or in pairs, are never cut between each other
// otherwise: their groups say nothing of where a number ends.
func groupsOf(s string, ws []listen.Word, i, j int) groups {
	n := j - i
	g := groups{n: n, at: make([]int, n+1), cut: make([]bool, n+1)}
	var all strings.Builder
	for k := range n {
		g.at[k] = all.Len()
		all.WriteString(ws[i+k].Text)
	}
	g.at[n] = all.Len()
	g.digits = all.String()
	for k := 1; k < n; k++ {
		a, b := ws[i+k-1], ws[i+k]
		wa, wb := written(s, a), written(s, b)
		resized := wa && wb && len(a.Text) >= 2 && len(b.Text) >= 2 && len(a.Text) != len(b.Text)
		if resized && k == n-1 && k >= 2 && len(b.Text) < len(a.Text) && len(ws[i+k-2].Text) == len(a.Text) && written(s, ws[i+k-2]) {
			g.tail, resized = k, false
		}
		g.cut[k] = strings.ContainsAny(s[a.End:b.Start], ",()") || wa != wb || resized
	}
	if g.tail > 0 && g.cut[g.tail] {
		g.tail = 0 // cut anyway
	}
	return g
}

// nextCut is the first cut after group k, or n.
func (g groups) nextCut(k int) int {
	for k++; k < g.n && !g.cut[k]; k++ {
	}
	return k
}

// prevCut is the last cut before group k, or 0.
func (g groups) prevCut(k int) int {
	for k--; k > 0 && !g.cut[k]; k-- {
	}
	return max(k, 0)
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

// amountBefore: a rupee sign ("₹", "Rs.") stands right before the run
// starting at ws[i], with only spaces (and the sign's point) between.
func amountBefore(s string, ws []listen.Word, i int) bool {
	if i == 0 {
		return false
	}
	sign, _ := listen.Currency(ws[i-1].Text)
	return sign && strings.TrimSpace(strings.TrimPrefix(s[ws[i-1].End:ws[i].Start], ".")) == ""
}

// amountAfter: a rupee word ("rupees", "रुपये") stands right after the
// run ending before ws[j], with only spaces between.
func amountAfter(s string, ws []listen.Word, j int) bool {
	if j == 0 || j >= len(ws) {
		return false
	}
	_, spoken := listen.Currency(ws[j].Text)
	return spoken && strings.TrimSpace(s[ws[j-1].End:ws[j].Start]) == ""
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
