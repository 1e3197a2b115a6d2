package listen

// maxCharCells bounds the character table of one diverging span: past
// 16M cells (about 4,000 characters a side) the span counts as many
// edits as its longer side has characters, an upper bound of its edit
// distance, so that a long garbled stretch costs linear time.
const maxCharCells = 1 << 24

// charEdits counts the character edits (runes) that turn the sent side
// of s into the heard side, with the spaces that join it to the rest:
// a side heard as nothing loses its words and one space, unless the span
// is the whole text.
func charEdits(s Span, refWords, hypWords int) int {
	a, b := []rune(s.Sent), []rune(s.Heard)
	switch {
	case len(b) == 0 && s.RefEnd-s.RefStart < refWords:
		return len(a) + 1
	case len(a) == 0 && s.HypEnd-s.HypStart < hypWords:
		return len(b) + 1
	case (len(a)+1)*(len(b)+1) > maxCharCells:
		return max(len(a), len(b))
	}
	return levenshtein(a, b)
}

// levenshtein is the edit distance of a and b in two rows.
func levenshtein(a, b []rune) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := range a {
		diag := row[0]
		row[0] = i + 1
		for j := 1; j <= len(b); j++ {
			c := diag
			if a[i] != b[j-1] {
				c++
			}
			diag = row[j]
			row[j] = min(c, row[j]+1, row[j-1]+1)
		}
	}
	return row[len(b)]
}
