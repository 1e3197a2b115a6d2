package schema

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
)

// MaxTextWarn is the text length above which a warning is given: the
// documents do not state a maximum; the emulator's default -max-text is
// 5000 characters (SPEC section 8a).
const MaxTextWarn = 5000

// MaxTextWarnings bounds the warnings about places inside texts (digit
// runs, unknown audio tags) one manifest gets: a data file of numbers
// would otherwise give millions. Past it, one warning says that the rest
// are not listed. 10,000.
const MaxTextWarnings = 10_000

// maxQuotedDigits is the longest run of digits a warning quotes whole, in
// characters; a longer one is quoted by its start and its length.
const maxQuotedDigits = 32

// textKey identifies what checkText's findings depend on: the text, and a
// hash of the rest (textSource). A manifest of 100,000 texts holds one
// key each: 24 bytes, not the 96 of the fields themselves.
type textKey struct {
	text   string
	source uint64
}

// textSource is what checkText's findings depend on besides the text and
// its spans (where each part of it came from, hashed before it): the
// model, the text field's position, and the lexicon and language, which
// change the findings about digits.
type textSource struct {
	model    *contract.Model
	fallback manifest.Pos
	lexicon  *narration.Lexicon
	language string
}

// checkedBefore reports whether the same text from the same source was
// checked for the same model before, as every synthesis using one long
// variable or default is: its findings are the same, reported at the same
// positions, so that it is checked once ("Messages name values, not
// instances").
func (c *checker) checkedBefore(s *manifest.Synthesis, model *contract.Model, fallback manifest.Pos) bool {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var b [8 * 3]byte
	// The text field's position matters only where the spans give none.
	var field manifest.Pos
	if len(s.TextSpans) == 0 || s.TextSpans[0].Offset > 0 {
		field = fallback
	}
	for _, sp := range s.TextSpans {
		if sp.Pos.Line == 0 {
			field = fallback
		}
		binary.LittleEndian.PutUint64(b[0:], uint64(sp.Offset))
		binary.LittleEndian.PutUint64(b[8:], uint64(sp.Pos.Line))
		binary.LittleEndian.PutUint64(b[16:], uint64(sp.Pos.Col))
		if sp.Exact {
			b[23] |= 0x80
		}
		h.Write(b[:])
		h.WriteString(sp.Pos.File)
		h.WriteByte(0)
	}
	src := textSource{model: model, fallback: field, lexicon: s.Details().Lexicon}
	if src.lexicon != nil {
		src.language = s.Language
	}
	maphash.WriteComparable(&h, src)
	k := textKey{text: s.Text, source: h.Sum64()}
	if c.texts[k] {
		return true
	}
	c.texts[k] = true
	return false
}

// textWarning reports whether one more warning about a place inside a
// text may be given (see MaxTextWarnings); the first one past the limit
// gives, at pos, the warning that the rest are not listed.
func (c *checker) textWarning(pos manifest.Pos) bool {
	c.textWarnings++
	if c.textWarnings == MaxTextWarnings+1 {
		c.ds.Warnf(pos, "more than %s warnings about digits and audio tags in texts; the rest are not listed", numfmt.Thousands(MaxTextWarnings)).
			WithHint("spell numbers out, and fix the tags listed, then validate again to see more")
	}
	return c.textWarnings <= MaxTextWarnings
}

// checkText checks a synthesis text: not empty, audio tags per model,
// digit runs. It reads the text in a few passes, each linear in its
// length, and checks a text from one source once.
// conformance: TTS-004, TTS-005, TTS-050, TTS-051, TTS-052, TTS-056, TTS-057, TTS-058
func (c *checker) checkText(s *manifest.Synthesis, model *contract.Model) {
	sd := s.Details()
	fallback := manifest.FieldPos(s.Fields, "text", manifest.FieldPos(s.Fields, "text_file", s.Pos))
	if c.checkedBefore(s, model, fallback) {
		return
	}
	pos := newTextPos(s, fallback).at
	if strings.TrimSpace(s.Text) == "" {
		c.ds.Errorf(pos(0), "text is empty").WithHint("the service needs text to speak")
		return
	}
	first, hasTags, words := c.checkTags(s.Text, model, pos)
	switch {
	case hasTags && !model.RendersTags && !words:
		c.ds.Errorf(pos(first.Offset), "text is made only of audio tags, which %s removes: the service rejects it", c.modelName(model.Name)).
			WithHint("add words to speak, or use a tts-v3.0 voice to render the tags")
		return
	case hasTags && !model.RendersTags:
		c.ds.Warnf(pos(first.Offset), "audio tag <%s> is removed by %s and not rendered (only tts-v3.0 renders tags)", first.Name, c.modelName(model.Name)).
			WithHint("use a tts-v3.0 voice, or remove the tags")
	case hasTags && !words:
		// The documents reject tag-only text for tts-v2.5 and are silent for
		// tts-v3.0; the emulator rejects it for every model, and so does
		// voxform, so that a manifest that validates is accepted.
		c.ds.Errorf(pos(first.Offset), "text is made only of audio tags; there are no words to speak").
			WithHint("add words after the tags")
		return
	}
	var applied []narration.Applied
	if sd.Lexicon != nil {
		_, applied = sd.Lexicon.Apply(s.Text, s.Language)
	}
	c.checkDigits(s.Text, narration.UncoveredDigits(s.Text, applied), sd.Lexicon != nil, newTextPos(s, fallback).at)
}

// checkTags reads the audio tags of a text: the first, whether there is
// any, and whether there are words outside them. With a model that renders
// tags, an unknown tag is a warning.
func (c *checker) checkTags(text string, model *contract.Model, pos func(int) manifest.Pos) (first narration.Tag, hasTags, words bool) {
	end := 0 // end of the previous tag
	for t, ok := narration.NextTag(text, 0); ok; t, ok = narration.NextTag(text, t.End) {
		if !hasTags {
			first, hasTags = t, true
		}
		words = words || strings.TrimSpace(text[end:t.Offset]) != ""
		end = t.End
		if !model.RendersTags || slices.Contains(c.cat.Tags, t.Name) || !c.textWarning(pos(t.Offset)) {
			continue
		}
		d := c.ds.Warnf(pos(t.Offset), "unknown audio tag <%s> is stripped by the service and not rendered", t.Name)
		if sg := c.sg.Suggest(t.Name, c.cat.Tags); sg != "" {
			d.WithHint("did you mean <%s>? tag names are case-sensitive and match exactly, spaces included", sg)
		} else {
			d.WithHint("tags: <%s>", strings.Join(c.cat.Tags, ">, <"))
		}
	}
	words = words || strings.TrimSpace(text[end:]) != ""
	return first, hasTags, words
}

// checkDigits warns about the digit runs of a text outside audio tags
// that no lexicon entry covers (narration.UncoveredDigits): the service
// mispronounces them (speech-synthesis.md, "What the service does", item
// 5). lexicon says whether the text has a lexicon to add entries to.
func (c *checker) checkDigits(text string, runs []narration.Span, lexicon bool, pos func(int) manifest.Pos) {
	for _, r := range runs {
		p := pos(r.Start)
		if !c.textWarning(p) {
			return
		}
		digits := quoteDigits(text[r.Start:r.End])
		if lexicon {
			c.ds.Warnf(p, "digits %s in text are mispronounced by the service, and no lexicon entry covers them", digits).
				WithHint("add an entry for them to the lexicon, or spell them out as words")
			continue
		}
		c.ds.Warnf(p, "digits %s in text are mispronounced by the service", digits).
			WithHint("spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")")
	}
}
