package contract_test

import (
	"slices"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
)

// TestListenLanguage: the language a check hears a synthesis in, from its
// language, the listen.language_code override and the text's script.
func TestListenLanguage(t *testing.T) {
	const (
		hindi   = "नमस्ते, आपका खाता तैयार है।"
		english = "Your account is ready."
		mixedHi = "आपका ऑर्डर तैयार है, please check करें" // mostly Devanagari
		mixedEn = "आपका order ready है, please check करें" // mostly Latin
		tamil   = "உங்கள் கணக்கு தயார்"
	)
	for _, c := range []struct {
		lang, override, text string
		code, how            string
	}{
		{"hi-IN", "", english, "hi-IN", "the synthesis language"},
		{"ta-IN", "", english, "ta-IN", "the synthesis language"},
		{"gu-IN", "", english, "gu-IN", "the synthesis language"},
		{"mr-IN", "", hindi, "mr-IN", "the synthesis language"},
		{"auto", "", hindi, "hi-IN", "auto, mostly Devanagari"},
		{"auto", "", tamil, "ta-IN", "auto, mostly Tamil"},
		{"auto", "", "<laugh> ਤੁਹਾਡਾ ਖਾਤਾ", "pa-IN", "auto, mostly Gurmukhi"},
		{"hi-en", "", mixedHi, "hi-IN", "hi-en, mostly Devanagari"},
		{"hi-en", "", mixedEn, "en-IN", "hi-en, mostly Latin"},
		{"hi-en", "", tamil, "en-IN", "hi-en, mostly Tamil"},
		{"IND-IN", "", hindi, "hi-IN", "IND-IN, mostly Devanagari"},
		{"IND-IN", "", english, "en-IN", "IND-IN, mostly Latin"},
		{"", "", english, "en-IN", "no language, mostly Latin"}, // vc-v1, live tts-v2.0
		{"", "", "તમારું ખાતું", "gu-IN", "no language, mostly Gujarati"},
		{"hi-IN", "mr-IN", hindi, "mr-IN", "listen.language_code"},
		{"hi-en", "hi-IN", mixedEn, "hi-IN", "listen.language_code"},
		{"auto", "", "123 456", "", "auto, no letters to choose a language by"},
		{"auto", "", "ଆପଣଙ୍କ ଖାତା", "", "auto, mostly Oriya, which recognition does not hear"},
	} {
		code, how := contract.ListenLanguage(c.lang, c.override, c.text)
		if code != c.code || how != c.how {
			t.Errorf("ListenLanguage(%q, %q, %q) = %q, %q; want %q, %q", c.lang, c.override, c.text, code, how, c.code, c.how)
		}
	}
}

// TestListenLanguageCodesAreHeard: every code chosen from a script is one
// REST recognition hears, in the catalog's own list.
func TestListenLanguageCodesAreHeard(t *testing.T) {
	rest := contract.Builtin().Recognition[contract.APIREST].Languages
	for _, text := range []string{"नमस्ते", "hello", "আপনার", "ਤੁਹਾਡਾ", "તમારું", "உங்கள்", "మీ", "ನಿಮ್ಮ", "നിങ്ങളുടെ"} {
		code, how := contract.ListenLanguage("auto", "", text)
		if !slices.Contains(rest, code) {
			t.Errorf("ListenLanguage(auto, %q) = %q (%s): not a REST language %v", text, code, how, rest)
		}
	}
}

// TestListenAPI: REST up to the documented limit less half a second,
// batch jobs beyond, the older batch API for the languages batch jobs lack.
func TestListenAPI(t *testing.T) {
	rest := contract.Builtin().Recognition[contract.APIREST]
	if want := rest.MaxDuration - 500*time.Millisecond; contract.ListenRESTMax != want {
		t.Fatalf("ListenRESTMax = %v; want the REST limit %v less 0.5 s", contract.ListenRESTMax, want)
	}
	for _, c := range []struct {
		code    string
		seconds float64
		want    string
	}{
		{"hi-IN", 3, contract.APIREST},
		{"hi-IN", 59.5, contract.APIREST},
		{"hi-IN", 59.6, contract.APIBatch},
		{"en-IN", 600, contract.APIBatch},
		{"ta-IN", 61, contract.APIBatch},
		{"gu-IN", 30, contract.APIREST},
		{"gu-IN", 60, contract.APIBatchLegacy},
		{"pa-IN", 120, contract.APIBatchLegacy},
		{"bn-BD", 10, contract.APIBatch}, // batch jobs hear it, REST does not
		{"fr-FR", 10, ""},
	} {
		if got := contract.ListenAPI(c.code, c.seconds); got != c.want {
			t.Errorf("ListenAPI(%q, %v) = %q, want %q", c.code, c.seconds, got, c.want)
		}
	}
}
