package narration

import (
	"unicode/utf8"
)

// Options tune Split.
type Options struct {
	// RendersTags is set for a model that renders audio tags
	// (contract.Model.RendersTags: tts-v3.0). Split then repeats the tag
	// in effect at each boundary at the start of the next chunk.
	RendersTags bool

	noAnchors bool // tests: greedy packing alone
}

// Chunk is the part of a text that one synthesis request speaks.
type Chunk struct {
	// Start and End delimit the chunk's span, text[Start:End]. The spans
	// of a text's chunks are adjacent and cover it: concatenated, they
	// are the text, byte for byte.
	Start, End int
	// TextStart and TextEnd delimit the part of the span that is sent:
	// the span without the white space at its ends.
	TextStart, TextEnd int
	// Prefix is the audio tag repeated from before the chunk, or "".
	Prefix string
	// Text is the request's text: Prefix + text[TextStart:TextEnd].
	Text string
	// Characters is what Text bills (see the package documentation).
	Characters int
}

// Split cuts text into chunks of at most max characters each, as a
// request takes them. A text of at most max characters (or any text when
// max <= 0) is one chunk whose Text is the text unchanged, white space
// included, so that splitting never changes a request that did not need
// it. A longer text is cut as follows.
//
// Cuts. A sentence ends at '.', '?', '!', '।', '॥', '…', '؟' or '۔' (a run
// of them, then any closing quotes or brackets) followed by white space,
// the end of the text or an audio tag; a paragraph break (white space
// holding two line breaks) ends one too. A clause ends at ',', ';', ':',
// '—', '–', '،' or '؛' followed by white space, at a dash followed by a
// letter, and at a single line break. Any other white space is a word
// boundary. There is no cut inside an audio tag, nor after a tag and
// before the text it applies to, nor in the white space inside a number
// (NextDigits: "1800 123 456"); "3.5", "1,000" and "₹2.50" hold no cut
// either, their marks being followed by digits. White space at a cut
// belongs to the chunk before it and is not sent: a chunk's Text is its
// span without the white space at its ends.
//
// Packing. Each chunk takes whole sentences, greedily, up to max. So that
// an edit moves no cut far from it, some sentence ends are anchors where
// a chunk always ends (when it fits): those whose sentence (the text from
// the previous sentence end) has an FNV-1a 64 hash h with h mod max less
// than its length in characters, one anchor per max characters on
// average, decided by the sentence alone. An edit then changes only the
// chunks between the anchors around it. A sentence longer than max is cut
// at its last clause end that fits, else at its last word boundary, else
// (one word longer than max) at the last character boundary that fits,
// which is never inside an audio tag, before a combining mark, after a
// virama or beside a zero-width joiner, so that no syllable is cut.
//
// Tags. With opts.RendersTags, a chunk that does not begin with an audio
// tag begins with a copy of the last tag before it (a tag applies until
// the next one and text before the first is neutral, speech-synthesis.md,
// Audio tags rule 1, so a new request starts neutral): that tag, known or not, is the chunk's Prefix,
// and counts towards max and Characters (rule 6). Every tag is repeated
// so, <laugh> and <pauses> included, as rule 1 says of all of them.
//
// A chunk's Characters exceed max only when its first unit (a tag, or a
// letter with its marks) does not fit after the Prefix, which takes a max
// under 84 characters (two tags of MaxTagName with their brackets) plus
// the longest syllable of the text.
//
// Split takes time linear in the text and is deterministic.
func Split(text string, max int, opts Options) []Chunk {
	if n := utf8.RuneCountInString(text); max <= 0 || n <= max {
		return []Chunk{{End: len(text), TextEnd: len(text), Text: text, Characters: n}}
	}
	p := packer{text: text, max: max, opts: opts, s: newScanner(text, max, !opts.noAnchors)}
	return p.run()
}

// packer holds Split's state between chunks.
type packer struct {
	text   string
	max    int
	opts   Options
	s      *scanner
	chunks []Chunk
	// current is the last tag before the next chunk (ok: there is one).
	current   Tag
	hasTag    bool
	tagsTaken int // tags of s.tags already passed
}

func (p *packer) run() []Chunk {
	start, startC := 0, 0
	for start < len(p.text) {
		ts, tsc := skipSpace(p.text, start, startC)
		if ts == len(p.text) { // only white space is left: it ends the last chunk
			if n := len(p.chunks); n > 0 {
				p.chunks[n-1].End = ts
			} else {
				p.chunks = append(p.chunks, Chunk{End: ts, TextStart: ts, TextEnd: ts})
			}
			break
		}
		prefix := p.prefix(ts)
		limit := tsc + p.max - utf8.RuneCountInString(prefix)
		p.s.scanTo(max(limit, tsc), ts)
		end, endC, te, teC := p.choose(ts, tsc, limit)
		text := p.text[ts:te]
		if prefix != "" {
			text = prefix + text
		}
		p.chunks = append(p.chunks, Chunk{Start: start, End: end, TextStart: ts, TextEnd: te,
			Prefix: prefix, Text: text, Characters: teC - tsc + utf8.RuneCountInString(prefix)})
		p.s.drop(end)
		start, startC = end, endC
	}
	return p.chunks
}

// prefix returns the tag to repeat at the start of a chunk whose sent
// text starts at ts: the last tag ending at or before ts, unless the
// chunk starts with a tag of its own.
func (p *packer) prefix(ts int) string {
	tags := p.s.tags
	for p.tagsTaken < len(tags) && tags[p.tagsTaken].End <= ts {
		p.current, p.hasTag = tags[p.tagsTaken], true
		p.tagsTaken++
	}
	if !p.opts.RendersTags || !p.hasTag || len(p.chunks) == 0 || tagAt(p.text, ts) > 0 {
		return ""
	}
	return p.text[p.current.Offset:p.current.End]
}

// choose returns where the chunk whose sent text starts at ts (character
// tsc) ends: its span end and the end of its sent text, with their
// character counts. limit is the character count the sent text may reach.
func (p *packer) choose(ts, tsc, limit int) (end, endC, te, teC int) {
	s := p.s
	var best [classSentence + 1]*cut
	for i := s.head; i < len(s.cuts); i++ {
		c := &s.cuts[i]
		if c.qc > limit || c.qc <= tsc {
			continue
		}
		if c.anchor {
			return c.p, c.pc, c.q, c.qc
		}
		best[c.class] = c
	}
	if s.pos == len(p.text) && s.lastC <= limit {
		return len(p.text), s.posC, s.last, s.lastC
	}
	for class := classSentence; class > classNone; class-- {
		if c := best[class]; c != nil {
			return c.p, c.pc, c.q, c.qc
		}
	}
	return hardCut(p.text, ts, tsc, limit)
}

// skipSpace returns the first byte at or after i that is not white
// space, and its character count given that of i.
func skipSpace(text string, i, c int) (int, int) {
	for i < len(text) {
		r, w := utf8.DecodeRuneInString(text[i:])
		if !isSpace(r) {
			break
		}
		i += w
		c++
	}
	return i, c
}

// hardCut cuts inside a word: after the last whole unit (a tag, or a
// character with the marks and joiners that hold to it) whose end is
// within limit characters, or after the first unit when none fits. It
// returns the cut and the end of the sent text (before any white space
// the units included), with their character counts.
func hardCut(text string, ts, tsc, limit int) (end, endC, te, teC int) {
	i, c := ts, tsc
	end, endC, te, teC = -1, 0, 0, 0
	for i < len(text) {
		n, chars, space := unitAt(text, i)
		if c+chars > limit && end >= 0 {
			break
		}
		i, c = i+n, c+chars
		end, endC = i, c
		if !space {
			te, teC = i, c
		}
	}
	return end, endC, te, teC
}

// unitAt returns the length in bytes and characters of the unit at byte
// i that a hard cut may not divide, and whether it is white space.
func unitAt(text string, i int) (n, chars int, space bool) {
	if w := tagAt(text, i); w > 0 {
		return w, utf8.RuneCountInString(text[i : i+w]), false
	}
	r, w := utf8.DecodeRuneInString(text[i:])
	n, chars = w, 1
	if isSpace(r) {
		return n, chars, true
	}
	for joins := joinsNext(r); i+n < len(text); {
		next, w := utf8.DecodeRuneInString(text[i+n:])
		if !joins && !joinsPrevious(next) || isSpace(next) || next == '<' && tagAt(text, i+n) > 0 {
			break
		}
		n += w
		chars++
		joins = joinsNext(next)
	}
	return n, chars, false
}

// tagAt returns the length of the audio tag starting at byte i, or 0.
func tagAt(text string, i int) int {
	if i >= len(text) || text[i] != '<' {
		return 0
	}
	window := text[i:min(len(text), i+maxTagBytes)]
	if t, ok := NextTag(window, 0); ok && t.Offset == 0 {
		return t.End
	}
	return 0
}

// maxTagBytes bounds the bytes of a tag: brackets and MaxTagName
// characters of at most 4 bytes.
const maxTagBytes = 2 + 4*MaxTagName
