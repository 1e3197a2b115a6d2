package narration_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/narration"
)

// texts returns the sent texts of chunks.
func checkChunks(t *testing.T, text string, max int, opts narration.Options, chunks []narration.Chunk) {
	t.Helper()
	if err := narration.CheckChunks(text, max, opts, chunks); err != nil {
		t.Fatalf("Split(%.60q, %d): %v", text, max, err)
	}
}

func texts(chunks []narration.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Text
	}
	return out
}

// TestSplitCuts: where chunks end, in each script the service speaks, and
// what is never cut.
func TestSplitCuts(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"fits: unchanged, white space included", "  एक वाक्य। \n", 13, []string{"  एक वाक्य। \n"}},
		{"Devanagari danda", "यह पहला वाक्य है। यह दूसरा वाक्य है। यह तीसरा है॥ अंत।", 40,
			[]string{"यह पहला वाक्य है। यह दूसरा वाक्य है।", "यह तीसरा है॥ अंत।"}},
		{"Bengali danda", "আমি বাংলায় কথা বলি। তুমি কেমন আছ? আজ আবহাওয়া ভালো।", 35,
			[]string{"আমি বাংলায় কথা বলি। তুমি কেমন আছ?", "আজ আবহাওয়া ভালো।"}},
		{"Tamil full stops", "இது முதல் வாக்கியம். இது இரண்டாவது வாக்கியம். மூன்றாவது.", 45,
			[]string{"இது முதல் வாக்கியம். இது இரண்டாவது வாக்கியம்.", "மூன்றாவது."}},
		{"Latin, closing quotes", `He said "Stop." Then he left! Did she follow? No.`, 30,
			[]string{`He said "Stop." Then he left!`, "Did she follow? No."}},
		{"paragraph break without a mark", "First paragraph without a stop\n\nSecond one here", 35,
			[]string{"First paragraph without a stop", "Second one here"}},
		{"numbers are not sentence ends", "The rate rose 3.5 percent to ₹2.50 for 1,000 units. Then it fell.", 55,
			[]string{"The rate rose 3.5 percent to ₹2.50 for 1,000 units.", "Then it fell."}},
		{"native digits", "दर ३.५ प्रतिशत बढ़ी और १,००० लोग आए। फिर घटी।", 40,
			[]string{"दर ३.५ प्रतिशत बढ़ी और १,००० लोग आए।", "फिर घटी।"}},
		{"a long sentence at its last clause", "One long sentence, with a clause; and another clause: and words to the end.", 41,
			[]string{"One long sentence, with a clause;", "and another clause: and words to the end."}},
		{"an Urdu comma", "پہلا حصہ، دوسرا حصہ اور بہت سے الفاظ", 20, []string{"پہلا حصہ،", "دوسرا حصہ اور بہت سے", "الفاظ"}},
		{"a dash before a letter", "alpha beta—gamma delta epsilon", 16, []string{"alpha beta—", "gamma delta", "epsilon"}},
		{"a line break before a space", "a verse line one\nand line two of it", 24, []string{"a verse line one", "and line two of it"}},
		{"words when there is no clause", "one two three four five six seven eight", 15,
			[]string{"one two three", "four five six", "seven eight"}},
		{"a phone number is one word", "call 1800 123 456 today", 14, []string{"call", "1800 123 456", "today"}},
		{"a word longer than max", "abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"conjuncts and vowel signs stay whole", "क्षत्रियक्षत्रिय", 5, []string{"क्ष", "त्रिय", "क्ष", "त्रिय"}},
		{"a tag is never cut", "ab<clears throat>cdefgh", 10, []string{"ab", "<clears throat>", "cdefgh"}},
		{"a sentence end before a tag", "It was funny.<laugh> Then it was not.", 25, []string{"It was funny.", "<laugh> Then it was not."}},
		{"a tag goes with what follows", "Words here. <whispers> quiet words follow", 22,
			[]string{"Words here.", "<whispers> quiet words", "follow"}},
		{"white space at cuts is not sent", "  Lead.   Next one.\n\n\tPara two here.  ", 12,
			[]string{"Lead.", "Next one.", "Para two", "here."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := narration.Split(tt.text, tt.max, narration.Greedy(narration.Options{}))
			if diff := cmp.Diff(tt.want, texts(got)); diff != "" {
				t.Errorf("Split(%q, %d) (-want +got):\n%s", tt.text, tt.max, diff)
			}
			checkChunks(t, tt.text, tt.max, narration.Options{}, got)
		})
	}
}

// TestSplitOffsets: the spans cover the text, white space at a cut going
// to the chunk before it; the sent part is the span without its ends.
func TestSplitOffsets(t *testing.T) {
	text := " One two. Three four.\n\nFive. "
	got := narration.Split(text, 10, narration.Greedy(narration.Options{}))
	want := []narration.Chunk{
		{Start: 0, End: 10, TextStart: 1, TextEnd: 9, Text: "One two.", Characters: 8},
		{Start: 10, End: 16, TextStart: 10, TextEnd: 15, Text: "Three", Characters: 5},
		{Start: 16, End: 23, TextStart: 16, TextEnd: 21, Text: "four.", Characters: 5},
		{Start: 23, End: 29, TextStart: 23, TextEnd: 28, Text: "Five.", Characters: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Split (-want +got):\n%s", diff)
	}
}

// TestSplitRepeatsTags: with a model that renders tags, a chunk starts
// with the tag in effect where it starts, which its Characters count;
// without, nothing is added.
// conformance: TTS-054, TTS-060
func TestSplitRepeatsTags(t *testing.T) {
	text := "Neutral start here. <whispers>Quiet one. Quiet two. <excited>Loud one! Loud two! Loud three!"
	tests := []struct {
		name string
		opts narration.Options
		want []string
	}{
		{"tts-v3.0", narration.Options{RendersTags: true}, []string{
			"Neutral start here.",
			"<whispers>Quiet one. Quiet two.",
			"<excited>Loud one! Loud two!",
			"<excited>Loud three!",
		}},
		{"a model that strips tags", narration.Options{}, []string{
			"Neutral start here.",
			"<whispers>Quiet one. Quiet two.",
			"<excited>Loud one! Loud two!",
			"Loud three!",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := narration.Split(text, 32, narration.Greedy(tt.opts))
			if diff := cmp.Diff(tt.want, texts(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			last := got[len(got)-1]
			if tt.opts.RendersTags && (last.Prefix != "<excited>" || last.Characters != 20) {
				t.Errorf("last chunk: prefix %q, %d characters; want <excited>, 20 (the repeat is billed)", last.Prefix, last.Characters)
			}
			checkChunks(t, text, 32, tt.opts, got)
		})
	}
}

// TestSplitTagCarriesOver: a tag applies until the next one, across
// chunks that hold no tag.
func TestSplitTagCarriesOver(t *testing.T) {
	text := "<slow>" + strings.Repeat("Word after word. ", 8)
	got := narration.Split(text, 40, narration.Options{RendersTags: true})
	if len(got) < 3 {
		t.Fatalf("%d chunks, want 3 or more", len(got))
	}
	for i, c := range got {
		if !strings.HasPrefix(c.Text, "<slow>") || (i == 0) != (c.Prefix == "") {
			t.Errorf("chunk %d: %q, prefix %q", i, c.Text, c.Prefix)
		}
	}
	checkChunks(t, text, 40, narration.Options{RendersTags: true}, got)
}

// chapter builds a chapter of n sentences of Hindi-like text in
// paragraphs, reproducibly.
func chapter(r *rand.Rand, n int) []string {
	words := []string{"यह", "एक", "लंबा", "अध्याय", "है", "जिसमें", "बहुत", "सारे", "वाक्य", "हैं", "और", "कहानी",
		"आगे", "बढ़ती", "क्षत्रिय", "राजा", "ने", "कहा", "पर्वत", "नदी", "के", "किनारे", "गाँव", "में"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 6 + r.Intn(30) {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte(' ')
		}
		end := "। "
		if r.Intn(8) == 0 {
			end = "।\n\n"
		}
		out[i] = strings.TrimSuffix(b.String(), " ") + end
	}
	return out
}

// TestSplitEditIsLocal: editing one sentence of a 100,000-character
// chapter changes the chunks around it only: the anchors resynchronise
// the cuts after it. Over 300 such edits, 1.4 chunks changed on average
// and 5 at worst; greedy packing alone changed 5.7 on average, 30 at
// worst (a chunk that gains a word pushes a sentence into the next, and
// so on to the end).
func TestSplitEditIsLocal(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const limit = 5000
	sentences := chapter(r, 1400)
	text := strings.Join(sentences, "")
	if n := utf8.RuneCountInString(text); n < 100_000 {
		t.Fatalf("chapter of %d characters, want 100,000 or more", n)
	}
	before := map[string]bool{}
	for _, c := range narration.Split(text, limit, narration.Options{}) {
		before[c.Text] = true
	}
	total, worst, edits := 0, 0, 30
	for e := range edits {
		i := r.Intn(len(sentences))
		edited := append([]string(nil), sentences...)
		switch e % 3 {
		case 0: // a word changed
			edited[i] = strings.Replace(edited[i], " ", " नया ", 1)
		case 1: // the sentence rewritten, longer
			edited[i] = chapter(r, 1)[0] + chapter(r, 1)[0]
		case 2: // the sentence removed
			edited[i] = ""
		}
		changed := 0
		after := narration.Split(strings.Join(edited, ""), limit, narration.Options{})
		for _, c := range after {
			if !before[c.Text] {
				changed++
			}
		}
		total += changed
		worst = max(worst, changed)
	}
	if mean := float64(total) / float64(edits); mean > 2 || worst > 6 {
		t.Errorf("an edit of one sentence changed %.2f chunks on average, %d at worst; want at most 2 and 6", mean, worst)
	}
}

// TestSplitLinear: texts that would make a quadratic splitter take
// hours take seconds at most (1 MiB each).
func TestSplitLinear(t *testing.T) {
	const n = 1 << 20
	tests := []struct {
		name string
		text string
		max  int
	}{
		{"one long word", strings.Repeat("a", n), 1000},
		{"one long word, small chunks", strings.Repeat("क्ष", n/9), 7},
		{"words, no sentence", strings.Repeat("ab ", n/3), 5000},
		{"short sentences", strings.Repeat("A. ", n/3), 5000},
		{"tags without text", strings.Repeat("<x>", n/3), 5000},
		{"tags, tiny chunks", strings.Repeat("<whispers>a. ", n/13), 12},
		{"digits with spaces", strings.Repeat("1 ", n/2), 5000},
		{"unclosed tags", strings.Repeat("<"+strings.Repeat("y", 39), n/40), 5000},
		{"white space", "a" + strings.Repeat(" ", n) + "b", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			chunks := narration.Split(tt.text, tt.max, narration.Options{RendersTags: true})
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v for %d bytes", d, len(tt.text))
			}
			checkChunks(t, tt.text, tt.max, narration.Options{RendersTags: true}, chunks)
		})
	}
}

// TestSplitDeterministic: the same input gives the same chunks.
func TestSplitDeterministic(t *testing.T) {
	text := strings.Join(chapter(rand.New(rand.NewSource(3)), 400), "")
	a := narration.Split(text, 3000, narration.Options{})
	b := narration.Split(text, 3000, narration.Options{})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Error(diff)
	}
	if len(a) < 5 {
		t.Errorf("%d chunks of a %d-character text at 3,000", len(a), utf8.RuneCountInString(text))
	}
}

func ExampleSplit() {
	text := "<whispers>पहला वाक्य धीरे से। दूसरा वाक्य भी धीरे से। तीसरा वाक्य।"
	for _, c := range narration.Split(text, 40, narration.Options{RendersTags: true}) {
		fmt.Printf("%d-%d %q (%d characters)\n", c.Start, c.End, c.Text, c.Characters)
	}
	// Output:
	// 0-62 "<whispers>पहला वाक्य धीरे से।" (29 characters)
	// 62-124 "<whispers>दूसरा वाक्य भी धीरे से।" (33 characters)
	// 124-158 "<whispers>तीसरा वाक्य।" (22 characters)
}
