package manifest

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// literalSpansOf returns the spans of a string scalar without references,
// computed once per scalar.
func (ip *interpolator) literalSpansOf(file string, n *yaml.Node) []Span {
	if spans, ok := ip.literals[n]; ok {
		return spans
	}
	spans := ip.literalSpans(nil, newScalarPos(ip, file, n), 0, n.Value, 0)
	ip.literals[n] = spans
	return spans
}

// literalSpans appends the spans of literal text copied from the scalar of
// src at byte offset srcOff of its value, placed at offset dst of the
// result. Block scalars get one span per line, since their lines are
// indented in the source.
func (ip *interpolator) literalSpans(spans []Span, src *scalarPos, dst int, text string, srcOff int) []Span {
	n := src.n
	exact := n.Style&(yaml.DoubleQuotedStyle) == 0 || !strings.Contains(n.Value, "\\")
	spans = append(spans, Span{Offset: dst, Pos: src.at(srcOff), Exact: exact})
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return spans
	}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			spans = append(spans, Span{Offset: dst + i + 1, Pos: src.at(srcOff + i + 1), Exact: exact})
		}
	}
	return spans
}

// posIn returns the source position of byte offset off of scalar n's value.
func (ip *interpolator) posIn(file string, n *yaml.Node, off int) Pos {
	return (newScalarPos(ip, file, n)).at(off)
}

// scalarPos finds the source positions of byte offsets of one scalar's
// value. Offsets asked for in increasing order cost time linear in the
// value in all (a long string with thousands of references is not read
// again for each); a smaller offset starts again from the beginning.
type scalarPos struct {
	ip   *interpolator
	file string
	n    *yaml.Node
	// off is the offset reached; lines counts the newlines before it,
	// lineStart is where its line starts, runes counts the runes from
	// lineStart to off, and own is the number of spaces that start the
	// line in the value (-1 until known).
	off, lines, lineStart, runes, own int
}

func newScalarPos(ip *interpolator, file string, n *yaml.Node) *scalarPos {
	return &scalarPos{ip: ip, file: file, n: n, own: -1}
}

// at returns the source position of byte offset off of the value.
func (c *scalarPos) at(off int) Pos {
	v := c.n.Value
	off = min(off, len(v))
	if off < c.off {
		*c = *newScalarPos(c.ip, c.file, c.n)
	}
	seg := v[c.off:off]
	if i := strings.LastIndexByte(seg, '\n'); i >= 0 {
		c.lines += strings.Count(seg, "\n")
		c.lineStart = c.off + i + 1
		c.runes = utf8.RuneCountInString(v[c.lineStart:off])
		c.own = -1
	} else {
		c.runes += utf8.RuneCountInString(seg)
	}
	c.off = off
	n := c.n
	p := nodePos(c.file, n)
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		line := n.Line + 1 + c.lines
		if c.own < 0 {
			// The source line is indented by the block's indentation plus
			// the value line's own leading spaces.
			rest := v[c.lineStart:]
			c.own = len(rest) - len(strings.TrimLeft(rest, " "))
		}
		return Pos{File: c.file, Line: line, Col: c.ip.indent(c.file, line) - c.own + c.runes + 1}
	case c.lines > 0:
		// A multi-line flow scalar: the line is right, the column is not
		// reliable after folding; point at the line's start.
		return Pos{File: c.file, Line: n.Line + c.lines, Col: 1}
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		p.Col++
	}
	p.Col += c.runes
	return p
}

// indent returns the number of leading spaces of a line of a file.
func (ip *interpolator) indent(file string, line int) int {
	f := ip.files[file]
	if f == nil {
		return 0
	}
	starts, ok := ip.lines[file]
	if !ok {
		starts = []int{0}
		for i, c := range f.Src {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		ip.lines[file] = starts
	}
	if line < 1 || line > len(starts) {
		return 0
	}
	n := 0
	for i := starts[line-1]; i < len(f.Src) && f.Src[i] == ' '; i++ {
		n++
	}
	return n
}
