package listen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scriptCases: for each of the ten languages a sentence, a digit variant
// in the language's own digits, and punctuation variants. Every text of
// a case must normalize to want.
var scriptCases = []struct {
	lang  string
	texts []string
	want  []string
}{
	{"hi-IN", []string{"नमस्ते, आपका खाता तैयार है।", "नमस्ते आपका खाता तैयार है॥", "“नमस्ते!” — आपका खाता… तैयार है?", "॰नमस्ते॰ (आपका) खाता; तैयार है"},
		[]string{"नमस्ते", "आपका", "खाता", "तैयार", "है"}},
	{"hi-IN", []string{"आपके खाते में २५ रुपये हैं।", "आपके खाते में 25 रुपए हैं", "आपके खाते में पच्चीस रुपये हैं॥", "आपके खाते में ₹25 हैं।"},
		[]string{"आपके", "खाते", "में", "25", "₹", "हैं"}},
	{"en-IN", []string{"Hello, World! It's 25 past.", "hello world its twenty-five past", "HELLO WORLD IT’S TWENTY FIVE PAST"},
		[]string{"hello", "world", "its", "25", "past"}},
	{"mr-IN", []string{"नमस्कार! तुमचे खाते १२ वाजता तयार आहे॥", "नमस्कार, तुमचे खाते 12 वाजता तयार आहे।"},
		[]string{"नमस्कार", "तुमचे", "खाते", "12", "वाजता", "तयार", "आहे"}},
	{"bn-IN", []string{"নমস্কার, আপনার অ্যাকাউন্ট ৩৪ দিনে প্রস্তুত।", "নমস্কার আপনার অ্যাকাউন্ট 34 দিনে প্রস্তুত"},
		[]string{"নমস্কার", "আপনার", "অ্যাকাউন্ট", "34", "দিনে", "প্রস্তুত"}},
	{"pa-IN", []string{"ਸਤ ਸ੍ਰੀ ਅਕਾਲ! ਤੁਹਾਡਾ ਖਾਤਾ ੧੨ ਵਜੇ ਤਿਆਰ ਹੈ।", "ਸਤ ਸ੍ਰੀ ਅਕਾਲ, ਤੁਹਾਡਾ ਖਾਤਾ 12 ਵਜੇ ਤਿਆਰ ਹੈ"},
		[]string{"ਸਤ", "ਸ੍ਰੀ", "ਅਕਾਲ", "ਤੁਹਾਡਾ", "ਖਾਤਾ", "12", "ਵਜੇ", "ਤਿਆਰ", "ਹੈ"}},
	{"gu-IN", []string{"નમસ્તે, તમારું ખાતું ૧૨ વાગ્યે તૈયાર છે.", "નમસ્તે! તમારું ખાતું 12 વાગ્યે તૈયાર છે।"},
		[]string{"નમસ્તે", "તમારું", "ખાતું", "12", "વાગ્યે", "તૈયાર", "છે"}},
	{"ta-IN", []string{"வணக்கம்! உங்கள் கணக்கு ௧௨ மணிக்கு தயார்.", "வணக்கம், உங்கள் கணக்கு 12 மணிக்கு தயார்"},
		[]string{"வணக்கம்", "உங்கள்", "கணக்கு", "12", "மணிக்கு", "தயார்"}},
	{"te-IN", []string{"నమస్కారం, మీ ఖాతా ౧౨ గంటలకు సిద్ధంగా ఉంది.", "నమస్కారం! మీ ఖాతా 12 గంటలకు సిద్ధంగా ఉంది"},
		[]string{"నమస్కారం", "మీ", "ఖాతా", "12", "గంటలకు", "సిద్ధంగా", "ఉంది"}},
	{"kn-IN", []string{"ನಮಸ್ಕಾರ! ನಿಮ್ಮ ಖಾತೆ ೧೨ ಗಂಟೆಗೆ ಸಿದ್ಧವಾಗಿದೆ.", "ನಮಸ್ಕಾರ, ನಿಮ್ಮ ಖಾತೆ 12 ಗಂಟೆಗೆ ಸಿದ್ಧವಾಗಿದೆ"},
		[]string{"ನಮಸ್ಕಾರ", "ನಿಮ್ಮ", "ಖಾತೆ", "12", "ಗಂಟೆಗೆ", "ಸಿದ್ಧವಾಗಿದೆ"}},
	{"ml-IN", []string{"നമസ്കാരം, നിങ്ങളുടെ അക്കൗണ്ട് ൧൨ മണിക്ക് തയ്യാറാണ്.", "നമസ്കാരം! നിങ്ങളുടെ അക്കൗണ്ട് 12 മണിക്ക് തയ്യാറാണ്"},
		[]string{"നമസ്കാരം", "നിങ്ങളുടെ", "അക്കൗണ്ട്", "12", "മണിക്ക്", "തയ്യാറാണ്"}},
	{"or (Odia digits)", []string{"୧୨", "12"}, []string{"12"}},
}

func TestNormalizePerScript(t *testing.T) {
	for _, c := range scriptCases {
		for _, text := range c.texts {
			t.Run(c.lang, func(t *testing.T) {
				if diff := cmp.Diff(c.want, Normalize(text).Strings()); diff != "" {
					t.Errorf("Normalize(%q) (-want +got):\n%s", text, diff)
				}
			})
		}
	}
}

// TestNormalizeInvisibleAndNFC: zero-width joiners and non-joiners, and
// decomposed against precomposed forms, make no difference.
func TestNormalizeInvisibleAndNFC(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"क्\u200dष", "क्ष"},                 // ZWJ inside a conjunct
		{"क्\u200cष", "क्ष"},                 // ZWNJ
		{"ಕನ್ನಡ\u200b", "ಕನ್ನಡ"},             // zero-width space
		{"\u0958", "\u0915\u093c"},           // क़ precomposed and decomposed
		{"\u09dc", "\u09a1\u09bc"},           // Bengali ড় precomposed and decomposed
		{"co\u00adoperate", "cooperate"},     // soft hyphen
		{"e\u0301te\u0301", "\u00e9t\u00e9"}, // Latin combining accent
		{"STRASSE", "straße"},                // Latin case folding
		{"\ufeffनमस्ते", "नमस्ते"},           // byte order mark
	} {
		if a, b := Normalize(c.a).Strings(), Normalize(c.b).Strings(); !cmp.Equal(a, b) {
			t.Errorf("Normalize(%q) = %q, Normalize(%q) = %q: want equal", c.a, a, c.b, b)
		}
	}
}

// itnEqual: each group is one thing written as the ITN writes it and as
// words; all must normalize alike.
var itnEqual = [][]string{
	{"25", "twenty five", "twenty-five", "पच्चीस", "२५"},
	{"105", "one hundred and five", "one hundred five", "एक सौ पाँच", "एक सौ पांच"},
	{"1,00,000", "100000", "one lakh", "एक लाख", "१,००,०००"},
	{"2,50,000", "two lakh fifty thousand", "दो लाख पचास हज़ार", "दो लाख पचास हजार"},
	{"3,00,00,000", "three crore", "तीन करोड़"},
	{"25,30,000", "25 लाख 30 हज़ार", "पच्चीस लाख तीस हज़ार", "twenty five lakh thirty thousand", "25 lakh 30 thousand"},
	{"1500", "fifteen hundred", "one thousand five hundred", "पंद्रह सौ", "1,500"},
	{"2024", "two thousand twenty four", "twenty twenty four", "दो हज़ार चौबीस", "two thousand and twenty four"},
	{"1990", "nineteen ninety", "nineteen hundred ninety", "उन्नीस सौ नब्बे"},
	{"9876543210", "nine eight seven six five four three two one zero", "98765 43210", "98765-43210"},
	{"110055", "one one zero zero five five", "double one double zero double five", "1 1 0 0 5 5"},
	{"21st", "twenty first", "21th", "21ST"},
	{"3rd", "third"},
	{"₹1,500.50", "fifteen hundred rupees and fifty paise", "Rs. 1500.50", "पंद्रह सौ रुपये पचास पैसे", "₹ 1500.5", "1500.50 rupees"},
	{"₹12", "twelve rupees", "Rs 12", "12.00 रुपये", "बारह रुपए"},
	{"19:00", "seven in the evening", "seven o'clock in the evening", "शाम सात बजे", "शाम को 7 बजे", "7:00 in the evening"},
	{"07:30", "seven thirty in the morning", "सुबह 7:30", "7:30 in the morning"},
	{"22:00", "ten at night", "रात दस बजे"},
	{"00:00", "twelve at night"},
	{"14:00", "two in the afternoon", "दोपहर दो बजे"},
	{"15th August 2024", "fifteenth of August twenty twenty four", "fifteenth August two thousand twenty four"},
	{"15 अगस्त 2024", "पंद्रह अगस्त दो हज़ार चौबीस"},
}

func TestNormalizeITNForms(t *testing.T) {
	for _, group := range itnEqual {
		want := Normalize(group[0]).Strings()
		for _, s := range group[1:] {
			if got := Normalize(s).Strings(); !cmp.Equal(got, want) {
				t.Errorf("Normalize(%q) = %q, want %q as Normalize(%q)", s, got, want, group[0])
			}
		}
	}
}

// itnDifferent: pairs that must stay apart, some because they say
// different things, some because the rule is documented as absent.
var itnDifferent = [][2]string{
	{"25", "26"},
	{"0 lakh", "one lakh"},
	{"twenty five", "twenty six"},
	{"पच्चीस", "छब्बीस"},
	{"₹25", "25"},                     // the currency is a word
	{"19:00", "07:00"},                // evening is not morning
	{"seven in the evening", "seven"}, // a time needs its daypart
	{"50%", "50 percent"},             // percent: no documented ITN rule
	{"12.5", "twelve point five"},     // decimals other than paise
	{"ice cream", "icecream"},         // words split or joined
	{"हज़ार", "हज़ारों"},              // a plural is another word
	{"namaste", "नमस्ते"},             // no transliteration
}

func TestNormalizeKeepsDifferences(t *testing.T) {
	for _, p := range itnDifferent {
		if a, b := Normalize(p[0]).Strings(), Normalize(p[1]).Strings(); cmp.Equal(a, b) {
			t.Errorf("Normalize(%q) and Normalize(%q) are both %q, want them apart", p[0], p[1], a)
		}
	}
}

// TestNormalizeOffsets: every word points at the stretch of the text it
// was made from.
func TestNormalizeOffsets(t *testing.T) {
	n := Normalize("Pay ₹1,500 by seven in the evening, please.")
	want := []string{"Pay", "₹1,500", "₹1,500", "by", "seven in the evening", "please"}
	var got []string
	for _, w := range n.Words {
		got = append(got, n.Text[w.Start:w.End])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("source of each word (-want +got):\n%s\nwords %q", diff, n.Strings())
	}
	if strings.Join(n.Strings(), " ") != "pay 1500 ₹ by 19:00 please" {
		t.Errorf("words %q", n.Strings())
	}
}
