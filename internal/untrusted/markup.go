package untrusted

import (
	"html"
	"strings"
)

// markupText drops tags, comments, and script and style contents from
// HTML or XML, leaving the words between them (enough of them for an
// excerpt).
func markupText(s string) string {
	var b strings.Builder
	for len(s) > 0 && b.Len() < 4*MaxExcerpt {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i:]
		end := ">"
		switch {
		case strings.HasPrefix(s, "<!--"):
			end = "-->"
		case indexFold(s[:min(len(s), 7)], "<script") == 0:
			end = "</script>"
		case indexFold(s[:min(len(s), 6)], "<style") == 0:
			end = "</style>"
		}
		j := indexFold(s, end)
		if j < 0 {
			break
		}
		s = s[j+len(end):]
	}
	return html.UnescapeString(b.String())
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
