package narration_test

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/narration"
)

// splitText builds texts from pieces that meet Split's edge cases: the
// sentence and clause marks of each script, numbers, tags (known,
// unknown, unclosed, 40 and 41 characters), conjuncts and joiners, every
// kind of white space, invalid UTF-8.
func splitText(r *rand.Rand, n int) string {
	pieces := []string{"a", "word", " ", "  ", "\n", "\n\n", "\t", "\u00a0", ".", "?", "!", "।", "॥", "…", "؟", "۔",
		",", ";", ":", "—", "–", "،", "\"", ")", "”", "3.5", "1,000", "₹2.50", "१२.५", "1800 123 456", "2026-10-01",
		"<laugh>", "<whispers>", "<clears throat>", "<x", ">", "<" + strings.Repeat("t", 40) + ">",
		"<" + strings.Repeat("t", 41) + ">", "क्ष", "त्रि", "ि", "्", "\u200d", "\u200c", "தமிழ்", "বাংলা", "\xff", "\xe0\xa4",
		"यह वाक्य है। ", "One sentence. ", "and a clause, "}
	var b strings.Builder
	for range r.Intn(n) {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// TestSplitPromises: Split keeps its promises (CheckChunks) for random
// texts at every size from 1 to 60 characters and a few larger ones, with
// and without anchors and tag repeats.
func TestSplitPromises(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for range 1000 {
		text := splitText(r, 40)
		for _, max := range []int{1, 2, 3, 5, 8, 13, 21, 34, 45, 60, 200} {
			for _, opts := range []narration.Options{{}, {RendersTags: true}, narration.Greedy(narration.Options{RendersTags: true})} {
				if err := narration.CheckChunks(text, max, opts, narration.Split(text, max, opts)); err != nil {
					t.Fatalf("Split(%q, %d, %+v): %v", text, max, opts, err)
				}
			}
		}
	}
}

// FuzzSplit: no panic, and the promises hold, for any text and size.
func FuzzSplit(f *testing.F) {
	r := rand.New(rand.NewSource(12))
	for i := range 20 {
		f.Add(splitText(r, 30), 1+i*3, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, text string, max int, tags bool) {
		if max > 1<<20 || max < -1 {
			max %= 1 << 20
		}
		opts := narration.Options{RendersTags: tags}
		chunks := narration.Split(text, max, opts)
		if err := narration.CheckChunks(text, max, opts, chunks); err != nil {
			t.Fatalf("Split(%q, %d, %v): %v", text, max, tags, err)
		}
	})
}

// isAnchor is the anchor rule, written again from Split's documentation.
func isAnchor(sentence string, max int) bool {
	h := fnv.New64a()
	h.Write([]byte(sentence))
	return h.Sum64()%uint64(max) < uint64(utf8.RuneCountInString(sentence))
}

// TestSplitAnchors: a chunk ends at an anchor although the next sentence
// would fit, and does not at a sentence end that is not one.
func TestSplitAnchors(t *testing.T) {
	const max = 60
	var anchor, plain string
	for k := 0; anchor == "" || plain == ""; k++ {
		s := fmt.Sprintf("Sentence number %d is here.", k)
		if isAnchor(s, max) {
			anchor = s
		} else {
			plain = s
		}
	}
	tests := []struct {
		text string
		want []string
	}{
		{anchor + " Short one. " + plain, []string{anchor, "Short one. " + plain}},
		{plain + " Short one. " + plain, []string{plain + " Short one.", plain}},
	}
	for _, tt := range tests {
		got := texts(narration.Split(tt.text, max, narration.Options{}))
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Split(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
