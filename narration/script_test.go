package narration_test

import (
	"testing"

	"github.com/voxform/voxform/narration"
)

// TestSpoken: audio tags are taken out of what a check compares, words
// either side of a tag stay apart, and a text without tags is itself.
func TestSpoken(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"plain text", "plain text"},
		{"<laugh> hello there", " hello there"},
		{"hello <sigh> there", "hello  there"},
		{"one<pause>two", "one two"},
		{"one<a><b>two", "one two"},
		{"end<laugh>", "end"},
		{"a < b > c", "a  c"},    // a tag by its syntax: its name is " b "
		{"x <\n> y", "x <\n> y"}, // a newline ends a tag's name
		{"नमस्ते<whisper>दोस्त", "नमस्ते दोस्त"},
	} {
		if got := narration.Spoken(c.text); got != c.want {
			t.Errorf("Spoken(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestDominantScript: the script and its share among the letters, tags
// not counted (a Hindi text with English tag names stays all Devanagari).
func TestDominantScript(t *testing.T) {
	for _, c := range []struct {
		text   string
		script string
		share  float64
	}{
		{"नमस्ते <laugh> <clears throat> दोस्त", "Devanagari", 1},
		{"abcd नमस", "Latin", 4.0 / 7},
		{"<laugh>", "", 0},
		{"12 34", "", 0},
	} {
		s, share := narration.DominantScript(c.text)
		if s != c.script || share != c.share {
			t.Errorf("DominantScript(%q) = %q, %v; want %q, %v", c.text, s, share, c.script, c.share)
		}
	}
}
