package manifest

import "unicode/utf8"

// MaxSuggestCompares bounds the names one Suggester compares with
// candidates in all: "did you mean" for thousands of unknown names among
// thousands of candidates (variables, voices, a catalog's languages) would
// otherwise take minutes. Past it, the Suggester suggests nothing and the
// diagnostics keep their other hints. 1,000,000 comparisons take some
// 50 ms.
const MaxSuggestCompares = 1_000_000

// Suggest returns the candidate closest to name when it is a near miss
// (a small edit distance relative to its length), else "". Candidates
// that differ from name only in ASCII case are the closest; ties go to the
// candidate that sorts first.
func Suggest(name string, candidates []string) string {
	best, bestD := "", -1
	nr := utf8.RuneCountInString(name)
	limit := 2
	if nr > 8 {
		limit = 3
	}
	// An ASCII name is compared with ASCII candidates a machine word at a
	// time (see asciiDistance).
	var peq [utf8.RuneSelf]uint64
	asciiName := nr <= maxSuggestRunes && isASCII(name)
	if asciiName {
		for i := 0; i < len(name); i++ {
			peq[name[i]] |= 1 << i
		}
	}
	for _, c := range candidates {
		d := 0
		switch {
		case lowerEq(name, c):
		case asciiName && len(c) <= maxSuggestRunes && isASCII(c):
			d = limit + 1
			if len(c)-len(name) <= limit && len(name)-len(c) <= limit {
				d = asciiDistance(&peq, len(name), c)
			}
		default:
			d = boundedDistance(name, c, nr, limit)
		}
		if d <= limit && (bestD < 0 || d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	if best == name {
		return ""
	}
	return best
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiDistance is the Levenshtein distance of an ASCII pattern of m bytes
// (m at most 64), given by peq (for each byte, the positions in the
// pattern that hold it), and an ASCII text: Myers's bit-parallel algorithm
// as Hyyrö gives it for the distance of whole strings, one column of the
// dynamic programme per byte of text.
func asciiDistance(peq *[utf8.RuneSelf]uint64, m int, text string) int {
	if m == 0 {
		return len(text)
	}
	last := uint64(1) << (m - 1)
	pv, mv, score := ^uint64(0), uint64(0), m
	for i := 0; i < len(text); i++ {
		eq := peq[text[i]]
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		switch {
		case ph&last != 0:
			score++
		case mh&last != 0:
			score--
		}
		ph = ph<<1 | 1
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
	}
	return score
}

// Suggester is Suggest for one load: it remembers its answers, and it
// compares at most MaxSuggestCompares candidates in all. The zero value is
// ready to use.
type Suggester struct {
	memo     map[suggestKey]string
	compares int
}

// suggestKey identifies a question: the candidate list by its first
// element's address and length (the pointer keeps the list alive, so the
// address is not reused while the answer is remembered), and the name.
type suggestKey struct {
	list *string
	n    int
	name string
}

// Suggest is Suggest(name, candidates), remembered per list and name; ""
// once the Suggester has used up its comparisons.
func (s *Suggester) Suggest(name string, candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	k := suggestKey{&candidates[0], len(candidates), name}
	if sg, ok := s.memo[k]; ok {
		return sg
	}
	if s.compares+len(candidates) > MaxSuggestCompares {
		return ""
	}
	s.compares += len(candidates)
	sg := Suggest(name, candidates)
	if s.memo == nil {
		s.memo = map[suggestKey]string{}
	}
	s.memo[k] = sg
	return sg
}

func lowerEq(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// maxSuggestRunes is the longest name compared: longer ones are never near
// misses of each other.
const maxSuggestRunes = 64

// boundedDistance is the Levenshtein distance (over runes) of a, which has
// na runes, and b when it is at most limit; otherwise it is some number
// over limit. Only the cells of the dynamic programme within limit of the
// diagonal are computed, and it stops at the first row that is all over
// limit, so that comparing a name with many candidates costs little.
func boundedDistance(a, b string, na, limit int) int {
	nb := utf8.RuneCountInString(b)
	if na > maxSuggestRunes || nb > maxSuggestRunes {
		return 1 << 20
	}
	if na-nb > limit || nb-na > limit {
		return limit + 1
	}
	var ra, rb [maxSuggestRunes]rune
	toRunes(ra[:0], a)
	toRunes(rb[:0], b)
	const over = 1 << 20
	var prevRow, curRow [maxSuggestRunes + 1]int
	prev, cur := prevRow[:nb+1], curRow[:nb+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= na; i++ {
		lo, hi := max(1, i-limit), min(nb, i+limit)
		cur[lo-1] = over
		if lo == 1 {
			cur[0] = i
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < nb {
			cur[hi+1] = over
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[nb]
}

// toRunes decodes s, of at most maxSuggestRunes runes, into buf.
func toRunes(buf []rune, s string) {
	for _, r := range s {
		buf = append(buf, r)
	}
}
