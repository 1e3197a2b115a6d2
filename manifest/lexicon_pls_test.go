package manifest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// plsLexicon is a PLS 1.0 lexicon for lang: one alias lexeme and one that
// has only a phoneme.
func plsLexicon(lang string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
    alphabet="ipa" xml:lang="` + lang + `">
  <lexeme><grapheme>W3C</grapheme><alias>World Wide Web Consortium</alias></lexeme>
  <lexeme><grapheme>Benigni</grapheme><phoneme>bɛˈniːnji</phoneme></lexeme>
</lexicon>
`
}

// TestLexiconPLS: a PLS lexicon applies as its alias entries; its
// xml:lang must apply to the synthesis's language (as an entry's language
// does: en for en-IN, not en-US), else the lexicon field is an error; a
// phoneme-only lexeme is a warning at its line, once however many
// syntheses use the lexicon.
func TestLexiconPLS(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", `version: 1
voices:
  en: { model: tts-v2.5, voice: Kaveri, language: en-IN }
  hi: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  a: { voice: en, text: "The W3C note", lexicon: en.pls, output: o/a.wav }
  b: { voice: en, text: "The W3C note", lexicon: en.pls, output: o/b.wav }
  c: { voice: hi, text: "The W3C note", lexicon: en-in.xml, output: o/c.wav }
  d: { voice: en, text: "The W3C note", lexicon: en-us.pls, output: o/d.wav }
  e: { voice: en, text: "The W3C note", lexicon: en-in.xml, output: o/e.wav }
`)
	writeFile(t, dir, "en.pls", plsLexicon("en"))
	writeFile(t, dir, "en-in.xml", plsLexicon("en-IN"))
	writeFile(t, dir, "en-us.pls", plsLexicon("en-US"))
	got := loadWithin(t, 10*time.Second, dir, manifest.LoadOptions{})
	hint := "\nhint: a lexicon applies to texts in its xml:lang, or in any region of it when xml:lang names only the language (xml:lang=\"en\" applies to en-IN): use a lexicon for "
	phoneme := `: warning: lexeme "Benigni" has only a <phoneme> (ipa), and the service takes no phonemes: it is not applied` +
		"\nhint: give the lexeme an <alias> that spells how it is said: an alias applies as an entry"
	want := []string{
		"en-in.xml:5:3" + phoneme,
		"en-us.pls:5:3" + phoneme,
		"en.pls:5:3" + phoneme,
		"voxform.yaml:8:50: error: lexicon en-in.xml is for en-IN (xml:lang at en-in.xml:3:20), and synthesis.c is in hi-IN: none of its entries would apply" + hint + "hi-IN",
		"voxform.yaml:9:50: error: lexicon en-us.pls is for en-US (xml:lang at en-us.pls:3:20), and synthesis.d is in en-IN: none of its entries would apply" + hint + "en-IN",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	writeFile(t, dir, "voxform.yaml", `version: 1
voices:
  en: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  a: { voice: en, text: "The W3C note", lexicon: en.pls, output: o/a.wav }
  e: { voice: en, text: "The W3C note", lexicon: en-in.xml, output: o/e.wav }
`)
	m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if ds.HasErrors() {
		t.Fatalf("diagnostics %v", ds)
	}
	for _, s := range m.Syntheses {
		if got, _ := s.Details().Lexicon.Apply(s.Text, s.Language); got != "The World Wide Web Consortium note" {
			t.Errorf("%s: the lexicon makes %q", s.Address, got)
		}
	}
}
