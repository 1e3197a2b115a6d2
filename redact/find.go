package redact

import (
	"cmp"
	"slices"
	"strings"

	"github.com/voxform/voxform/listen"
)

// Span is a stretch of personal data found in a text: bytes [Start, End)
// of the text searched.
type Span struct {
	Kind       Kind
	Start, End int
}

// Find returns the spans of the policy's kinds in text, sorted by start
// and never overlapping (where two detectors' spans overlap, their union
// is one span, of the kind of the one that starts first). It reads any
// text without panicking, in time and memory linear in its length.
func (p Policy) Find(text string) []Span {
	if len(p.Kinds) == 0 || text == "" {
		return nil
	}
	pr := prepare(text)
	ws := listen.Numbers(pr.s)
	spans := p.digitSpans(pr.s, ws)
	spans = append(spans, p.codeSpans(pr.s, ws)...)
	spans = append(spans, p.atSpans(pr.s)...)
	for i, s := range spans {
		spans[i].Start, spans[i].End = pr.span(s.Start, s.End)
	}
	return settle(spans)
}

// settle sorts spans and merges those that overlap.
func settle(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	var out []Span
	for _, s := range spans {
		if s.Start >= s.End {
			continue
		}
		if n := len(out); n > 0 && s.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Replace writes text with each span replaced by its kind's placeholder.
// The spans are those Find returned for text; a span out of the text's
// bounds, empty, or overlapping the one before is left out.
func Replace(text string, spans []Span) string {
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.Start < at || s.End > len(text) || s.Start >= s.End {
			continue
		}
		b.WriteString(text[at:s.Start])
		b.WriteString(s.Kind.Placeholder())
		at = s.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// Redact is text with every span of the policy's kinds replaced by its
// placeholder: Replace(text, p.Find(text)).
func (p Policy) Redact(text string) string { return Replace(text, p.Find(text)) }

// FindInSegments detects across segment boundaries (texts joined with a
// space, as the service's segments of one speaker continue each other)
// and returns each segment's spans, a span that crosses a boundary split
// into its pieces. A number read across two segments is found, and each
// segment's part of it redacted. Each segment is also searched alone, and
// what it finds is added: a number at a segment's end that joins one at
// the next segment's start into a run of no identifier would otherwise be
// missed in both.
func (p Policy) FindInSegments(texts []string) [][]Span {
	out := make([][]Span, len(texts))
	starts := make([]int, len(texts))
	var b strings.Builder
	for i, t := range texts {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts[i] = b.Len()
		b.WriteString(t)
	}
	k := 0
	for _, s := range p.Find(b.String()) {
		for k < len(texts) && starts[k]+len(texts[k]) <= s.Start {
			k++
		}
		for i := k; i < len(texts) && starts[i] < s.End; i++ {
			from, to := max(s.Start, starts[i]), min(s.End, starts[i]+len(texts[i]))
			if from < to {
				out[i] = append(out[i], Span{Kind: s.Kind, Start: from - starts[i], End: to - starts[i]})
			}
		}
	}
	for i, t := range texts {
		if alone := p.Find(t); len(alone) > 0 {
			out[i] = settle(append(out[i], alone...))
		}
	}
	return out
}
