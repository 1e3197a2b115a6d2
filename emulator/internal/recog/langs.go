package recog

import (
	"slices"
	"strings"
)

// restLanguages are the REST, realtime and older batch codes
// (speech-recognition.md, "Language codes").
var restLanguages = []string{"bn-IN", "en-IN", "gu-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "pa-IN", "ta-IN", "te-IN"}

// jobLanguages are the batch jobs codes: bn-BD added, gu-IN and pa-IN absent.
var jobLanguages = []string{"bn-IN", "bn-BD", "en-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "ta-IN", "te-IN"}

// jobLanguagesListed is what the UNSUPPORTED_LANGUAGE message lists: the
// batch set without bn-BD, eight codes.
var jobLanguagesListed = []string{"bn-IN", "en-IN", "hi-IN", "kn-IN", "ml-IN", "mr-IN", "ta-IN", "te-IN"}

func restLanguage(code string) bool { return slices.Contains(restLanguages, code) }

// parseJobLanguages splits a batch config language_code ("hi-IN" or up to
// three comma-separated codes). ok is false when a code is unsupported or
// there are more than three.
func parseJobLanguages(s string) (codes []string, ok bool) {
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if !slices.Contains(jobLanguages, c) || slices.Contains(codes, c) {
			return nil, false
		}
		codes = append(codes, c)
	}
	if len(codes) > 3 {
		return nil, false
	}
	return codes, true
}

func unsupportedLanguageMessage(got string) string {
	return "unsupported language_code " + quote(got) + ": give one of " +
		strings.Join(jobLanguagesListed, ", ") + ", or up to 3 of them separated by commas"
}

func quote(s string) string { return "'" + s + "'" }

// identify picks one language per file among codes (language
// identification): the language the audio was synthesized in when it is
// known and listed, otherwise the first code, the documented fallback.
func identify(codes []string, spoken string) string {
	if len(codes) == 1 {
		return codes[0]
	}
	for _, c := range codes {
		if strings.EqualFold(c, spoken) || (spoken != "" && strings.HasPrefix(strings.ToLower(c), strings.ToLower(spoken)+"-")) {
			return c
		}
	}
	if strings.EqualFold(spoken, "hi-en") && slices.Contains(codes, "en-IN") {
		return "en-IN"
	}
	return codes[0]
}
