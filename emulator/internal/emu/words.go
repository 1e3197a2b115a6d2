package emu

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// vocabulary holds everyday words per language, in its script: the words
// of placeholder transcripts, of replaced runs (a speech fault) and of
// misheard words (recognition noise).
var vocabulary = map[string][]string{
	"en": {"thank", "you", "for", "calling", "the", "support", "team", "please", "hold", "your", "account",
		"is", "ready", "we", "will", "call", "back", "today", "order", "payment", "received", "hello", "yes", "okay"},
	"hi": {"नमस्ते", "आपका", "धन्यवाद", "कृपया", "खाता", "भुगतान", "आज", "हम", "आप", "है", "और", "सेवा", "जानकारी", "समय"},
	"bn": {"নমস্কার", "ধন্যবাদ", "আপনার", "অ্যাকাউন্ট", "আজ", "আমরা", "পরিষেবা", "সময়"},
	"ta": {"வணக்கம்", "நன்றி", "உங்கள்", "கணக்கு", "இன்று", "நாங்கள்", "சேவை", "நேரம்"},
	"te": {"నమస్కారం", "ధన్యవాదాలు", "మీ", "ఖాతా", "ఈరోజు", "మేము", "సేవ", "సమయం"},
	"kn": {"ನಮಸ್ಕಾರ", "ಧನ್ಯವಾದ", "ನಿಮ್ಮ", "ಖಾತೆ", "ಇಂದು", "ನಾವು", "ಸೇವೆ", "ಸಮಯ"},
	"ml": {"നമസ്കാരം", "നന്ദി", "നിങ്ങളുടെ", "അക്കൗണ്ട്", "ഇന്ന്", "ഞങ്ങൾ", "സേവനം", "സമയം"},
	"mr": {"नमस्कार", "धन्यवाद", "तुमचे", "खाते", "आज", "आम्ही", "सेवा", "वेळ"},
	"gu": {"નમસ્તે", "આભાર", "તમારું", "ખાતું", "આજે", "અમે", "સેવા", "સમય"},
	"pa": {"ਧੰਨਵਾਦ", "ਤੁਹਾਡਾ", "ਖਾਤਾ", "ਅੱਜ", "ਅਸੀਂ", "ਸੇਵਾ", "ਸਮਾਂ", "ਜੀ"},
}

// WordsFor returns the vocabulary of a language code ("hi-IN", "ta"),
// English for a code it does not know.
func WordsFor(lang string) []string {
	base, _, _ := strings.Cut(lang, "-")
	if w, ok := vocabulary[strings.ToLower(base)]; ok {
		return w
	}
	return vocabulary["en"]
}

// scriptWords names the vocabulary of each script a word may be in
// (Devanagari: Hindi's).
var scriptWords = []struct {
	table *unicode.RangeTable
	lang  string
}{
	{unicode.Devanagari, "hi"}, {unicode.Bengali, "bn"}, {unicode.Tamil, "ta"}, {unicode.Telugu, "te"},
	{unicode.Kannada, "kn"}, {unicode.Malayalam, "ml"}, {unicode.Gujarati, "gu"}, {unicode.Gurmukhi, "pa"},
}

// wordsLike returns the vocabulary of the script of r.
func wordsLike(r rune) []string {
	for _, s := range scriptWords {
		if unicode.Is(s.table, r) {
			return vocabulary[s.lang]
		}
	}
	return vocabulary["en"]
}

// Substitute returns word with its letters replaced by another word of
// its script, drawn from rng: the punctuation around it stays, a capital
// stays a capital. A word of punctuation alone comes back unchanged.
func Substitute(word string, rng *rand.Rand) string {
	isPunct := func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }
	core := strings.TrimFunc(word, isPunct)
	if core == "" {
		return word
	}
	lead := word[:strings.Index(word, core)]
	trail := word[len(lead)+len(core):]
	first, _ := utf8.DecodeRuneInString(core)
	vocab := wordsLike(first)
	i := rng.IntN(len(vocab))
	if strings.EqualFold(vocab[i], core) {
		i = (i + 1) % len(vocab)
	}
	out := vocab[i]
	if unicode.IsUpper(first) {
		r, size := utf8.DecodeRuneInString(out)
		out = string(unicode.ToUpper(r)) + out[size:]
	}
	return lead + out + trail
}
