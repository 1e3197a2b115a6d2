package narration

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// PLSLanguage returns the xml:lang a PLS lexicon of l's entries has: lang
// when it is given, else the language all the entries share. A PLS
// lexicon has one language, so without lang every entry must name the
// same one; with lang, an entry for every language is written for lang,
// and one for another language is refused. Problems are an ErrorList at
// the entries' places.
func PLSLanguage(l *Lexicon, lang string) (string, error) {
	if lang != "" && !languageRE.MatchString(lang) {
		return "", fmt.Errorf("language %q is not a BCP-47 tag like hi-IN or en-IN", lang)
	}
	var errs ErrorList
	var first *Entry
	for _, e := range l.Entries() {
		switch {
		case lang != "" && e.Language != "" && !strings.EqualFold(e.Language, lang):
			errs = append(errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf(
				"entry %q is for %s, and the PLS lexicon is for %s: a PLS lexicon has one language (xml:lang)", e.Term, e.Language, lang)})
		case lang != "":
		case e.Language == "":
			errs = append(errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf(
				"entry %q is for every language, and a PLS lexicon names one (xml:lang): give the language to write it for", e.Term)})
		case first == nil:
			first = e
		case !strings.EqualFold(e.Language, first.Language):
			errs = append(errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf(
				"entry %q is for %s, and the one at %s for %s: a PLS lexicon has one language (xml:lang); write each language's entries to a lexicon of its own",
				e.Term, e.Language, first.Pos, first.Language)})
		}
	}
	if len(errs) > 0 {
		return "", errs
	}
	switch {
	case lang != "":
		return lang, nil
	case first == nil:
		return "", fmt.Errorf("the lexicon has no entries, and a PLS lexicon names its language (xml:lang): give the language")
	}
	return first.Language, nil
}

// WritePLS writes l's entries as a W3C PLS 1.0 lexicon for the language
// lang (PLSLanguage chooses it): one <lexeme> an entry, its term the
// <grapheme> and its spoken form the <alias>, in file order. What it
// writes, ParseLexicon reads back as the same entries, except that PLS has
// no case rule: an entry with case: exact is written all the same (it
// then matches in either case) and returned in inexact. Entries that
// would become one term once their case rule and language are gone, or
// that hold a character XML 1.0 cannot carry, are refused (an ErrorList).
func WritePLS(w io.Writer, l *Lexicon, lang string) (inexact []*Entry, err error) {
	var errs ErrorList
	seen := map[string]*Entry{}
	for _, e := range l.Entries() {
		if e.Exact {
			inexact = append(inexact, e)
		}
		key := strings.Map(fold, e.Term)
		if prev := seen[key]; prev != nil {
			errs = append(errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf(
				"entry %q is the term of the entry at %s in a PLS lexicon, which has one language and no case rule", e.Term, prev.Pos)})
		}
		seen[key] = e
		for _, s := range []struct{ what, text string }{{"term", e.Term}, {"spoken form", e.Spoken}} {
			if r, bad := nonXMLChar(s.text); bad {
				errs = append(errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf("%s of %q holds %U, which XML 1.0 cannot carry", s.what, e.Term, r)})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<lexicon version=\"1.0\"\n    xmlns=\"%s\"\n    alphabet=\"ipa\" xml:lang=\"%s\">\n",
		PLSNamespace, escapeXML(lang))
	for _, e := range l.Entries() {
		fmt.Fprintf(bw, "  <lexeme>\n    <grapheme>%s</grapheme>\n    <alias>%s</alias>\n  </lexeme>\n", escapeXML(e.Term), escapeXML(e.Spoken))
	}
	bw.WriteString("</lexicon>\n")
	return inexact, bw.Flush()
}

// escapeXML escapes s for XML text or a quoted attribute value.
func escapeXML(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// nonXMLChar returns the first character of s outside XML 1.0's Char
// production (control characters but tab, line feed and carriage return;
// U+FFFE, U+FFFF), which xml.EscapeText would silently replace.
func nonXMLChar(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return r, true
		}
	}
	return 0, false
}
