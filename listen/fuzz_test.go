package listen

import (
	"math"
	"strings"
	"testing"
	"time"
)

// FuzzCheck: any two texts are checked without a panic and in bounded
// time; the rates lie in [0, 1]; the edit script replays; every span lies
// inside both texts; a text checked against itself passes.
func FuzzCheck(f *testing.F) {
	for _, s := range [][2]string{
		{"नमस्ते, आपका खाता तैयार है।", "नमस्ते आपका खाता तैयार"},
		{"₹1,500.50 at seven in the evening", "fifteen hundred rupees and fifty paise 19:00"},
		{"twenty first of August nineteen ninety", "21st August 1990"},
		{"double nine one lakh", "99 100000"},
		{"क्\u200dष ৩৪ ੧੨ ૧૨ ୧୨ ௧௨ ౧౨ ೧೨ ൧൨", ""},
		{"don't 1,2,3.4.5:6 ,.,", "'"},
		{"", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, sent, heard string) {
		start := time.Now()
		r, err := Check(sent, heard, DefaultThresholds())
		if err != nil {
			if !strings.Contains(err.Error(), "listen.MaxWords") {
				t.Fatalf("Check: %v", err)
			}
			return
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Check of %d and %d bytes took %v", len(sent), len(heard), d)
		}
		for _, v := range []float64{r.WER, r.CER} {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("rate %v outside [0, 1]: %+v", v, r.Measures)
			}
		}
		ref, hyp := r.Sent.Strings(), r.Heard.Strings()
		if built, _ := replay(t, ref, hyp, r.Edits); strings.Join(built, "\x00") != strings.Join(hyp, "\x00") {
			t.Fatalf("edits build %q, want %q", built, hyp)
		}
		if r.MissingTail < 0 || r.MissingTail > r.RefWords || r.LongestRun.Words() > max(r.RefWords, r.HypWords) {
			t.Fatalf("missing tail %d, longest run %d of %d and %d words", r.MissingTail, r.LongestRun.Words(), r.RefWords, r.HypWords)
		}
		for _, s := range r.Spans {
			if s.RefStart > s.RefEnd || s.RefEnd > len(ref) || s.HypStart > s.HypEnd || s.HypEnd > len(hyp) {
				t.Fatalf("span %+v outside %d and %d words", s, len(ref), len(hyp))
			}
		}
		for _, n := range []Normalized{r.Sent, r.Heard} {
			for _, w := range n.Words {
				if w.Start < 0 || w.Start >= w.End || w.End > len(n.Text) {
					t.Fatalf("word %+v outside its text of %d bytes", w, len(n.Text))
				}
			}
		}
		if self, _ := Check(sent, sent, DefaultThresholds()); !self.Pass || self.WER != 0 || self.CER != 0 {
			t.Fatalf("%q against itself: %+v", sent, self.Measures)
		}
	})
}
