package manifest

// Suggest returns the candidate closest to name when it is a near miss
// (a small edit distance relative to its length), else "".
func Suggest(name string, candidates []string) string {
	best, bestD := "", -1
	limit := 2
	if len([]rune(name)) > 8 {
		limit = 3
	}
	for _, c := range candidates {
		d := editDistance(name, c)
		if lowerEq(name, c) {
			d = 0
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

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
