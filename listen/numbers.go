package listen

import (
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// numKind is the part a number word plays in a spoken number.
type numKind uint8

const (
	kZero    numKind = iota + 1
	kUnit            // one to nine
	kTeen            // ten to nineteen
	kTens            // twenty, thirty ... ninety
	kWhole           // a Hindi word for 1 to 99: nothing below it follows
	kHundred         // hundred, सौ
	kScale           // thousand, lakh, million, crore, billion
)

type numWord struct {
	v   int64
	k   numKind
	ord bool // an ordinal ends its number: "twenty first" is 21st
}

// numberWords are the English and Hindi number words, keyed in NFC
// (Hindi spellings with a nukta, such as करोड़, are stored as NFC makes
// them). Spelling variants the service's recognizer and writers use are
// listed side by side.
var numberWords = buildNumberWords()

var englishUnits = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var englishOrdinals = []string{"zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
	"tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"}

var englishTens = []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

var englishTensOrdinals = []string{"twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth"}

// hindiNumbers are the Hindi words for 0 to 99, each an irregular word of
// its own; variants separated by spaces.
var hindiNumbers = [100]string{
	"शून्य", "एक", "दो", "तीन", "चार", "पाँच पांच", "छह छः छै छे", "सात", "आठ", "नौ",
	"दस", "ग्यारह", "बारह", "तेरह", "चौदह", "पंद्रह पन्द्रह", "सोलह", "सत्रह", "अठारह अट्ठारह", "उन्नीस",
	"बीस", "इक्कीस", "बाईस", "तेईस", "चौबीस", "पच्चीस", "छब्बीस", "सत्ताईस", "अट्ठाईस अठाईस", "उनतीस उन्तीस",
	"तीस", "इकतीस इकत्तीस", "बत्तीस", "तैंतीस तेंतीस", "चौंतीस चौतीस", "पैंतीस", "छत्तीस", "सैंतीस", "अड़तीस", "उनतालीस उनचालीस",
	"चालीस", "इकतालीस", "बयालीस", "तैंतालीस तैतालीस", "चवालीस चौवालीस", "पैंतालीस", "छियालीस", "सैंतालीस", "अड़तालीस", "उनचास",
	"पचास", "इक्यावन", "बावन", "तिरेपन तिरपन", "चौवन चव्वन", "पचपन", "छप्पन", "सत्तावन", "अट्ठावन अठावन", "उनसठ",
	"साठ", "इकसठ", "बासठ", "तिरसठ तिरेसठ", "चौंसठ", "पैंसठ", "छियासठ", "सड़सठ सरसठ", "अड़सठ", "उनहत्तर",
	"सत्तर", "इकहत्तर", "बहत्तर", "तिहत्तर", "चौहत्तर", "पचहत्तर", "छिहत्तर", "सतहत्तर", "अठहत्तर", "उन्यासी उनासी",
	"अस्सी", "इक्यासी", "बयासी", "तिरासी", "चौरासी", "पचासी", "छियासी", "सत्तासी", "अट्ठासी", "नवासी नव्वासी",
	"नब्बे", "इक्यानबे इक्यानवे", "बानबे बानवे", "तिरानबे तिरानवे", "चौरानबे चौरानवे", "पचानबे पचानवे पंचानवे", "छियानबे छियानवे", "सत्तानबे सत्तानवे", "अट्ठानबे अट्ठानवे", "निन्यानबे निन्यानवे",
}

func buildNumberWords() map[string]numWord {
	m := map[string]numWord{}
	add := func(words string, w numWord) {
		for _, s := range strings.Fields(words) {
			m[norm.NFC.String(s)] = w
		}
	}
	for i, s := range englishUnits {
		k := kTeen
		switch {
		case i == 0:
			k = kZero
		case i < 10:
			k = kUnit
		}
		add(s, numWord{v: int64(i), k: k})
		if i > 0 {
			add(englishOrdinals[i], numWord{v: int64(i), k: k, ord: true})
		}
	}
	for i := range englishTens {
		add(englishTens[i], numWord{v: int64(20 + 10*i), k: kTens})
		add(englishTensOrdinals[i], numWord{v: int64(20 + 10*i), k: kTens, ord: true})
	}
	add("hundred सौ", numWord{v: 100, k: kHundred})
	add("hundredth", numWord{v: 100, k: kHundred, ord: true})
	add("thousand हज़ार हजार", numWord{v: 1000, k: kScale})
	add("thousandth", numWord{v: 1000, k: kScale, ord: true})
	add("lakh lakhs lac लाख", numWord{v: 100_000, k: kScale})
	add("million", numWord{v: 1_000_000, k: kScale})
	add("crore crores करोड़ करोड", numWord{v: 10_000_000, k: kScale})
	add("billion अरब", numWord{v: 1_000_000_000, k: kScale})
	for i, s := range hindiNumbers {
		k := kWhole
		if i == 0 {
			k = kZero
		}
		add(s, numWord{v: int64(i), k: k})
	}
	return m
}

// follows reports whether a word of kind k may continue a number whose
// last word was of kind last (0: the number has not started).
func follows(last, k numKind) bool {
	switch k {
	case kZero:
		return last == 0
	case kUnit:
		return last == 0 || last == kTens || last == kHundred || last == kScale
	case kTeen, kTens, kWhole:
		return last == 0 || last == kHundred || last == kScale
	case kHundred:
		return last == 0 || last == kUnit || last == kTeen || last == kTens || last == kWhole
	case kScale:
		return last != kZero && last != kScale
	}
	return false
}

// spokenNumber reads the number words starting at ws[i]: its value,
// whether it is an ordinal, and the index after its last word (i when
// ws[i] starts no number).
func spokenNumber(ws []Word, i int) (value int64, ord bool, j int) {
	var total, group int64
	var last numKind
	lastScale := int64(1) << 62
	for j = i; j < len(ws); j++ {
		w, ok := numberWords[ws[j].Text]
		if !ok {
			w, ok = scaledDigits(ws, j)
		}
		if !ok && ws[j].Text == "and" && (last == kHundred || last == kScale) && j+1 < len(ws) {
			if n, ok := numberWords[ws[j+1].Text]; ok && (n.k == kUnit || n.k == kTeen || n.k == kTens) {
				continue
			}
		}
		if !ok || !follows(last, w.k) || (w.k == kScale && w.v >= lastScale) {
			break
		}
		switch w.k {
		case kHundred:
			if last == 0 { // "hundred" alone is one hundred
				group = 1
			}
			group *= 100
		case kScale:
			if last == 0 { // "हज़ार रुपये" is one thousand
				group = 1
			}
			total += group * w.v
			group, lastScale = 0, w.v
		default:
			group += w.v
		}
		last = w.k
		if w.ord || w.k == kZero {
			return total + group, w.ord, j + 1
		}
	}
	if j > i && ws[j-1].Text == "and" {
		j--
	}
	return total + group, false, j
}

// scaledDigits reads digits before a hundred or a scale word, as in "25
// lakh" or "5 हज़ार", as a number word: written digits with a spoken
// scale. Below a million, so that no product overflows.
func scaledDigits(ws []Word, j int) (numWord, bool) {
	if j+1 >= len(ws) || !allDigits(ws[j].Text) || len(ws[j].Text) > 6 {
		return numWord{}, false
	}
	next, ok := numberWords[ws[j+1].Text]
	if !ok || (next.k != kHundred && next.k != kScale) {
		return numWord{}, false
	}
	v, _ := strconv.ParseInt(ws[j].Text, 10, 64)
	return numWord{v: v, k: kWhole}, true
}

// numbers writes every spoken number as digits: "twenty five" and
// "पच्चीस" become "25", "one lakh twenty thousand" becomes "120000",
// "twenty first" becomes "21st"; a written ordinal gets the right suffix
// ("21th" becomes "21st").
func numbers(ws []Word) []Word {
	out := ws[:0:0]
	for i := 0; i < len(ws); {
		v, ord, j := spokenNumber(ws, i)
		if j == i {
			out = append(out, ordinalSuffix(ws[i]))
			i++
			continue
		}
		s := strconv.FormatInt(v, 10)
		if ord {
			s += suffix(v)
		}
		out = append(out, merged(ws, i, j, s))
		i = j
	}
	return out
}

// ordinalSuffix rewrites a written ordinal ("1st", "22nd", "21th") with
// the suffix English gives its number; other words come back unchanged.
func ordinalSuffix(w Word) Word {
	n := len(w.Text)
	if n < 3 || !allDigits(w.Text[:n-2]) {
		return w
	}
	switch w.Text[n-2:] {
	case "st", "nd", "rd", "th":
		v, err := strconv.ParseInt(w.Text[:n-2], 10, 64)
		if err == nil {
			w.Text = strconv.FormatInt(v, 10) + suffix(v)
		}
	}
	return w
}

// suffix is the English ordinal suffix of v: 1st, 2nd, 3rd, 11th, 21st.
func suffix(v int64) string {
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

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// repeaters say the next digit twice or thrice in a spoken digit stream
// ("double five" is "55"), as the ITN expands them.
var repeaters = map[string]int{"double": 2, "triple": 3, "डबल": 2, "ट्रिपल": 3}

// joinDigits concatenates adjacent whole numbers into one digit string:
// the ITN writes a spoken digit stream (a phone number, a PIN, "nineteen
// ninety" as a year) as one number, and the text may write it in groups.
// "double" and "triple" before a single digit repeat it.
func joinDigits(ws []Word) []Word {
	var out []Word
	var run strings.Builder // the digits of the run out's last word ends
	for i := 0; i < len(ws); i++ {
		w, j := repeated(ws, i)
		i = j - 1
		k := len(out) - 1
		switch {
		case k >= 0 && run.Len() > 0 && allDigits(w.Text):
			run.WriteString(w.Text)
			out[k].End = w.End
			continue
		case run.Len() > 0:
			out[k].Text = run.String()
			run.Reset()
		}
		if allDigits(w.Text) {
			run.WriteString(w.Text)
		}
		out = append(out, w)
	}
	if run.Len() > 0 {
		out[len(out)-1].Text = run.String()
	}
	return out
}

// repeated reads the word at ws[i], "double" or "triple" before a single
// digit standing with it for the digit repeated ("double five" is "55"),
// and the index after what it read.
func repeated(ws []Word, i int) (Word, int) {
	if n, ok := repeaters[ws[i].Text]; ok && i+1 < len(ws) && len(ws[i+1].Text) == 1 && allDigits(ws[i+1].Text) {
		return merged(ws, i, i+2, strings.Repeat(ws[i+1].Text, n)), i + 2
	}
	return ws[i], i + 1
}

// streamDigits are the digit words read only inside a stream of digit
// words (see streams): Hindi digits as a recognizer of Indian English
// writes them in Latin letters, and English digits as a recognizer of
// Hindi writes them in Devanagari. Several are also common words ("do",
// "teen", "sat", "char"; वन "forest", सेवन "intake", टू "to", एट "at"),
// which a digit stream tells apart: inside one, they are digits, at its
// edge too ("likh do nine eight ..." is read 2 9 8 ...). "no" is none:
// it abbreviates "number" right before one ("mobile no 98765 43210").
var streamDigits = buildStreamDigits()

var romanHindiDigits = [10]string{"shoonya shunya sunya shunye", "ek", "do", "teen", "chaar char", "paanch panch paach",
	"chhah chhe chah chhai chheh", "saat sat", "aath ath", "nau nao"}

var devanagariEnglishDigits = [10]string{"ज़ीरो जीरो", "वन", "टू", "थ्री थ्रि", "फोर फ़ोर", "फाइव फ़ाइव फाईव",
	"सिक्स", "सेवन", "एट ऐट", "नाइन नाईन"}

// minStream is the fewest digit words (number words, stream digits,
// "double" and "triple", written digits) in a row that make a stream.
const minStream = 4

func buildStreamDigits() map[string]int {
	m := map[string]int{}
	for d := range 10 {
		for _, s := range strings.Fields(romanHindiDigits[d] + " " + devanagariEnglishDigits[d]) {
			m[norm.NFC.String(s)] = d
		}
	}
	return m
}

// streams rewrites each stream digit as the English word for its digit
// where it stands in a stream: at least minStream digit words in a row.
// "nine eight saat six" is read 9 8 7 6, "chaar paanch 0119 8704" 4 5
// 0119 8704, but "do din" and "teen baje" stay words.
func streams(ws []Word) {
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && digitWord(ws[j].Text) {
			j++
		}
		for k := i; j-i >= minStream && k < j; k++ {
			if d, ok := streamDigits[ws[k].Text]; ok {
				ws[k].Text = englishUnits[d]
			}
		}
		i = max(j, i+1)
	}
}

func digitWord(w string) bool {
	_, number := numberWords[w]
	_, stream := streamDigits[w]
	_, repeater := repeaters[w]
	return number || stream || repeater || allDigits(w)
}

// Numbers splits text into words as Normalize does and writes each
// spoken number as its digits ("twenty five" and "पच्चीस" are "25", "double
// five" is "55"), but joins no adjacent numbers and applies none of the
// currency, time and date rules: a spoken digit stream stays one word per
// number, each with the bytes it was read from. Start and End index text
// itself, which the caller puts in NFC without invisible characters
// (Normalize does both first) for the Hindi words to be recognized.
// Inside a stream of at least four digit words it also reads the digit
// words of romanized Hindi ("saat", "chaar") and English digits written
// in Devanagari ("सेवन", "फोर"), which Normalize leaves as words.
// Package redact reads digit streams from these words.
func Numbers(text string) []Word {
	tokens := tokenize(text)
	streams(tokens)
	ws := numbers(tokens)
	out := ws[:0:0]
	for i := 0; i < len(ws); {
		var w Word
		w, i = repeated(ws, i)
		out = append(out, w)
	}
	return out
}
