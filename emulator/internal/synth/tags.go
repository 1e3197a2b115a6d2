package synth

import "strings"

// part is a piece of the request text: plain text, or an audio tag that the
// model renders (speech-synthesis.md, "Audio tags").
type part struct {
	Text string
	Tag  string // non-empty for a rendered tag: its exact name
}

// parseTags splits text into parts. A tag is "<" name ">" with no "<" or
// ">" inside. With render (tts-v3.0) the documented tags are kept and an
// unknown tag is stripped silently (rule 3); otherwise every tag is removed
// (rule 4, and SPEC section 8a for tts-v2.0 and vc-v1).
func parseTags(text string, render bool) []part {
	var parts []part
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			parts = append(parts, part{Text: plain.String()})
			plain.Reset()
		}
	}
	for len(text) > 0 {
		open := strings.IndexByte(text, '<')
		if open < 0 {
			plain.WriteString(text)
			break
		}
		plain.WriteString(text[:open])
		rest := text[open+1:]
		end := strings.IndexAny(rest, "<>")
		if end < 0 || rest[end] == '<' {
			// Not a tag: a lone "<" is text.
			plain.WriteByte('<')
			text = rest
			continue
		}
		name := rest[:end]
		text = rest[end+1:]
		if _, known := tags[name]; known && render {
			flush()
			parts = append(parts, part{Tag: name})
		}
	}
	flush()
	return parts
}

// spokenText is the text said aloud: the plain parts joined.
func spokenText(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Tag == "" {
			b.WriteString(p.Text)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// hasRenderedTag reports whether a part makes sound or silence of its own.
func hasRenderedTag(parts []part) bool {
	for _, p := range parts {
		if p.Tag != "" {
			return true
		}
	}
	return false
}
