package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAlignDiff: the words sent against the words heard, as runs of one
// kind of edit, each showing the text it came from; long runs of matches
// keep diffContext words beside each divergence; heard text is inert.
func TestAlignDiff(t *testing.T) {
	words := func(from, to int) string {
		var w []string
		for i := from; i < to; i++ {
			w = append(w, "w"+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
		}
		return strings.Join(w, " ")
	}
	tests := []struct {
		name        string
		sent, heard string
		want        []alignOp
	}{
		{"each kind", "Press green, then <pause> blue red.", "press green then glue red black", []alignOp{
			{Op: "match", Sent: "Press green, then"}, {Op: "substitute", Sent: "blue", Heard: "glue"},
			{Op: "match", Sent: "red"}, {Op: "insert", Heard: "black"}}},
		{"a deleted tail", "river runs past mills", "river runs", []alignOp{
			{Op: "match", Sent: "river runs"}, {Op: "delete", Sent: "past mills"}}},
		{"long matches elided", words(0, 30), words(0, 15) + " zebra " + words(16, 30), []alignOp{
			{Op: "match", Skip: 10}, {Op: "match", Sent: words(10, 15)}, {Op: "substitute", Sent: words(15, 16), Heard: "zebra"},
			{Op: "match", Sent: words(16, 21)}, {Op: "match", Skip: 9}}},
		{"bidi and controls made visible", "hello world", "hello wor\u202e\x1bld xyz", []alignOp{
			{Op: "match", Sent: "hello"}, {Op: "insert", Heard: `wor\u202e\x1bld`}, {Op: "substitute", Sent: "world", Heard: "xyz"}}},
	}
	for _, tc := range tests {
		got, more, err := alignDiff(tc.sent, tc.heard)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || more != 0 {
			t.Errorf("%s: diff (-want +got):\n%s(more %d)", tc.name, diff, more)
		}
	}
}

// TestAlignDiffBounded: a transcript of 100 KB shows at most MaxDiffWords
// words and counts the rest; no run's text passes maxOpRunes (+ the mark).
func TestAlignDiffBounded(t *testing.T) {
	heard := strings.Repeat("<script>window.pwned=1</script> ", 100<<10/32) + strings.Repeat("a", 5000)
	got, more, err := alignDiff("good morning everyone", heard)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range got {
		if len([]rune(op.Sent)) > maxOpRunes+1 || len([]rune(op.Heard)) > maxOpRunes+1 {
			t.Errorf("a run of %d and %d characters, over %d", len([]rune(op.Sent)), len([]rune(op.Heard)), maxOpRunes)
		}
		n += len(strings.Fields(op.Sent)) + len(strings.Fields(op.Heard))
	}
	if more == 0 || n > 2*MaxDiffWords {
		t.Errorf("%d ops (%d words shown), %d more; want the words past %d counted, not shown", len(got), n, more, MaxDiffWords)
	}
}

// TestCueTextsBounded: the cues of one row hold at most MaxChunkTextRunes
// characters of text; past it, the cues go on without text, the row
// keeps its (clipped) text whole and says why.
func TestCueTextsBounded(t *testing.T) {
	chunk := strings.Repeat("ख", 2000)
	texts := make([]string, MaxChunkTextRunes/2000+5)
	for i := range texts {
		texts[i] = chunk
	}
	it := item{Text: "the text", Chunks: make([]cueView, len(texts))}
	it.setCueTexts(texts)
	shown := 0
	for _, c := range it.Chunks {
		shown += len([]rune(c.Text))
	}
	if shown != MaxChunkTextRunes || it.Text == "" || !strings.Contains(it.ChunkNote, "200,000 characters") {
		t.Errorf("%d characters in cues, row text %q, note %q; want %d, the row's text and a note", shown, it.Text, it.ChunkNote, MaxChunkTextRunes)
	}
	it = item{Text: "the text", Chunks: make([]cueView, 2)}
	if it.setCueTexts(texts[:2]); it.Text != "" || it.ChunkNote != "" {
		t.Errorf("two chunks of text: row text %q, note %q; want the text left to the cues", it.Text, it.ChunkNote)
	}
}
