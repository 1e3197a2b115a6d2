package narration

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Greedy returns opts with anchors off: chunks are packed greedily only,
// so that tests of where cuts fall need not know which sentences are
// anchors.
func Greedy(opts Options) Options {
	opts.noAnchors = true
	return opts
}

// CheckChunks reports the first promise of Split that chunks break: the
// spans cover the text, the sent text is the span without white space at
// its ends plus the prefix, Characters counts it, no cut falls inside a
// tag, at most max characters unless the first unit alone does not fit,
// and the prefix is the tag in effect.
func CheckChunks(text string, limit int, opts Options, chunks []Chunk) error {
	if len(chunks) == 0 {
		return fmt.Errorf("no chunks")
	}
	if limit <= 0 || utf8.RuneCountInString(text) <= limit {
		if len(chunks) != 1 || chunks[0].Text != text || chunks[0].Start != 0 || chunks[0].End != len(text) {
			return fmt.Errorf("a text that fits is not one chunk of itself: %+v", chunks)
		}
		return nil
	}
	var joined strings.Builder
	tags := FindTags(text)
	ti := 0
	for i, c := range chunks {
		if c.Start > c.TextStart || c.TextStart > c.TextEnd || c.TextEnd > c.End || c.End > len(text) {
			return fmt.Errorf("chunk %d: offsets %d %d %d %d out of order", i, c.Start, c.TextStart, c.TextEnd, c.End)
		}
		if i > 0 && c.Start != chunks[i-1].End {
			return fmt.Errorf("chunk %d starts at %d, the previous ends at %d", i, c.Start, chunks[i-1].End)
		}
		joined.WriteString(text[c.Start:c.End])
		if strings.TrimSpace(text[c.Start:c.TextStart]) != "" || strings.TrimSpace(text[c.TextEnd:c.End]) != "" {
			return fmt.Errorf("chunk %d: more than white space is left unsent", i)
		}
		body := text[c.TextStart:c.TextEnd]
		if strings.TrimSpace(body) != body || body == "" && len(chunks) > 1 {
			return fmt.Errorf("chunk %d: sent text %q is not trimmed or is empty", i, body)
		}
		if c.Text != c.Prefix+body || c.Characters != utf8.RuneCountInString(c.Text) {
			return fmt.Errorf("chunk %d: text %q, %d characters, for prefix %q and body %q", i, c.Text, c.Characters, c.Prefix, body)
		}
		if c.Characters > limit {
			n, _, _ := unitAt(text, c.TextStart)
			if c.TextStart+n != c.TextEnd {
				return fmt.Errorf("chunk %d: %d characters over %d, and more than one unit: %q", i, c.Characters, limit, c.Text)
			}
		}
		// Tags before the chunk's sent text; offsets only grow.
		for ti < len(tags) && tags[ti].End <= c.TextStart {
			ti++
		}
		for _, b := range []int{c.Start, c.TextStart, c.TextEnd} {
			for k := max(ti-1, 0); k < len(tags) && tags[k].Offset < b; k++ {
				if b < tags[k].End {
					return fmt.Errorf("chunk %d: cut at %d inside tag %q", i, b, tags[k].Name)
				}
			}
		}
		want := ""
		if opts.RendersTags && i > 0 && tagAt(text, c.TextStart) == 0 && ti > 0 {
			want = text[tags[ti-1].Offset:tags[ti-1].End]
		}
		if c.Prefix != want {
			return fmt.Errorf("chunk %d: prefix %q, want %q", i, c.Prefix, want)
		}
	}
	if joined.String() != text {
		return fmt.Errorf("the spans do not make the text again")
	}
	return nil
}
