package contract

import (
	"slices"
	"time"

	"github.com/voxform/voxform/narration"
)

// ListenRESTMax is the longest audio a listening check sends to REST
// recognition: 59.5 s. speech-recognition.md, "Limits", REST: "audio
// duration: maximum 60 s, ideal 30 s" (the REST API's MaxDuration in the
// catalog); half a second is kept for a service that measures a file a
// little longer than its header says. A longer one goes to a batch job.
const ListenRESTMax = 60*time.Second - 500*time.Millisecond

// scriptLanguages is the recognition language a text is heard in, by the
// script most of its letters are written in (narration.DominantScript).
// Devanagari is heard as Hindi: a Marathi text must say mr-IN.
var scriptLanguages = map[string]string{
	"Devanagari": "hi-IN", "Latin": "en-IN", "Bengali": "bn-IN", "Gurmukhi": "pa-IN",
	"Gujarati": "gu-IN", "Tamil": "ta-IN", "Telugu": "te-IN", "Kannada": "kn-IN", "Malayalam": "ml-IN",
}

// recognition is the documented catalog's recognition APIs, the one list
// of the languages each API hears.
func recognition(api string) *RecognitionAPI { return builtins[ProfileDocumented].Recognition[api] }

// ListenLanguage is the language a listening check of a synthesis in
// synthLang transcribes text in, and how it was chosen (for the plan):
//
//  1. override (listen.language_code) when set;
//  2. a synthesis language that REST recognition hears (hi-IN ... pa-IN)
//     is itself;
//  3. hi-en: hi-IN when most letters of the spoken text are Devanagari,
//     else en-IN (en-IN "accepts English-Hindi mixed audio; output in
//     Latin script", speech-recognition.md, so Devanagari words would
//     never match);
//  4. auto, IND-IN (tts-v2.0), none (vc-v1, the live tts-v2.0) and any
//     other: by the dominant script (scriptLanguages).
//
// The code is "" when the text has no letter of a script recognition
// hears (digits only, or Odia): such a text is not checked, how says why.
func ListenLanguage(synthLang, override, text string) (code, how string) {
	switch {
	case override != "":
		return override, "listen.language_code"
	case slices.Contains(recognition(APIREST).Languages, synthLang):
		return synthLang, "the synthesis language"
	}
	script, _ := narration.DominantScript(text)
	from := synthLang
	if from == "" {
		from = "no language"
	}
	if script == "" {
		return "", from + ", no letters to choose a language by"
	}
	how = from + ", mostly " + script
	if synthLang == "hi-en" {
		if script == "Devanagari" {
			return "hi-IN", how
		}
		return "en-IN", how
	}
	code = scriptLanguages[script]
	if code == "" {
		return "", how + ", which recognition does not hear"
	}
	return code, how
}

// ListenAPI is the recognition API a listening check of seconds of audio
// in language code is sent to: REST up to ListenRESTMax; beyond, a batch
// job when batch jobs hear the language, else the older batch API
// (gu-IN and pa-IN: batch jobs lack them). "" when none hears it.
func ListenAPI(code string, seconds float64) string {
	if seconds <= ListenRESTMax.Seconds() && slices.Contains(recognition(APIREST).Languages, code) {
		return APIREST
	}
	for _, api := range []string{APIBatch, APIBatchLegacy} {
		if slices.Contains(recognition(api).Languages, code) {
			return api
		}
	}
	return ""
}
