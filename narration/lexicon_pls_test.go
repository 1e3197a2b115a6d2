package narration_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/narration"
)

// plsHead is the opening of a PLS lexicon as the specification's examples
// (and Amazon Polly's and Azure's documentation, which quote them) write
// it.
const plsHead = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0"
      xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
      xsi:schemaLocation="http://www.w3.org/2005/01/pronunciation-lexicon
        http://www.w3.org/TR/2007/CR-pronunciation-lexicon-20071212/pls.xsd"
      alphabet="ipa" xml:lang="en-US">
`

// TestPLSImport: the specification's examples. Each grapheme of a lexeme
// with an alias is an entry for the lexicon's xml:lang, at its grapheme,
// spoken as the preferred alias; a lexeme with only phonemes is a warning
// at its line naming its alphabet; metadata and examples are skipped.
func TestPLSImport(t *testing.T) {
	src := plsHead + `  <meta name="author" content="voxform"/>
  <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description/></rdf:RDF></metadata>
  <lexeme>
    <grapheme>W3C</grapheme>
    <alias>World Wide Web Consortium</alias>
  </lexeme>
  <lexeme>
    <grapheme>BTW</grapheme>
    <alias>By the way</alias>
  </lexeme>
  <lexeme>
    <grapheme> Benigni </grapheme>
    <phoneme> bɛˈniːnji</phoneme>
  </lexeme>
  <lexeme>
    <grapheme>judgment</grapheme>
    <grapheme>judgement</grapheme>
    <phoneme alphabet="x-sampa">"dZVdZ.m@nt</phoneme>
  </lexeme>
  <lexeme role="claws:VVI">
    <grapheme>read</grapheme><grapheme>rd.</grapheme>
    <phoneme>riːd</phoneme>
    <alias>reed</alias>
    <alias prefer="true">read it</alias>
    <example>Please read it.</example>
  </lexeme>
  <lexeme><grapheme>AT&amp;T</grapheme><alias><![CDATA[A T & T]]></alias></lexeme>
</lexicon>
`
	l := mustParse(t, "l.pls", src)
	at := func(line, col int) narration.Pos { return narration.Pos{File: "l.pls", Line: line, Col: col} }
	want := []narration.Entry{
		{Term: "W3C", Spoken: "World Wide Web Consortium", Language: "en-US", Pos: at(11, 5)},
		{Term: "BTW", Spoken: "By the way", Language: "en-US", Pos: at(15, 5)},
		{Term: "read", Spoken: "read it", Language: "en-US", Pos: at(28, 5)},
		{Term: "rd.", Spoken: "read it", Language: "en-US", Pos: at(28, 30)},
		{Term: "AT&T", Spoken: "A T & T", Language: "en-US", Pos: at(34, 11)},
	}
	var got []narration.Entry
	for _, e := range l.Entries() {
		got = append(got, *e)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	var warns []string
	for _, w := range l.Warnings() {
		warns = append(warns, w.Error())
	}
	wantWarns := []string{
		`l.pls:18:3: lexeme "Benigni" has only a <phoneme> (ipa), and the service takes no phonemes: it is not applied`,
		`l.pls:22:3: lexeme "judgment" has only a <phoneme> (x-sampa), and the service takes no phonemes: it is not applied`,
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if lang, p := l.Language(); lang != "en-US" || p != at(7, 22) {
		t.Errorf("Language() = %q at %v, want en-US at l.pls:7:22", lang, p)
	}
	if got, _ := l.Apply("BTW, read the W3C note", "en-US"); got != "By the way, read it the World Wide Web Consortium note" {
		t.Errorf("Apply = %q", got)
	}
	if got, _ := l.Apply("BTW", "hi-IN"); got != "BTW" {
		t.Errorf("an en-US lexicon applied to hi-IN text: %q", got)
	}
	x := mustParse(t, "l.xml", src)
	if x.Len() != l.Len() {
		t.Errorf(".xml read %d entries, .pls %d", x.Len(), l.Len())
	}
	if lang, _ := mustParse(t, "l.csv", "term,spoken\na,b\n").Language(); lang != "" {
		t.Errorf("a CSV lexicon declares language %q", lang)
	}
}

// TestPLSErrors: every problem of a PLS file is reported at its line and
// column, each bound named; XML hazards (a DTD, entities, deep nesting,
// another encoding) are refused.
func TestPLSErrors(t *testing.T) {
	lexicon := func(attrs, body string) string {
		return "<?xml version=\"1.0\"?>\n<lexicon " + attrs + ">\n" + body + "</lexicon>\n"
	}
	const ns = `xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"`
	ok := `version="1.0" ` + ns + ` alphabet="ipa" xml:lang="hi-IN"`
	deep := strings.Repeat("<x>", 40) + strings.Repeat("</x>", 40)
	oversize := lexicon(ok, "<!--"+strings.Repeat("x", narration.MaxLexiconBytes)+"-->")
	tests := []struct{ name, src, want string }{
		{"malformed", lexicon(ok, "  <lexeme><grapheme>a</alias></lexeme>\n"),
			"l.pls:3:30: invalid XML: element <grapheme> closed by </alias>"},
		{"unclosed", "<lexicon " + ok + ">\n  <lexeme>", "l.pls:2:11: invalid XML: unexpected EOF"},
		{"wrong namespace", lexicon(`version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="hi-IN"`, ""),
			`l.pls:2:1: <lexicon> is in the namespace "http://www.w3.org/2001/10/synthesis", not in the PLS 1.0 namespace http://www.w3.org/2005/01/pronunciation-lexicon`},
		{"no namespace", lexicon(`version="1.0" xml:lang="hi-IN"`, ""),
			"l.pls:2:1: <lexicon> is in no namespace, not in the PLS 1.0 namespace http://www.w3.org/2005/01/pronunciation-lexicon"},
		{"wrong version", lexicon(ns+` alphabet="ipa"  version="1.1" xml:lang="hi-IN"`, ""),
			`l.pls:2:82: version "1.1": voxform reads PLS 1.0 lexicons (version="1.0")`},
		{"no version", lexicon(ns+` xml:lang="hi-IN"`, ""), `l.pls:2:1: <lexicon> has no version: a PLS 1.0 lexicon says version="1.0"`},
		{"no xml:lang", lexicon(`version="1.0" `+ns, "<lexeme><grapheme>a</grapheme><alias>b</alias></lexeme>\n"),
			`l.pls:2:1: <lexicon> has no xml:lang: a PLS lexicon names the language of its entries (xml:lang="hi-IN")`},
		{"bad xml:lang", lexicon(`version="1.0" `+ns+"\n  xml:lang=\"Hindi language\"", ""),
			`l.pls:3:3: xml:lang "Hindi language" is not a BCP-47 tag like hi-IN or en-IN`},
		{"not a lexicon", "<speak " + ns + "/>", "l.pls:1:1: the root element is <speak>, not a PLS <lexicon>"},
		{"empty", "", "l.pls:1:1: no <lexicon> element: a PLS lexicon is one <lexicon> in the namespace http://www.w3.org/2005/01/pronunciation-lexicon"},
		{"doctype", "<?xml version=\"1.0\"?>\n<!DOCTYPE lexicon [<!ENTITY a \"b\">]>\n" + lexicon(ok, ""),
			"l.pls:2:1: <!DOCTYPE> is not allowed: a PLS lexicon is read without a DTD or entity declarations"},
		{"undeclared entity", lexicon(ok, "  <lexeme><grapheme>&lol;</grapheme><alias>b</alias></lexeme>\n"),
			"l.pls:3:26: invalid XML: invalid character entity &lol;"},
		{"another encoding", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" + lexicon(ok, ""),
			`l.pls:1:40: invalid XML: encoding "UTF-16" declared: a lexicon is read as UTF-8`},
		{"deep nesting", lexicon(ok, "  <metadata>"+deep+"</metadata>\n"),
			"l.pls:3:103: elements nest deeper than 32 levels, the limit for a PLS lexicon (MaxPLSDepth)"},
		{"oversize", oversize, fmt.Sprintf("l.pls:3:%d: lexicon is larger than 1048576 bytes (1 MiB), the limit for a lexicon file (MaxLexiconBytes)",
			narration.MaxLexiconBytes-strings.Index(oversize, "<!--")+1)},
		{"a second root", lexicon(ok, "") + "<lexicon/>", "l.pls:4:1: element <lexicon> after </lexicon>: a PLS lexicon has one root element"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plsErrors(t, tt.src); len(got) != 1 || got[0] != tt.want {
				t.Errorf("errors %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("lexemes", func(t *testing.T) {
		got := plsErrors(t, lexicon(ok, `  <lexeme><alias>b</alias></lexeme>
  <lexeme><grapheme>a</grapheme></lexeme>
  <lexeme><grapheme>c<b>x</b></grapheme><alias>d</alias><note/></lexeme>
  stray
  <entry/>
  <lexeme><grapheme>e</grapheme><alias></alias></lexeme>
  <lexeme><grapheme>E</grapheme><alias>f</alias></lexeme>
  <lexeme><grapheme>E</grapheme><alias>g</alias></lexeme>
`))
		want := []string{
			"l.pls:3:3: <lexeme> has no <grapheme>: a lexeme names the text it applies to",
			"l.pls:4:3: <lexeme> has neither an <alias> nor a <phoneme>",
			"l.pls:5:22: <b> in <grapheme>: a grapheme is text only",
			"l.pls:5:57: <note> is not an element of a PLS <lexeme> (grapheme, alias, phoneme, example)",
			"l.pls:6:3: text \"stray\" in <lexicon> outside a <lexeme>",
			"l.pls:7:3: <entry> is not an element of a PLS <lexicon> (meta, metadata, lexeme)",
			"l.pls:8:33: spoken form is empty",
			"l.pls:10:11: term \"E\" is defined twice for hi-IN (first at l.pls:9:11)",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
	})
}

// plsErrors parses src as l.pls and returns its errors.
func plsErrors(t *testing.T, src string) []string {
	t.Helper()
	_, err := narration.ParseLexicon("l.pls", []byte(src))
	var list narration.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v, want an ErrorList", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	return got
}

// exportPLS writes l as PLS for lang.
func exportPLS(t *testing.T, l *narration.Lexicon, lang string) (string, []*narration.Entry) {
	t.Helper()
	lang, err := narration.PLSLanguage(l, lang)
	if err != nil {
		t.Fatalf("PLSLanguage: %v", err)
	}
	var b bytes.Buffer
	inexact, err := narration.WritePLS(&b, l, lang)
	if err != nil {
		t.Fatalf("WritePLS: %v", err)
	}
	return b.String(), inexact
}

// roundTripSources are lexicons whose text needs escaping in XML.
var roundTripSources = map[string]string{
	"l.csv": "term,spoken,language\nAT&T,\"A T & T\",hi-IN\n\"1<2\",\"1 less than 2 > 0\",hi-IN\nब्याज  दर,\"byaaj \"\"dar\"\"\",hi-IN\nit's,\"it\nis\",hi-IN\n",
	"l.yaml": "- {term: ₹, spoken: 'रुपये ''x''', language: hi-IN}\n- {term: \"a]]>b\", spoken: \"&amp; stays &amp;\", language: hi-IN}\n" +
		"- {term: \"tab\\tterm\", spoken: \"cr\\rand tab\\tkept\", language: hi-IN}\n",
}

// TestPLSRoundTrip: a lexicon exported as PLS and read back has the same
// entries (term, spoken form, language), whatever characters they hold.
func TestPLSRoundTrip(t *testing.T) {
	for name, src := range roundTripSources {
		t.Run(name, func(t *testing.T) {
			l := mustParse(t, name, src)
			out, inexact := exportPLS(t, l, "")
			if len(inexact) != 0 {
				t.Errorf("inexact entries %v", inexact)
			}
			back, err := narration.ParseLexicon("back.pls", []byte(out))
			if err != nil {
				t.Fatalf("reading the export back: %v\n%s", err, out)
			}
			type entry struct{ Term, Spoken, Language string }
			var want, got []entry
			for _, e := range l.Entries() {
				want = append(want, entry{e.Term, e.Spoken, e.Language})
			}
			for _, e := range back.Entries() {
				got = append(got, entry{e.Term, e.Spoken, e.Language})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("entries after a round trip (-want +got):\n%s\n%s", diff, out)
			}
			if len(back.Warnings()) != 0 {
				t.Errorf("warnings %v", back.Warnings())
			}
		})
	}
}

// TestPLSExportSchema: what export writes validates against the PLS
// schema (testdata/pls.xsd, with xmllint, which scripts/deps.sh installs),
// and the schema does refuse what PLS forbids, so that the check can fail.
func TestPLSExportSchema(t *testing.T) {
	requireTool(t, "xmllint")
	dir := t.TempDir()
	validate := func(name, doc string) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("xmllint", "--noout", "--nonet", "--schema", filepath.Join("testdata", "pls.xsd"), p).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	for name, src := range roundTripSources {
		out, _ := exportPLS(t, mustParse(t, name, src), "")
		if err := validate(name+".pls", out); err != nil {
			t.Errorf("export of %s does not validate: %v\n%s", name, err, out)
		}
		for _, bad := range []struct{ from, to string }{
			{`version="1.0"
`, `version="1.1"
`},
			{`xml:lang="hi-IN"`, ``},
			{"<alias>", "<phone>"},
		} {
			if err := validate("bad.pls", strings.Replace(out, bad.from, bad.to, 1)); err == nil {
				t.Errorf("the schema takes %s with %q for %q", name, bad.to, bad.from)
			}
		}
	}
	if err := validate("spec.pls", plsHead+"<lexeme><grapheme>W3C</grapheme><alias>World Wide Web Consortium</alias></lexeme></lexicon>"); err != nil {
		t.Errorf("the schema refuses the specification's example: %v", err)
	}
}

// TestPLSLanguage: a PLS lexicon has one xml:lang. Without one given, the
// entries must share theirs; with one, entries for every language take it
// and entries for another are refused. case: exact, which PLS cannot hold,
// is returned; terms that would merge are refused.
func TestPLSLanguage(t *testing.T) {
	mixed := mustParse(t, "m.csv", "term,spoken,language\na,b,hi-IN\nc,d,\ne,f,en-IN\n")
	for _, tt := range []struct{ lang, want string }{
		{"", `m.csv:3:1: entry "c" is for every language, and a PLS lexicon names one (xml:lang): give the language to write it for (and 1 more errors)`},
		{"hi-IN", `m.csv:4:1: entry "e" is for en-IN, and the PLS lexicon is for hi-IN: a PLS lexicon has one language (xml:lang)`},
		{"hindi", `language "hindi" is not a BCP-47 tag like hi-IN or en-IN`},
	} {
		if _, err := narration.PLSLanguage(mixed, tt.lang); err == nil || err.Error() != tt.want {
			t.Errorf("PLSLanguage(%q) = %v\nwant %s", tt.lang, err, tt.want)
		}
	}
	two := mustParse(t, "t.csv", "term,spoken,language\na,b,hi-IN\ne,f,en-IN\n")
	if _, err := narration.PLSLanguage(two, ""); err == nil || !strings.Contains(err.Error(), `t.csv:3:1: entry "e" is for en-IN, and the one at t.csv:2:1 for hi-IN`) {
		t.Errorf("two languages: %v", err)
	}
	if _, err := narration.PLSLanguage(mustParse(t, "e.csv", ""), ""); err == nil {
		t.Error("an empty lexicon has a language")
	}
	every := mustParse(t, "e.csv", "term,spoken,case\nSIP,सिप,exact\nb,c,\n")
	out, inexact := exportPLS(t, every, "hi-IN")
	if len(inexact) != 1 || inexact[0].Term != "SIP" {
		t.Errorf("inexact = %v, want SIP", inexact)
	}
	if back := mustParse(t, "back.pls", out); back.Len() != 2 || back.Entries()[1].Language != "hi-IN" {
		t.Errorf("read back %v", back.Entries())
	}
	merge := mustParse(t, "x.csv", "term,spoken,case,language\nSIP,a,exact,hi\nsip,b,,\n\"a\x01\",c,,\n")
	_, err := narration.WritePLS(&bytes.Buffer{}, merge, "hi")
	want := `x.csv:3:1: entry "sip" is the term of the entry at x.csv:2:1 in a PLS lexicon, which has one language and no case rule (and 1 more errors)`
	if err == nil || err.Error() != want {
		t.Errorf("WritePLS = %v\nwant %s", err, want)
	}
	var list narration.ErrorList
	if errors.As(err, &list) && len(list) == 2 && list[1].Error() != `x.csv:4:1: term of "a\x01" holds U+0001, which XML 1.0 cannot carry` {
		t.Errorf("second error %q", list[1])
	}
}
