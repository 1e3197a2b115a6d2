package recog

// The ITN lexicons: spoken number words of English and Hindi
// (speech-recognition.md, "Inverse text normalization").

const (
	kindUnit    = iota + 1 // 0..99 said as one word
	kindHundred            // hundred, सौ
	kindScale              // thousand, lakh, crore, million
)

type numWord struct {
	kind  int
	value int64
}

var englishNumbers = map[string]numWord{
	"zero": {kindUnit, 0}, "oh": {kindUnit, 0}, "one": {kindUnit, 1}, "two": {kindUnit, 2}, "three": {kindUnit, 3},
	"four": {kindUnit, 4}, "five": {kindUnit, 5}, "six": {kindUnit, 6}, "seven": {kindUnit, 7},
	"eight": {kindUnit, 8}, "nine": {kindUnit, 9}, "ten": {kindUnit, 10}, "eleven": {kindUnit, 11},
	"twelve": {kindUnit, 12}, "thirteen": {kindUnit, 13}, "fourteen": {kindUnit, 14}, "fifteen": {kindUnit, 15},
	"sixteen": {kindUnit, 16}, "seventeen": {kindUnit, 17}, "eighteen": {kindUnit, 18}, "nineteen": {kindUnit, 19},
	"twenty": {kindUnit, 20}, "thirty": {kindUnit, 30}, "forty": {kindUnit, 40}, "fifty": {kindUnit, 50},
	"sixty": {kindUnit, 60}, "seventy": {kindUnit, 70}, "eighty": {kindUnit, 80}, "ninety": {kindUnit, 90},
	"hundred": {kindHundred, 100}, "thousand": {kindScale, 1000}, "lakh": {kindScale, 100000},
	"lakhs": {kindScale, 100000}, "million": {kindScale, 1000000}, "crore": {kindScale, 10000000},
	"crores": {kindScale, 10000000},
}

var englishOrdinals = map[string]int64{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
	"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
	"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
	"eightieth": 80, "ninetieth": 90, "hundredth": 100, "thousandth": 1000,
}

var hindiNumbers = map[string]numWord{
	"शून्य": {kindUnit, 0}, "एक": {kindUnit, 1}, "दो": {kindUnit, 2}, "तीन": {kindUnit, 3}, "चार": {kindUnit, 4},
	"पांच": {kindUnit, 5}, "पाँच": {kindUnit, 5}, "छह": {kindUnit, 6}, "छः": {kindUnit, 6}, "सात": {kindUnit, 7},
	"आठ": {kindUnit, 8}, "नौ": {kindUnit, 9}, "दस": {kindUnit, 10}, "ग्यारह": {kindUnit, 11}, "बारह": {kindUnit, 12},
	"तेरह": {kindUnit, 13}, "चौदह": {kindUnit, 14}, "पंद्रह": {kindUnit, 15}, "पन्द्रह": {kindUnit, 15},
	"सोलह": {kindUnit, 16}, "सत्रह": {kindUnit, 17}, "अठारह": {kindUnit, 18}, "उन्नीस": {kindUnit, 19},
	"बीस": {kindUnit, 20}, "इक्कीस": {kindUnit, 21}, "बाईस": {kindUnit, 22}, "तेईस": {kindUnit, 23},
	"चौबीस": {kindUnit, 24}, "पच्चीस": {kindUnit, 25}, "छब्बीस": {kindUnit, 26}, "सत्ताईस": {kindUnit, 27},
	"अट्ठाईस": {kindUnit, 28}, "उनतीस": {kindUnit, 29}, "तीस": {kindUnit, 30}, "चालीस": {kindUnit, 40},
	"पचास": {kindUnit, 50}, "साठ": {kindUnit, 60}, "सत्तर": {kindUnit, 70}, "अस्सी": {kindUnit, 80},
	"नब्बे": {kindUnit, 90}, "सौ": {kindHundred, 100}, "हज़ार": {kindScale, 1000}, "हजार": {kindScale, 1000},
	"लाख": {kindScale, 100000}, "करोड़": {kindScale, 10000000}, "करोड": {kindScale, 10000000},
}

var englishMonths = map[string]string{
	"january": "January", "february": "February", "march": "March", "april": "April", "may": "May",
	"june": "June", "july": "July", "august": "August", "september": "September", "october": "October",
	"november": "November", "december": "December",
}

var hindiMonths = map[string]string{
	"जनवरी": "जनवरी", "फ़रवरी": "फ़रवरी", "फरवरी": "फ़रवरी", "मार्च": "मार्च", "अप्रैल": "अप्रैल", "मई": "मई",
	"जून": "जून", "जुलाई": "जुलाई", "अगस्त": "अगस्त", "सितंबर": "सितंबर", "सितम्बर": "सितंबर",
	"अक्टूबर": "अक्टूबर", "नवंबर": "नवंबर", "नवम्बर": "नवंबर", "दिसंबर": "दिसंबर", "दिसम्बर": "दिसंबर",
}

// Words around numbers.
var (
	rupeeWords = map[string]bool{"rupees": true, "rupee": true, "रुपये": true, "रुपए": true, "रुपया": true}
	paiseWords = map[string]bool{"paise": true, "paisa": true, "पैसे": true, "पैसा": true}
	orWords    = map[string]bool{"or": true, "या": true}
	andWords   = map[string]bool{"and": true, "और": true}
	// dayParts maps a time-of-day phrase's last word to the hours it adds
	// to a 12-hour clock reading.
	dayParts = map[string]string{"morning": "am", "afternoon": "pm", "evening": "pm", "night": "night",
		"सुबह": "am", "दोपहर": "pm", "शाम": "pm", "रात": "night"}
	repeatWords = map[string]int{"double": 2, "triple": 3}
)

var devanagariDigits = []rune("०१२३४५६७८९")

// mixedNumbers and mixedMonths serve code-mixed Hindi-English text.
var mixedNumbers, mixedMonths = merge(englishNumbers, hindiNumbers), merge(englishMonths, hindiMonths)

func merge[V any](a, b map[string]V) map[string]V {
	out := make(map[string]V, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
