package redact

// The check digits of the identifiers that have one.

// verhoeffD, verhoeffP and verhoeffInv are the multiplication table of
// the dihedral group D5, the permutation applied by position, and the
// inverse table of Verhoeff's scheme, which UIDAI uses for the last
// digit of an Aadhaar number.
var (
	verhoeffD = [10][10]uint8{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
		{2, 3, 4, 0, 1, 7, 8, 9, 5, 6}, {3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
		{4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
		{8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]uint8{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4},
		{5, 8, 0, 3, 7, 9, 6, 1, 4, 2}, {8, 9, 1, 6, 0, 4, 3, 5, 2, 7},
		{9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
	verhoeffInv = [10]uint8{0, 4, 3, 2, 1, 5, 6, 7, 8, 9}
)

// Verhoeff reports whether the ASCII digits s end in their Verhoeff
// check digit.
func Verhoeff(s string) bool {
	var c uint8
	for i := range len(s) {
		d := s[len(s)-1-i] - '0'
		if d > 9 {
			return false
		}
		c = verhoeffD[c][verhoeffP[i%8][d]]
	}
	return s != "" && c == 0
}

// VerhoeffDigit is the check digit that makes the ASCII digits s followed
// by it pass Verhoeff.
func VerhoeffDigit(s string) byte {
	var c uint8
	for i := range len(s) {
		c = verhoeffD[c][verhoeffP[(i+1)%8][s[len(s)-1-i]-'0']]
	}
	return '0' + verhoeffInv[c]
}

// Luhn reports whether the ASCII digits s end in their Luhn check digit,
// as a payment card number does.
func Luhn(s string) bool {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i]) - '0'
		if d < 0 || d > 9 {
			return false
		}
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return s != "" && sum%10 == 0
}

// LuhnDigit is the check digit that makes the ASCII digits s followed by
// it pass Luhn.
func LuhnDigit(s string) byte {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i]) - '0'
		if i%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}
