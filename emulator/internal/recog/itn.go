package recog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// itn applies the emulator's inverse text normalization to spoken text
// (format=transcribe). It knows English and Hindi number words; other
// languages pass through unchanged. With native set, the digits it writes in
// a hi-IN transcript are Devanagari digits.
func itn(text, lang string, native bool) string {
	n := &normalizer{lex: englishNumbers, months: englishMonths}
	if strings.HasPrefix(lang, "hi") {
		// Code-mixed Hindi: English and Hindi number words alike, each
		// entity on its own.
		n = &normalizer{lex: mixedNumbers, months: mixedMonths}
	}
	n.native = native && lang == "hi-IN"
	n.toks = tokenize(text)
	var out []string
	for i := 0; i < len(n.toks); {
		if s, k := n.span(i); k > 0 {
			last := n.toks[i+k-1]
			if n.native {
				s = nativeDigits(s)
			}
			out = append(out, n.toks[i].lead+s+last.trail)
			i += k
			continue
		}
		out = append(out, n.toks[i].raw)
		i++
	}
	return strings.Join(out, " ")
}

type token struct {
	raw, word, lead, trail string
}

func tokenize(text string) []token {
	var toks []token
	for _, f := range strings.Fields(text) {
		core := strings.TrimRightFunc(f, isPunct)
		trail := f[len(core):]
		word := strings.TrimLeftFunc(core, isPunct)
		lead := core[:len(core)-len(word)]
		toks = append(toks, token{raw: f, word: strings.ToLower(word), lead: lead, trail: trail})
	}
	return toks
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || r == '।' }

type normalizer struct {
	toks   []token
	lex    map[string]numWord
	months map[string]string
	native bool
}

// span tries every rule at token i and returns the rewritten span and the
// number of tokens it replaces (0: no rule matched).
func (n *normalizer) span(i int) (string, int) {
	for _, rule := range []func(int) (string, int){n.vague, n.digitStream, n.clockTime, n.date, n.amount} {
		if s, k := rule(i); k > 0 {
			return s, k
		}
	}
	return "", 0
}

// number parses a spoken number at i: its value, the tokens used, whether
// it ended in an ordinal word, and whether it was a hundred-base form
// (nineteen hundred ...).
type number struct {
	v           int64
	k           int
	ordinal     bool
	hundredBase bool
}

func (n *normalizer) number(i int) (number, bool) {
	var total, cur int64
	prev := int64(-1) // the previous unit word's value, -1 after a scale
	res := number{}
	for j := i; j < len(n.toks); j++ {
		w := n.toks[j].word
		if ord, ok := englishOrdinals[w]; ok {
			switch {
			case ord == 100:
				cur = max(cur, 1) * 100
			case ord == 1000:
				total, cur = total+max(cur, 1)*1000, 0
			case prev >= 0 && !(prev >= 20 && prev%10 == 0 && ord < 10):
				return res, res.k > 0
			default:
				cur += ord
			}
			return number{v: total + cur, k: j - i + 1, ordinal: true}, true
		}
		nw, ok := n.lex[w]
		if !ok {
			if andWords[w] && res.k > 0 && prev < 0 && j+1 < len(n.toks) && n.toks[j].trail == "" {
				if _, next := n.lex[n.toks[j+1].word]; next {
					continue
				}
			}
			break
		}
		switch nw.kind {
		case kindUnit:
			if prev >= 0 && !(prev >= 20 && prev%10 == 0 && nw.value > 0 && nw.value < 10) {
				return res, res.k > 0
			}
			cur += nw.value
			prev = nw.value
			if nw.value < 10 && res.k > 0 {
				prev = 1 // tens and unit done: no third word
			}
		case kindHundred:
			res.hundredBase = cur >= 11 && cur <= 99 && total == 0
			cur, prev = max(cur, 1)*100, -1
		case kindScale:
			total, cur, prev = total+max(cur, 1)*nw.value, 0, -1
		}
		res.v, res.k = total+cur, j-i+1
		if n.toks[j].trail != "" {
			break // punctuation ends a number
		}
	}
	return res, res.k > 0
}

// vague leaves "two or three" and the like as text.
func (n *normalizer) vague(i int) (string, int) {
	a, ok := n.number(i)
	if !ok || a.ordinal || i+a.k+1 >= len(n.toks) || !orWords[n.toks[i+a.k].word] {
		return "", 0
	}
	b, ok := n.number(i + a.k + 1)
	if !ok {
		return "", 0
	}
	k := a.k + 1 + b.k
	raws := make([]string, k)
	for j := range raws {
		raws[j] = n.toks[i+j].word
	}
	return strings.Join(raws, " "), k
}

// digitStream joins single spoken digits (with double and triple) into one
// digit string: 10 digits are a mobile number, 6 a PIN code.
func (n *normalizer) digitStream(i int) (string, int) {
	var b strings.Builder
	j := i
	for j < len(n.toks) {
		rep := 1
		w := n.toks[j].word
		if r, ok := repeatWords[w]; ok && j+1 < len(n.toks) && n.toks[j].trail == "" {
			rep, j, w = r, j+1, n.toks[j+1].word
		}
		nw, ok := n.lex[w]
		if !ok || nw.kind != kindUnit || nw.value > 9 {
			if rep > 1 {
				j--
			}
			break
		}
		b.WriteString(strings.Repeat(strconv.FormatInt(nw.value, 10), rep))
		j++
		if n.toks[j-1].trail != "" {
			break
		}
	}
	if j-i < 2 || b.Len() < 3 {
		return "", 0
	}
	return b.String(), j - i
}

// clockTime reads "seven thirty in the evening", "ten at night" or Hindi
// "शाम सात बजे" as 24-hour HH:MM (evening 16-20 h, night 20-24 h).
func (n *normalizer) clockTime(i int) (string, int) {
	if part, ok := dayParts[n.toks[i].word]; ok && n.toks[i].word[0] >= 0x80 {
		h, m, k := n.hourMinute(i + 1)
		if k == 0 || i+1+k >= len(n.toks) || n.toks[i+1+k].word != "बजे" {
			return "", 0
		}
		return hhmm(h, m, part), k + 2
	}
	h, m, k := n.hourMinute(i)
	if k == 0 {
		return "", 0
	}
	rest := n.words(i+k, 3)
	switch {
	case len(rest) >= 3 && rest[0] == "in" && rest[1] == "the" && dayParts[rest[2]] != "" && rest[2] != "night":
		return hhmm(h, m, dayParts[rest[2]]), k + 3
	case len(rest) >= 2 && rest[0] == "at" && rest[1] == "night":
		return hhmm(h, m, "night"), k + 2
	}
	return "", 0
}

func (n *normalizer) hourMinute(i int) (h, m int64, k int) {
	hr, ok := n.number(i)
	if !ok || hr.ordinal || hr.k != 1 || hr.v < 1 || hr.v > 12 {
		return 0, 0, 0
	}
	if mn, ok := n.number(i + 1); ok && !mn.ordinal && mn.v >= 1 && mn.v <= 59 && n.toks[i].trail == "" {
		return hr.v, mn.v, 1 + mn.k
	}
	return hr.v, 0, 1
}

func hhmm(h, m int64, part string) string {
	switch part {
	case "am":
		h %= 12
	case "pm":
		h = h%12 + 12
	case "night":
		if h >= 8 && h < 12 {
			h += 12
		} else if h == 12 {
			h = 0
		}
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

func (n *normalizer) words(i, k int) []string {
	var out []string
	for j := i; j < len(n.toks) && j < i+k; j++ {
		out = append(out, n.toks[j].word)
	}
	return out
}
