package schema

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
)

var (
	// tagRE finds audio tags: <name> with no closing tag (speech-synthesis.md,
	// Audio tags). Names are short and hold no angle brackets or newlines.
	tagRE = regexp.MustCompile(`<([^<>\n]{1,40})>`)
	// digitRE finds runs of digits (any script), joined by the separators
	// of phone numbers, amounts, dates and IDs.
	digitRE = regexp.MustCompile(`\p{Nd}+(?:[ .,:/-]?\p{Nd}+)*`)
)

// MaxTextWarn is the text length above which a warning is given: the
// documents do not state a maximum; the emulator's default -max-text is
// 5000 characters (SPEC section 8a).
const MaxTextWarn = 5000

// Tag is an audio tag found in a text.
type Tag struct {
	Name   string
	Offset int // byte offset of '<'
	End    int
}

// FindTags returns the audio tags of text, known or not.
func FindTags(text string) []Tag {
	var out []Tag
	for _, m := range tagRE.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, Tag{Name: text[m[2]:m[3]], Offset: m[0], End: m[1]})
	}
	return out
}

// checkText checks a synthesis text: not empty, audio tags per model,
// digit runs.
// conformance: TTS-004, TTS-005, TTS-050, TTS-051, TTS-052, TTS-056, TTS-057, TTS-058
func (c *checker) checkText(s *manifest.Synthesis, model *contract.Model) {
	pos := func(off int) manifest.Pos {
		p := manifest.PosAt(s.TextSpans, s.Text, off)
		if p.Line == 0 {
			return at(s.Fields, "text", s.Pos)
		}
		return p
	}
	if strings.TrimSpace(s.Text) == "" {
		c.ds.Errorf(pos(0), "text is empty").WithHint("the service needs text to speak")
		return
	}
	if n := utf8.RuneCountInString(s.Text); n > MaxTextWarn {
		c.ds.Warnf(pos(0), "text is %d characters; the service's maximum is not documented and the emulator refuses over %d", n, MaxTextWarn).
			WithHint("split long text into several syntheses")
	}
	var tags []Tag
	rest := s.Text
	if strings.IndexByte(s.Text, '<') >= 0 {
		tags = FindTags(s.Text)
		rest = tagRE.ReplaceAllString(s.Text, "")
	}
	switch {
	case len(tags) > 0 && model.RendersTags:
		for _, t := range tags {
			if slices.Contains(c.cat.Tags, t.Name) {
				continue
			}
			d := c.ds.Warnf(pos(t.Offset), "unknown audio tag <%s> is stripped by the service and not rendered", t.Name)
			if sg := manifest.Suggest(t.Name, c.cat.Tags); sg != "" {
				d.WithHint("did you mean <%s>? tag names are case-sensitive and match exactly, spaces included", sg)
			} else {
				d.WithHint("tags: <%s>", strings.Join(c.cat.Tags, ">, <"))
			}
		}
	case len(tags) > 0:
		if strings.TrimSpace(rest) == "" {
			c.ds.Errorf(pos(tags[0].Offset), "text is made only of audio tags, which %s removes: the service rejects it", model.Name).
				WithHint("add words to speak, or use a tts-v3.0 voice to render the tags")
			return
		}
		c.ds.Warnf(pos(tags[0].Offset), "audio tag <%s> is removed by %s and not rendered (only tts-v3.0 renders tags)", tags[0].Name, model.Name).
			WithHint("use a tts-v3.0 voice, or remove the tags")
	}
	if model.RendersTags && len(tags) > 0 && strings.TrimSpace(rest) == "" {
		// The documents reject tag-only text for tts-v2.5 and are silent for
		// tts-v3.0; the emulator rejects it for every model, and so does
		// voxform, so that a manifest that validates is accepted.
		c.ds.Errorf(pos(tags[0].Offset), "text is made only of audio tags; there are no words to speak").
			WithHint("add words after the tags")
		return
	}
	c.checkDigits(s.Text, tags, pos)
}

// checkDigits warns about digit runs, which the service mispronounces
// (speech-synthesis.md, "What the service does", item 5).
func (c *checker) checkDigits(text string, tags []Tag, pos func(int) manifest.Pos) {
	if !hasDigit(text) {
		return
	}
	for _, m := range digitRE.FindAllStringIndex(text, -1) {
		inTag := false
		for _, t := range tags {
			if m[0] >= t.Offset && m[1] <= t.End {
				inTag = true
			}
		}
		if inTag {
			continue
		}
		run := text[m[0]:m[1]]
		c.ds.Warnf(pos(m[0]), "digits %q in text are mispronounced by the service", run).
			WithHint("spell numbers, amounts, dates and IDs out as words (for example \"two thousand twenty six\")")
	}
}

func hasDigit(s string) bool {
	for _, r := range s {
		if r >= '0' && r <= '9' || r > 0x7f && unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
