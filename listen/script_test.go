package listen

import "testing"

func TestScript(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"नमस्ते, आपका खाता तैयार है।", "Devanagari"},
		{"Your order of ₹500 is ready", "Latin"},
		{"আপনার অ্যাকাউন্ট প্রস্তুত", "Bengali"},
		{"உங்கள் கணக்கு தயார்", "Tamil"},
		{"మీ ఖాతా సిద్ధంగా ఉంది", "Telugu"},
		{"ನಿಮ್ಮ ಖಾತೆ ಸಿದ್ಧವಾಗಿದೆ", "Kannada"},
		{"നിങ്ങളുടെ അക്കൗണ്ട് തയ്യാറാണ്", "Malayalam"},
		{"તમારું ખાતું તૈયાર છે", "Gujarati"},
		{"ਤੁਹਾਡਾ ਖਾਤਾ ਤਿਆਰ ਹੈ", "Gurmukhi"},
		{"ଆପଣଙ୍କ ଖାତା ପ୍ରସ୍ତୁତ", "Oriya"},
		{"आपका order ready है, please check करें", "Latin"},      // code-mixed, more Latin letters
		{"आपका ऑर्डर तैयार है, please check करें", "Devanagari"}, // code-mixed, more Devanagari
		{"123 ४५६ !?", ""},
		{"", ""},
	} {
		if got := Script(c.text); got != c.want {
			t.Errorf("Script(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestScriptShare: the share is of the letters in the ten scripts; digits,
// marks and punctuation do not count, nor letters of other scripts.
func TestScriptShare(t *testing.T) {
	for _, c := range []struct {
		text, want string
		share      float64
	}{
		{"नमस्ते", "Devanagari", 1},
		{"abcd नमस", "Latin", 4.0 / 7},
		{"ab नम", "Devanagari", 0.5}, // a tie goes to Devanagari, as Script's
		{"abc Ωψ 123", "Latin", 1},
		{"123", "", 0},
	} {
		name, share := ScriptShare(c.text)
		if name != c.want || share != c.share {
			t.Errorf("ScriptShare(%q) = %q, %v; want %q, %v", c.text, name, share, c.want, c.share)
		}
	}
}
