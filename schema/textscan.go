package schema

import (
	"strconv"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
)

// textPos finds the source positions of byte offsets of a synthesis text,
// as manifest.PosAt does, falling back to the text field's position when
// the source has none. Offsets asked for in increasing order cost time
// linear in the text in all; a smaller offset starts again.
type textPos struct {
	spans    []manifest.Span
	text     string
	fallback manifest.Pos
	// i is the span holding off (-1: none yet); p is the position of off
	// when that span is exact.
	i   int
	off int
	p   manifest.Pos
}

func newTextPos(s *manifest.Synthesis, fallback manifest.Pos) *textPos {
	return &textPos{spans: s.TextSpans, text: s.Text, fallback: fallback, i: -1}
}

// at returns the position of byte offset off.
func (t *textPos) at(off int) manifest.Pos {
	if off < t.off || t.i < 0 {
		t.i, t.off = -1, 0
	}
	i := t.i
	for i+1 < len(t.spans) && t.spans[i+1].Offset <= off {
		i++
	}
	if i < 0 {
		return t.fallback
	}
	cur := t.spans[i]
	if i != t.i {
		t.i, t.off, t.p = i, cur.Offset, cur.Pos
	}
	p := cur.Pos
	if cur.Exact && off <= len(t.text) {
		for _, r := range t.text[t.off:off] {
			if r == '\n' {
				t.p.Line++
				t.p.Col = 1
				continue
			}
			t.p.Col++
		}
		t.off = off
		p = t.p
	}
	if p.Line == 0 {
		return t.fallback
	}
	return p
}

// quoteDigits quotes a run of digits for a message: whole when short,
// else its start and its length.
func quoteDigits(run string) string {
	n := 0
	for i := range run {
		if n == maxQuotedDigits {
			return strconv.Quote(run[:i]) + "... (" + numfmt.Thousands(int64(utf8.RuneCountInString(run))) + " characters)"
		}
		n++
	}
	return strconv.Quote(run)
}
