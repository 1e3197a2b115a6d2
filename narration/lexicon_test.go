package narration_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/narration"
)

func mustParse(t testing.TB, name, src string) *narration.Lexicon {
	t.Helper()
	l, err := narration.ParseLexicon(name, []byte(src))
	if err != nil {
		t.Fatalf("ParseLexicon(%s): %v", name, err)
	}
	return l
}

// checkApplied: the result is the text with each applied term replaced by
// its spoken form, at the offsets Applied gives, in order.
func checkApplied(t testing.TB, text, got string, applied []narration.Applied) {
	t.Helper()
	var b strings.Builder
	prev := 0
	for _, a := range applied {
		if a.Start < prev || a.End <= a.Start || a.End > len(text) {
			t.Fatalf("applied %+v after %d in a text of %d bytes", a, prev, len(text))
		}
		b.WriteString(text[prev:a.Start])
		if b.Len() != a.Out {
			t.Fatalf("applied %q at %d in the result, want %d", a.Entry.Term, a.Out, b.Len())
		}
		b.WriteString(a.Entry.Spoken)
		prev = a.End
	}
	b.WriteString(text[prev:])
	if b.String() != got {
		t.Fatalf("result %q, want %q from the replacements", got, b.String())
	}
}

// TestLexiconFormats: the three formats give the same entries, each at
// the place of its term (CSV, TSV) or its mapping (YAML), columns in
// characters.
func TestLexiconFormats(t *testing.T) {
	files := map[string]string{
		"l.csv": "\ufeffterm,spoken,language,case,note\n# a comment\nSIP,सिप,hi-IN,exact,\n\"ब्याज दर\",byaaj dar,,,\"rate, of interest\"\n₹,रुपये,hi,,\n",
		"l.tsv": "term\tspoken\tlanguage\tcase\nSIP\tसिप\thi-IN\texact\nब्याज दर\tbyaaj dar\t\t\n₹\tरुपये\thi\t\n",
		"l.yaml": "- {term: SIP, spoken: सिप, language: hi-IN, case: exact}\n- term: ब्याज  दर\n  spoken: byaaj dar\n  note: rate\n" +
			"- term: ₹\n  spoken: रुपये\n  language: hi\n",
	}
	want := map[string][]narration.Entry{
		"l.csv": {
			{Term: "SIP", Spoken: "सिप", Language: "hi-IN", Exact: true, Pos: narration.Pos{File: "l.csv", Line: 3, Col: 1}},
			{Term: "ब्याज दर", Spoken: "byaaj dar", Pos: narration.Pos{File: "l.csv", Line: 4, Col: 1}},
			{Term: "₹", Spoken: "रुपये", Language: "hi", Pos: narration.Pos{File: "l.csv", Line: 5, Col: 1}},
		},
		"l.tsv": {
			{Term: "SIP", Spoken: "सिप", Language: "hi-IN", Exact: true, Pos: narration.Pos{File: "l.tsv", Line: 2, Col: 1}},
			{Term: "ब्याज दर", Spoken: "byaaj dar", Pos: narration.Pos{File: "l.tsv", Line: 3, Col: 1}},
			{Term: "₹", Spoken: "रुपये", Language: "hi", Pos: narration.Pos{File: "l.tsv", Line: 4, Col: 1}},
		},
		"l.yaml": {
			{Term: "SIP", Spoken: "सिप", Language: "hi-IN", Exact: true, Pos: narration.Pos{File: "l.yaml", Line: 1, Col: 3}},
			{Term: "ब्याज दर", Spoken: "byaaj dar", Pos: narration.Pos{File: "l.yaml", Line: 2, Col: 3}},
			{Term: "₹", Spoken: "रुपये", Language: "hi", Pos: narration.Pos{File: "l.yaml", Line: 5, Col: 3}},
		},
	}
	for name, src := range files {
		t.Run(name, func(t *testing.T) {
			l := mustParse(t, name, src)
			var got []narration.Entry
			for _, e := range l.Entries() {
				got = append(got, *e)
			}
			if diff := cmp.Diff(want[name], got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadLexicon reads a file by its path.
func TestLoadLexicon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "names.tsv")
	if err := os.WriteFile(path, []byte("term\tspoken\nvoxform\tvox form\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := narration.LoadLexicon(path)
	if err != nil || l.Len() != 1 {
		t.Fatalf("LoadLexicon: %v, %v", l, err)
	}
	if got, _ := l.Apply("try voxform", ""); got != "try vox form" {
		t.Errorf("Apply = %q", got)
	}
	if _, err := narration.LoadLexicon(filepath.Join(t.TempDir(), "none.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadLexicon of a missing file: %v", err)
	}
}

// TestLexiconApply: the documented rules of matching.
func TestLexiconApply(t *testing.T) {
	l := mustParse(t, "l.yaml", `
- {term: SIP, spoken: सिप, case: exact}
- {term: sip, spoken: sip drink}
- {term: राम, spoken: raam}
- {term: क, spoken: ka}
- {term: State Bank, spoken: स्टेट बैंक}
- {term: State Bank of India, spoken: एसबीआई}
- {term: Bank, spoken: बैंक}
- {term: ₹, spoken: "रुपये "}
- {term: "#", spoken: "हैश"}
- {term: UPI, spoken: यू पी आई, language: hi}
- {term: UPI, spoken: यू पी आई (hi-IN), language: hi-IN}
- {term: UPI, spoken: you pee eye}
- {term: ब्याज, spoken: ब्याज दर ब्याज}
- {term: straße, spoken: strasse}
- {term: 24x7, spoken: twenty four by seven}
- {term: KYC, spoken: के वाई सी, language: hi-IN}
`)
	tests := []struct {
		name, text, language, want string
	}{
		{"exact case wins as written", "SIP now", "", "सिप now"},
		{"other cases fold", "a Sip and a sIp", "", "a sip drink and a sip drink"},
		{"whole words only", "SIPs and gossip", "", "SIPs and gossip"},
		{"marks are word characters", "रामायण और राम, कि क", "", "रामायण और raam, कि ka"},
		{"longest first", "State Bank of India and State Bank and Bank", "",
			"एसबीआई and स्टेट बैंक and बैंक"},
		{"a term spans a wrapped line", "State\n  Bank of\tIndia", "", "एसबीआई"},
		{"not a paragraph", "State\n\nBank", "", "State\n\nबैंक"},
		{"a symbol may begin anywhere", "₹50 and x#y", "", "रुपये50 and xहैशy"},
		{"the most specific language", "UPI", "hi-IN", "यू पी आई (hi-IN)"},
		{"a language covers its regions", "UPI", "hi-en", "यू पी आई"},
		{"every language", "UPI", "en-IN", "you pee eye"},
		{"no language given", "UPI KYC", "", "you pee eye KYC"},
		{"language tags fold", "KYC", "HI-in", "के वाई सी"},
		{"no re-application", "ब्याज", "", "ब्याज दर ब्याज"},
		{"tags are never matched", "<SIP>SIP<sip> sip", "", "<SIP>सिप<sip> sip drink"},
		{"no match spans a tag", "State<laugh>Bank", "", "State<laugh>बैंक"},
		{"digits in a term", "open 24x7 now, not 24x70", "", "open twenty four by seven now, not 24x70"},
		{"Unicode folding", "STRASSE Straße STRAẞE", "", "STRASSE strasse strasse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, applied := l.Apply(tt.text, tt.language)
			if got != tt.want {
				t.Errorf("Apply(%q, %q) = %q, want %q", tt.text, tt.language, got, tt.want)
			}
			checkApplied(t, tt.text, got, applied)
		})
	}
}

// TestLexiconApplied: each replacement names its entry and place, for
// validate -explain.
func TestLexiconApplied(t *testing.T) {
	l := mustParse(t, "lex.csv", "term,spoken\nSIP,सिप\nNAV,नेट एसेट वैल्यू\n")
	got, applied := l.Apply("मेरा SIP और NAV।", "hi-IN")
	if got != "मेरा सिप और नेट एसेट वैल्यू।" {
		t.Fatalf("Apply = %q", got)
	}
	var where []string
	for _, a := range applied {
		where = append(where, fmt.Sprintf("%d-%d->%d %s %s", a.Start, a.End, a.Out, a.Entry.Term, a.Entry.Pos))
	}
	want := []string{"13-16->13 SIP lex.csv:2:1", "24-27->30 NAV lex.csv:3:1"}
	if diff := cmp.Diff(want, where); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	for out, orig := range map[int]int{0: 0, 13: 13, 20: 13, 22: 16, 30: 24, 40: 24, len(got): len("मेरा SIP और NAV।")} {
		if o := narration.OriginalOffset(applied, out); o != orig {
			t.Errorf("OriginalOffset(%d) = %d, want %d", out, o, orig)
		}
	}
	if same, none := l.Apply("nothing here", ""); same != "nothing here" || none != nil {
		t.Errorf("Apply without a match = %q, %v", same, none)
	}
}

// TestUncoveredDigits: runs of digits that no replacement covers, where
// they are, trimmed to their digits; none inside tags.
func TestUncoveredDigits(t *testing.T) {
	l := mustParse(t, "l.csv", "term,spoken\n1800,one eight hundred\n24x7,twenty four by seven\n")
	tests := []struct {
		text string
		want []string
	}{
		{"call 1800 123 456 now", []string{"123 456"}},
		{"call 1800 or 2026-10-01, ४२", []string{"2026-10-01", "४२"}},
		{"open 24x7", nil},
		{"<1 2> tags and 7", []string{"7"}},
		{"no digits", nil},
	}
	for _, tt := range tests {
		_, applied := l.Apply(tt.text, "")
		var got []string
		for _, s := range narration.UncoveredDigits(tt.text, applied) {
			got = append(got, tt.text[s.Start:s.End])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("UncoveredDigits(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestLexiconErrors: every problem is reported, each at its place, and a
// limit is named in its message.
func TestLexiconErrors(t *testing.T) {
	many := strings.Builder{}
	many.WriteString("term,spoken\n")
	for i := range narration.MaxLexiconEntries + 5 {
		fmt.Fprintf(&many, "t%d,s\n", i)
	}
	tests := []struct {
		name, file, src string
		want            []string
	}{
		{"rows", "l.csv", "term,spoken,language,case\n,x,,\nok,,,\nok2,y,hindi,\nok3,y,,upper\nSIP,a,,\nsip,b,,\nSIP,c,,exact\n" +
			strings.Repeat("w", 101) + ",x,,\nt,<laugh>,,\n", []string{
			"l.csv:2:1: term is empty",
			"l.csv:3:4: spoken form is empty",
			"l.csv:4:7: language \"hindi\" is not a BCP-47 tag like hi-IN or en-IN",
			"l.csv:5:8: case \"upper\" is not exact or insensitive",
			"l.csv:7:1: term \"sip\" is defined twice for every language (first at l.csv:6:1)",
			"l.csv:9:1: term is 101 characters, over the limit of 100 for a term (MaxTermChars)",
			"l.csv:10:3: spoken form holds the audio tag <laugh>: tags are not replaced, nor put in by a lexicon",
		}},
		{"header", "l.tsv", "term\tsaid\tterm\n", []string{
			"l.tsv:1:1: the header row must name the columns term and spoken (it names term, said, term)",
			"l.tsv:1:6: unknown column \"said\" (columns: term, spoken, language, case, note)",
			"l.tsv:1:11: column \"term\" appears twice",
		}},
		{"columns in characters", "l.csv", "term,spoken,language\nअब,x,हिंदी\n", []string{
			"l.csv:2:6: language \"हिंदी\" is not a BCP-47 tag like hi-IN or en-IN",
		}},
		{"a short row", "l.csv", "term,spoken\na,b\nc\n", []string{"l.csv:3:1: wrong number of fields"}},
		{"YAML shapes", "l.yaml", "- term: a\n  spoken: [b]\n- just text\n- {term: c, spoken: d, lang: e}\n- {spoken: x}\n- &a {term: f, spoken: g}\n- *a\n", []string{
			"l.yaml:2:11: spoken must be a string",
			"l.yaml:3:3: an entry is a mapping with term and spoken",
			"l.yaml:4:24: unknown key \"lang\" (keys: term, spoken, language, case, note)",
			"l.yaml:5:3: entry has no term",
			"l.yaml:7:3: an entry is a mapping with term and spoken",
		}},
		{"YAML syntax", "l.yml", "- term: a\n  spoken: b\n - x\n", []string{"l.yml:2:1: invalid YAML: did not find expected '-' indicator"}},
		{"not a list", "l.yaml", "term: a\n", []string{"l.yaml:1:1: a YAML lexicon is a list of entries (- term: ..., spoken: ...)"}},
		{"invalid UTF-8", "l.csv", "term,spoken\nab,c\xff\n", []string{"l.csv:2:5: lexicon is not valid UTF-8"}},
		{"too many entries", "l.csv", many.String(), []string{
			fmt.Sprintf("l.csv:%d:1: more than 20000 entries, the limit for a lexicon (MaxLexiconEntries)", narration.MaxLexiconEntries+2),
		}},
		{"too large", "l.csv", "term,spoken\n" + strings.Repeat("x", narration.MaxLexiconBytes), []string{
			"l.csv:2:1048565: lexicon is larger than 1048576 bytes (1 MiB), the limit for a lexicon file (MaxLexiconBytes)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := narration.ParseLexicon(tt.file, []byte(tt.src))
			var list narration.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %v, want an ErrorList", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := narration.ParseLexicon("l.json", nil); err == nil || !strings.Contains(err.Error(), "use .csv, .tsv, .yaml, .yml, .pls or .xml") {
		t.Errorf("an unknown format: %v", err)
	}
	for _, empty := range []string{"e.csv", "e.yaml"} {
		if l, err := narration.ParseLexicon(empty, nil); err != nil || l.Len() != 0 {
			t.Errorf("an empty %s: %v, %v", empty, l, err)
		}
	}
}

// TestLexiconLarge: a lexicon at its entry limit applied to a long text
// costs time linear in the text, not entries times text.
func TestLexiconLarge(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var src strings.Builder
	src.WriteString("term,spoken\n")
	for i := range narration.MaxLexiconEntries {
		fmt.Fprintf(&src, "शब्द%d,word %d\n", i, i)
	}
	l := mustParse(t, "big.csv", src.String())
	var text strings.Builder
	for text.Len() < 1<<20 {
		fmt.Fprintf(&text, "शब्द%d और शब्द ", r.Intn(2*narration.MaxLexiconEntries))
	}
	start := time.Now()
	got, applied := l.Apply(text.String(), "hi-IN")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Apply took %v", d)
	}
	if len(applied) < 10_000 {
		t.Errorf("%d replacements", len(applied))
	}
	checkApplied(t, text.String(), got, applied)
}

// FuzzLexicon: any file parses or fails with positioned errors, and a
// lexicon that parses applies to any text consistently.
func FuzzLexicon(f *testing.F) {
	f.Add("l.csv", "term,spoken,language,case\nSIP,सिप,hi,exact\nराम,raam,,\n", "मेरा SIP राम<laugh>SIP 12")
	f.Add("l.tsv", "term\tspoken\nState Bank\tएसबीआई\n", "State\nBank of State  Bank")
	f.Add("l.yaml", "- {term: ₹, spoken: rupees}\n- {term: a b, spoken: c}\n", "₹₹ a  b a\n\nb")
	f.Add("l.pls", `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" xml:lang="hi"><lexeme><grapheme>W3C</grapheme><alias>w3 c</alias></lexeme><lexeme><grapheme>x</grapheme><phoneme>ks</phoneme></lexeme></lexicon>`, "W3C x")
	f.Fuzz(func(t *testing.T, name, src, text string) {
		l, err := narration.ParseLexicon(name, []byte(src))
		if err != nil {
			var list narration.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					if e.Pos.Line < 1 || e.Pos.Col < 1 {
						t.Fatalf("error without a place: %v", e)
					}
				}
			}
			return
		}
		got, applied := l.Apply(text, "hi-IN")
		checkApplied(t, text, got, applied)
		_ = narration.UncoveredDigits(text, applied)
	})
}
