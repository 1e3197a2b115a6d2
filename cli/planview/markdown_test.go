package planview

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
)

// synthesis is a create of a synthesis with text at addr.
func synthesis(addr, text string) *planner.Action {
	return &planner.Action{Address: addr, Type: planner.Create, Reasons: []string{"not in state"},
		Desired: &planner.Desired{Address: addr, Wire: planner.Wire{Synthesis: &contract.SynthesisRequest{Text: text}}}}
}

// TestMarkdownBounded: however many changes and however long their
// addresses, reasons and texts, a summary fits a pull request comment
// (65,536 bytes, so characters) by default and a job summary (1 MiB) when
// asked, and says how many changes it does not list.
func TestMarkdownBounded(t *testing.T) {
	p := &planner.Plan{}
	for i := range 5000 {
		a := synthesis(fmt.Sprintf(`synthesis.prompts["%s%d"]`, strings.Repeat("k", 300), i), strings.Repeat("नमस्ते ", 100))
		a.Reasons = []string{strings.Repeat("output build/a.wav -> build/b.wav", 20)}
		p.Actions = append(p.Actions, a)
	}
	more := regexp.MustCompile(`(?m)^… and ([0-9]+) more`)
	for _, tt := range []struct {
		name string
		o    MarkdownOptions
		max  int
	}{
		{"comment", MarkdownOptions{MaxRows: 100000}, 65536},
		{"job summary", MarkdownOptions{MaxRows: 100000, MaxBytes: 1 << 20}, 1 << 20},
	} {
		var b strings.Builder
		if err := Markdown(&b, p, nil, tt.o); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if len(out) > tt.max || len(out) < tt.max*9/10 {
			t.Errorf("%s: %d bytes, want at most %d (and close to it)", tt.name, len(out), tt.max)
		}
		rows := strings.Count(out, "\n| `+` |")
		m := more.FindStringSubmatch(out)
		if m == nil || m[1] != fmt.Sprint(5000-rows) {
			t.Errorf("%s: %d rows listed, and no \"and %d more\": %q", tt.name, rows, 5000-rows, out[max(0, len(out)-200):])
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "| `+` |") {
				continue
			}
			cells := strings.Split(line, " | ")
			if n := utf8.RuneCountInString(strings.Trim(cells[1], "`")); n > MaxAddress {
				t.Fatalf("%s: a %d-character address: %s", tt.name, n, cells[1])
			}
			if n := utf8.RuneCountInString(strings.ReplaceAll(cells[2], "&gt;", ">")); n > MaxReason {
				t.Fatalf("%s: a %d-character reason", tt.name, n)
			}
			break
		}
	}
	if err := Markdown(&strings.Builder{}, p, nil, MarkdownOptions{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "4,096") {
		t.Errorf("a 100-byte bound: %v", err)
	}
}

// hostile is manifest or state text that would notify, link, render HTML
// or leave its cell or code span in a pull request comment.
const hostile = "@voxform/team see #123 and acme/app#7, GH-12, https://evil.example/x and www.evil.example, " +
	"mail a@b.example ![img](https://evil.example/i.png) [click](http://evil.example) <img src=x onerror=alert(1)> " +
	"<details><summary>x</summary> a|b `code` ``two`` *em* _em_ ~~del~~ \x1b[2K\r"

// TestMarkdownInert: texts, reasons and addresses from a manifest or a
// state stay text: no mention, reference, bare URL, link, image or HTML
// survives, no cell or code span is broken, no control is raw.
func TestMarkdownInert(t *testing.T) {
	old := synthesis("synthesis.old", "")
	old.Type, old.Desired = planner.Delete, nil
	p := &planner.Plan{Actions: []*planner.Action{
		synthesis("synthesis.a", hostile),
		synthesis("synthesis.`b`|c @team #9 https://evil.example", "plain"),
		{Address: "synthesis.r", Type: planner.Repair, Reasons: []string{hostile}},
	}}
	var b strings.Builder
	if err := Markdown(&b, p, nil, MarkdownOptions{MaxText: 1000}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// Inside the code span of an address, nothing is a mention or a link.
	addr := "| ``synthesis.`b`\\|c @team #9 https://evil.example`` |"
	if !strings.Contains(out, addr) {
		t.Errorf("the address is not one code span %s:\n%s", addr, out)
	}
	text := strings.Replace(out, addr, "| |", 1)
	for _, re := range []string{
		`@[A-Za-z0-9]`,           // a mention, an e-mail address
		`#[0-9]`, `(?i)GH-[0-9]`, // a reference
		`(?i)(https?|ftp)://`, `(?i)www\.`, // a bare URL
		`[^\\]\]\(`,                // a link or an image
		`<[a-zA-Z/]`,               // HTML
		"[\x00-\x08\x0b-\x1f\x7f]", // a control
	} {
		if loc := regexp.MustCompile(re).FindStringIndex(text); loc != nil {
			t.Errorf("%s at %q", re, text[max(0, loc[0]-20):min(len(text), loc[1]+20)])
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Five cells: a pipe is a cell's end only when not escaped.
		if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)); n != 6 {
			t.Errorf("%d cell borders in %q", n, line)
		}
	}
}

func TestCodeCell(t *testing.T) {
	for in, want := range map[string]string{
		"synthesis.a": "`synthesis.a`",
		"a`b":         "``a`b``",
		"`a``":        "``` `a`` ```",
		"a|b":         "`a\\|b`",
		" a ":         "`  a  `",
		"x\x1b[2K\ny": "`x\\x1b[2K\\ny`",
	} {
		if got := codeCell(in); got != want {
			t.Errorf("codeCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCells: whatever an address (from a state) and a text (from a
// manifest) hold, a Markdown row keeps its five cells, no control reaches
// the summary or the table raw, and a mention or a bare URL survives only
// inside the address's code span.
func FuzzCells(f *testing.F) {
	f.Add("synthesis.a`|b", hostile)
	f.Add("``\\|\x1b", "@x #1 https://y www.z \u202e")
	border := regexp.MustCompile(`(^|[^\\])\|`)
	f.Fuzz(func(t *testing.T, addr, text string) {
		p := &planner.Plan{Actions: []*planner.Action{synthesis(addr, text)}}
		var md, table strings.Builder
		if err := Markdown(&md, p, nil, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := Render(&table, p, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{md.String(), table.String()} {
			if strings.ContainsFunc(out, func(r rune) bool {
				return r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d')
			}) || !utf8.ValidString(out) {
				t.Fatalf("a raw control in %q", out)
			}
		}
		for _, line := range strings.Split(md.String(), "\n") {
			if strings.HasPrefix(line, "| `+`") {
				if n := len(border.FindAllString(line, -1)); n != 6 {
					t.Fatalf("%d cell borders in %q", n, line)
				}
				cells := strings.SplitN(line, " | ", 4)
				if regexp.MustCompile(`@[A-Za-z0-9]|#[0-9]|(?i)https?://|www\.`).MatchString(cells[3]) {
					t.Fatalf("a live mention or link in %q", cells[3])
				}
			}
		}
	})
}
