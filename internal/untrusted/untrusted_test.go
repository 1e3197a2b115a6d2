package untrusted

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// inert reports the first character of s that could act on a terminal.
func inert(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("invalid UTF-8 in %q", s)
	}
	for _, r := range s {
		if acts(r) {
			t.Errorf("raw %U in %q", r, s)
			return
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`synthesis.menu["a"]`, `synthesis.menu["a"]`},
		{"नमस्ते ज़\u200dरा", "नमस्ते ज़\u200dरा"}, // the joiners scripts need stay
		{"a\x1b[2K\x1b[1Ab", `a\x1b[2K\x1b[1Ab`},
		{"over\rwrite\bx", `over\rwrite\x08x`},
		{"line\nbreak\ttab", `line\nbreak\ttab`},
		{"csi\u009b2J", `csi\u009b2J`},
		{"evil\u202eexe.txt", `evil\u202eexe.txt`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`},
		{"sep\u2028arator", `sep\u2028arator`},
		{"tag\U000E0041", `tag\U000e0041`},
		{"bad\xffutf8\xe0", `bad\xffutf8\xe0`},
		{"del\x7f", `del\x7f`},
		{"\ufffd stays", "\ufffd stays"},
	} {
		got := Escape(tt.in)
		if got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		inert(t, got)
	}
	if got := Lines("one\n\ttwo\x1b"); got != "one\n\ttwo\\x1b" {
		t.Errorf("Lines: %q", got)
	}
}

func TestExcerpt(t *testing.T) {
	if got := Excerpt("  short\r\n message\x1b[0m "); got != `short message\x1b[0m` {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("bad\x1b[2K\r\u202e", 16384) // 180,224 bytes
	got := Excerpt(long)
	inert(t, got)
	head, size, ok := strings.Cut(got, "… ")
	if !ok || size != "(180,224 bytes)" {
		t.Fatalf("no size after the excerpt: %q", got)
	}
	if n := utf8.RuneCountInString(head); n > MaxExcerpt || n < MaxExcerpt-10 {
		t.Errorf("excerpt of %d characters, want at most %d (and close to it)", n, MaxExcerpt)
	}
	if !strings.HasPrefix(head, `bad\x1b[2K \u202ebad`) {
		t.Errorf("excerpt %q", head)
	}
	// Only the start of a text is read: its end never shows.
	if got := Excerpt(strings.Repeat(" ", 70000) + "tail"); got != "… (70,004 bytes)" {
		t.Errorf("a text read only in part: %q", got)
	}
	// A cut never splits a character or an escape.
	for _, s := range []string{strings.Repeat("क", 300), strings.Repeat("\x1b", 300), strings.Repeat("a", 199) + "\u202e"} {
		got := Excerpt(s)
		inert(t, got)
		head, _, _ := strings.Cut(got, "…")
		if strings.HasSuffix(head, `\`) || strings.HasSuffix(head, `\x`) || strings.HasSuffix(head, `\u202`) {
			t.Errorf("a cut escape: %q", got)
		}
	}
}

func TestBody(t *testing.T) {
	page := "<html><head><style>p{}</style></head><body><h1>502 Bad &amp; Gateway</h1>\x1b[2J</body></html>"
	if got := Body([]byte(page)); got != `502 Bad & Gateway \x1b[2J` {
		t.Errorf("page: %q", got)
	}
	if got := Body([]byte("plain\x00\x07 text")); got != `plain\x00\x07 text` {
		t.Errorf("plain: %q", got)
	}
	// A cut at MaxScan never splits a character.
	if got := Body([]byte(strings.Repeat(" ", MaxScan-1) + "क")); strings.Contains(got, `\x`) {
		t.Errorf("a split character: %q", got)
	}
	huge := []byte(strings.Repeat("overloaded ", 20000))
	if got := Body(huge); !strings.HasSuffix(got, "… (220,000 bytes)") || !strings.HasPrefix(got, "overloaded overloaded") {
		t.Errorf("huge: %q", got)
	}
}

// FuzzExcerpt: whatever the text, an excerpt is valid UTF-8, inert, one
// line and bounded.
func FuzzExcerpt(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2Kb", "\xff\xfe", "\u202e", strings.Repeat("\r\n", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Excerpt(s), Body([]byte(s))} {
			inert(t, got)
			if strings.ContainsFunc(got, unicode.IsControl) {
				t.Fatalf("control in %q", got)
			}
			head, _, _ := strings.Cut(got, "… (")
			if utf8.RuneCountInString(head) > MaxExcerpt {
				t.Fatalf("%d characters", utf8.RuneCountInString(head))
			}
		}
		if e := Escape(s); strings.ContainsFunc(e, acts) || !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q", s, e)
		}
	})
}
