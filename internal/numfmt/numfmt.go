// Package numfmt writes numbers for people: 1234567 as "1,234,567". It is
// the one home of that rule, below every package that names a count or a
// limit in a message.
package numfmt

import "strconv"

// Thousands writes n with a comma between groups of three digits:
// 1234567 -> "1,234,567", -4096 -> "-4,096".
func Thousands[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
