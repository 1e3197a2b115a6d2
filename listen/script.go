package listen

import "unicode"

// scripts are the scripts of the ten languages, and Odia, in the order
// Script breaks ties.
var scripts = []struct {
	name  string
	table *unicode.RangeTable
}{
	{"Devanagari", unicode.Devanagari}, {"Latin", unicode.Latin}, {"Bengali", unicode.Bengali},
	{"Tamil", unicode.Tamil}, {"Telugu", unicode.Telugu}, {"Kannada", unicode.Kannada},
	{"Malayalam", unicode.Malayalam}, {"Gujarati", unicode.Gujarati}, {"Gurmukhi", unicode.Gurmukhi},
	{"Oriya", unicode.Oriya},
}

// Script names the script most of the letters of text are written in
// ("Devanagari", "Latin", "Bengali", "Tamil", "Telugu", "Kannada",
// "Malayalam", "Gujarati", "Gurmukhi", "Oriya", as Go's unicode package
// names them), or "" when it has no letter of those. It is what a
// language chosen from the text ("auto", "hi-en", "IND-IN") is chosen
// from; marks and digits do not count, since digits are shared and a
// mark belongs to its letter.
func Script(text string) string {
	name, _ := ScriptShare(text)
	return name
}

// ScriptShare is Script with the share of the counted letters that are
// in that script (0 when there are none): 1 for a text in one script,
// 0.62 for one whose other letters (38 %) are in other scripts, which a
// recognizer listening for one script will not write.
func ScriptShare(text string) (name string, share float64) {
	counts := make([]int, len(scripts))
	total := 0
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		for i, s := range scripts {
			if unicode.Is(s.table, r) {
				counts[i]++
				total++
				break
			}
		}
	}
	best := -1
	for i, n := range counts {
		if n > 0 && (best < 0 || n > counts[best]) {
			best = i
		}
	}
	if best < 0 {
		return "", 0
	}
	return scripts[best].name, float64(counts[best]) / float64(total)
}
