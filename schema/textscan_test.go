package schema

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
)

// randomText builds texts from pieces that meet the scanners' edge cases:
// tags of 40 and 41 characters, unclosed and nested brackets, separators
// before and after digits, digits of other scripts, invalid UTF-8.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", " ", "  ", "\n", "<", ">", "<laugh>", "<a\nb>", "<" + strings.Repeat("x", 40) + ">",
		"<" + strings.Repeat("x", 41) + ">", "<é>", "12", "1,500", "2026-10-01", "9 ", " 9", "-", ".", ",", ":", "/",
		"४२", "١٢", "１２", "\xff", "\xe0\xa5", "<1 2>", "x7y", "<<3>>"}
	var b strings.Builder
	for range r.Intn(12) {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// TestTextPosMatchesPosAt: textPos gives manifest.PosAt's answers (or the
// fallback where PosAt has none) for offsets of runes asked in increasing
// order, in one pass.
func TestTextPosMatchesPosAt(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	fallback := manifest.Pos{File: "voxform.yaml", Line: 99, Col: 9}
	for range 20_000 {
		text := randomText(r)
		var spans []manifest.Span
		for off := 0; off <= len(text); off += 1 + r.Intn(4) {
			if r.Intn(3) > 0 {
				spans = append(spans, manifest.Span{Offset: off, Pos: manifest.Pos{File: "a", Line: r.Intn(3), Col: 1 + r.Intn(9)}, Exact: r.Intn(2) == 0})
			}
		}
		s := &manifest.Synthesis{Text: text, TextSpans: spans}
		tp := newTextPos(s, fallback)
		// The checks ask for the offsets of runes (as range visits them):
		// tags and digits start there.
		var offs []int
		for off := range text {
			if r.Intn(2) == 0 {
				offs = append(offs, off)
			}
		}
		offs = append(offs, len(text))
		if r.Intn(4) == 0 { // a smaller offset starts again
			offs = append(offs, 0)
		}
		for _, off := range offs {
			want := manifest.PosAt(spans, text, off)
			if want.Line == 0 {
				want = fallback
			}
			if got := tp.at(off); got != want {
				t.Fatalf("text %q spans %v: offset %d at %v, want %v", text, spans, off, got, want)
			}
		}
	}
}

// TestQuoteDigits: a run of digits is quoted whole up to maxQuotedDigits
// characters, and by its start and length beyond.
func TestQuoteDigits(t *testing.T) {
	long := strings.Repeat("4", 40_000)
	tests := []struct{ run, want string }{
		{"2026-10-01", `"2026-10-01"`},
		{strings.Repeat("४", 32), `"` + strings.Repeat("४", 32) + `"`},
		{strings.Repeat("४", 33), `"` + strings.Repeat("४", 32) + `"... (33 characters)`},
		{long, `"` + long[:32] + `"... (40,000 characters)`},
	}
	for _, tt := range tests {
		if got := quoteDigits(tt.run); got != tt.want {
			t.Errorf("quoteDigits(%.40q...) = %s, want %s", tt.run, got, tt.want)
		}
	}
	if !slices.Contains([]int{32}, maxQuotedDigits) {
		t.Fatalf("maxQuotedDigits = %d; the cases above assume 32", maxQuotedDigits)
	}
}

// TestTextCheckedOncePerSource: the text of 1,500 syntheses that all use
// one variable is checked once (the checker remembers one text); 1,500
// values of a data file alike are checked once each, at their places.
func TestTextCheckedOncePerSource(t *testing.T) {
	long := strings.Repeat("call 1800 123 now ", 2_000)
	tests := []struct {
		name, text string
		data       string
		texts      int
	}{
		{name: "a variable", text: "${var.long}", texts: 1},
		{name: "a default", text: "", texts: 1},
		{name: "data values", text: "${each.value.text}", data: "d.csv", texts: 1_500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b, csv strings.Builder
			b.WriteString("version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n")
			b.WriteString("variables:\n  long: \"" + long + "\"\ndefaults:\n  synthesis: { text: \"${var.long}\" }\nsyntheses:\n")
			csv.WriteString("key,text\n")
			for i := range 1_500 {
				fmt.Fprintf(&csv, "k%d,call 1800 123 now\n", i)
				switch {
				case tt.data != "" && i == 0:
					fmt.Fprintf(&b, "  s: { for_each: %s, voice: v, text: %q, output: \"o/${each.key}.wav\" }\n", tt.data, tt.text)
				case tt.data != "":
				case tt.text != "":
					fmt.Fprintf(&b, "  s%d: { voice: v, text: %q, output: o/%d.wav }\n", i, tt.text, i)
				default:
					fmt.Fprintf(&b, "  s%d: { voice: v, output: o/%d.wav }\n", i, i)
				}
			}
			dir := t.TempDir()
			m, ds := manifest.ParseSources(dir, []string{"voxform.yaml"}, [][]byte{[]byte(b.String())})
			if tt.data != "" {
				if err := os.WriteFile(filepath.Join(dir, tt.data), []byte(csv.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			em, eds := manifest.Expand(m, manifest.LoadOptions{NoProbe: true})
			ds.Append(eds)
			if len(ds) > 0 || len(em.Syntheses) != 1_500 {
				t.Fatalf("%d syntheses; %v", len(em.Syntheses), ds)
			}
			c := check(em, manifest.LoadOptions{NoProbe: true})
			if len(c.texts) != tt.texts {
				t.Errorf("%d texts checked, want %d", len(c.texts), tt.texts)
			}
			if c.textWarnings > MaxTextWarnings {
				t.Errorf("%d warnings inside texts: over the limit", c.textWarnings)
			}
		})
	}
}

// TestTextCheckedBeforeKey: a text is taken as checked before only when
// everything its findings depend on is the same: the text, where its parts
// came from, the model, the text field's position (where the spans give
// none), and the lexicon with its language. A language without a lexicon
// changes nothing.
func TestTextCheckedBeforeKey(t *testing.T) {
	v25, v3 := contract.ProfileDocumented.SynthesisModel("tts-v2.5"), contract.ProfileDocumented.SynthesisModel("tts-v3.0")
	lexA, lexB := new(narration.Lexicon), new(narration.Lexicon)
	at := manifest.Pos{File: "voxform.yaml", Line: 3, Col: 9}
	spans := []manifest.Span{{Offset: 0, Pos: at, Exact: true}}
	base := func() (manifest.Synthesis, *contract.Model, manifest.Pos) {
		return manifest.Synthesis{Text: "call 1800", Language: "hi-IN"}, v25, at
	}
	tests := []struct {
		name  string
		edit  func(s *manifest.Synthesis, m **contract.Model, fallback *manifest.Pos)
		again bool
	}{
		{"the same", func(*manifest.Synthesis, **contract.Model, *manifest.Pos) {}, true},
		{"another text", func(s *manifest.Synthesis, _ **contract.Model, _ *manifest.Pos) { s.Text = "call 1900" }, false},
		{"another model", func(_ *manifest.Synthesis, m **contract.Model, _ *manifest.Pos) { *m = v3 }, false},
		{"another field position", func(_ *manifest.Synthesis, _ **contract.Model, p *manifest.Pos) { p.Line++ }, false},
		{"another source", func(s *manifest.Synthesis, _ **contract.Model, _ *manifest.Pos) { s.TextSpans = spans }, false},
		{"a lexicon", func(s *manifest.Synthesis, _ **contract.Model, _ *manifest.Pos) { s.Edit().Lexicon = lexB }, false},
		{"another language without a lexicon", func(s *manifest.Synthesis, _ **contract.Model, _ *manifest.Pos) { s.Language = "ta-IN" }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := check(&manifest.Manifest{}, manifest.LoadOptions{NoProbe: true})
			s, m, fallback := base()
			if c.checkedBefore(&s, m, fallback) {
				t.Fatal("the first text was checked before")
			}
			tt.edit(&s, &m, &fallback)
			if got := c.checkedBefore(&s, m, fallback); got != tt.again {
				t.Errorf("checked before: %v, want %v", got, tt.again)
			}
		})
	}
	for name, edit := range map[string]func(s *manifest.Synthesis){
		"another language with a lexicon": func(s *manifest.Synthesis) { s.Language = "ta-IN" },
		"another lexicon":                 func(s *manifest.Synthesis) { s.Edit().Lexicon = lexB },
		"a source in another file": func(s *manifest.Synthesis) {
			s.TextSpans = []manifest.Span{{Offset: 0, Pos: manifest.Pos{File: "prompts.csv", Line: 3, Col: 9}, Exact: true}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := check(&manifest.Manifest{}, manifest.LoadOptions{NoProbe: true})
			s := manifest.Synthesis{Text: "call 1800", Language: "hi-IN", TextSpans: spans}
			s.Edit().Lexicon = lexA
			if c.checkedBefore(&s, v25, at) {
				t.Fatal("the first text was checked before")
			}
			edit(&s)
			if c.checkedBefore(&s, v25, at) {
				t.Error("taken as checked before")
			}
		})
	}
}
