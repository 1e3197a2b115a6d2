package recog

import (
	"strconv"
	"strings"
)

// date reads an English "fifteenth (of) august (twenty twenty four)" as
// "15th August 2024", and a Hindi "पंद्रह अगस्त दो हज़ार चौबीस" as
// "15 अगस्त 2024".
func (n *normalizer) date(i int) (string, int) {
	d, ok := n.number(i)
	if !ok || d.v < 1 || d.v > 31 {
		return "", 0
	}
	j := i + d.k
	if d.ordinal && j < len(n.toks) && n.toks[j].word == "of" {
		j++
	}
	if j >= len(n.toks) || n.months[n.toks[j].word] == "" || n.toks[j-1].trail != "" {
		return "", 0
	}
	month := n.months[n.toks[j].word]
	j++
	day := strconv.FormatInt(d.v, 10)
	if d.ordinal {
		day += ordinalSuffix(d.v)
	}
	out := day + " " + month
	if y, k := n.year(j); k > 0 && n.toks[j-1].trail == "" {
		out += " " + strconv.FormatInt(y, 10)
		j += k
	}
	return out, j - i
}

// year reads a year: "twenty twenty four", "nineteen ninety nine",
// "nineteen hundred ninety nine" or "two thousand twenty four".
func (n *normalizer) year(i int) (int64, int) {
	a, ok := n.number(i)
	if !ok || a.ordinal {
		return 0, 0
	}
	if a.k == 1 && a.v >= 11 && a.v <= 99 && n.toks[i].trail == "" {
		if b, ok := n.number(i + 1); ok && !b.ordinal && b.v >= 10 && b.v <= 99 {
			return a.v*100 + b.v, 1 + b.k
		}
	}
	if a.v >= 1000 && a.v <= 2999 {
		return a.v, a.k
	}
	return 0, 0
}

// amount rewrites a number, with its currency when rupees (and paise)
// follow: cardinals in Indian grouping, ordinals with a suffix, years
// without grouping, rupees as ₹1,00,000.50.
func (n *normalizer) amount(i int) (string, int) {
	if y, k := n.year(i); k > 1 && !n.followedByCurrency(i+k) {
		if a, _ := n.number(i); a.k < k || a.hundredBase {
			return strconv.FormatInt(y, 10), k
		}
	}
	a, ok := n.number(i)
	if !ok {
		return "", 0
	}
	j := i + a.k
	if a.ordinal {
		return strconv.FormatInt(a.v, 10) + ordinalSuffix(a.v), a.k
	}
	if !n.followedByCurrency(j) {
		if a.k == 1 && n.toks[i].word == "दो" {
			return "", 0 // दो alone is the verb "give", not the number two
		}
		if a.hundredBase {
			return strconv.FormatInt(a.v, 10), a.k
		}
		return indianGroup(a.v), a.k
	}
	out := "₹" + indianGroup(a.v)
	j++ // the rupee word
	k := j
	if k < len(n.toks) && andWords[n.toks[k].word] {
		k++
	}
	if p, ok := n.number(k); ok && !p.ordinal && p.v < 100 && k+p.k < len(n.toks) && paiseWords[n.toks[k+p.k].word] {
		out += "." + twoDigits(p.v)
		j = k + p.k + 1
	}
	return out, j - i
}

func (n *normalizer) followedByCurrency(j int) bool {
	return j < len(n.toks) && rupeeWords[n.toks[j].word] && n.toks[j-1].trail == ""
}

func twoDigits(v int64) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// indianGroup writes v with Indian comma grouping: the last three digits,
// then groups of two (12,34,567).
func indianGroup(v int64) string {
	s := strconv.FormatInt(v, 10)
	if len(s) <= 3 {
		return s
	}
	head, tail := s[:len(s)-3], s[len(s)-3:]
	var groups []string
	for len(head) > 2 {
		groups = append([]string{head[len(head)-2:]}, groups...)
		head = head[:len(head)-2]
	}
	groups = append([]string{head}, groups...)
	return strings.Join(groups, ",") + "," + tail
}

func ordinalSuffix(v int64) string {
	if v%100 >= 11 && v%100 <= 13 {
		return "th"
	}
	switch v % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

func nativeDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			r = devanagariDigits[r-'0']
		}
		b.WriteRune(r)
	}
	return b.String()
}
