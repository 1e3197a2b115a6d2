package transcript_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/transcript"
)

var spanTexts = []string{
	"my mobile number is 98765 43210, please note it",
	"मेरा मोबाइल नंबर 98765 43210 है, कृपया अपडेट कीजिए।",
	"जी मेरा आधार नंबर नौ आठ सात six पाँच डबल चार है",
	"card +91-98765-43210 @ a/c १२३४ (ok)",
}

// boundaries are the byte offsets of s that start a character, and len(s).
func boundaries(s string) []int {
	var b []int
	for i := range s {
		b = append(b, i)
	}
	return append(b, len(s))
}

// SpanTimes' results lie in the segment, contain the unpadded estimate
// widened by the pad, and are monotone in the span's ends: over every
// span of every text.
func TestSpanTimesProperties(t *testing.T) {
	seg := transcript.Segment{Start: 3 * time.Second, End: 9 * time.Second}
	pad := transcript.SpanPadFixed + time.Duration(transcript.SpanPadFraction*float64(seg.End-seg.Start))
	for _, text := range spanTexts {
		seg.Text = text
		b := boundaries(text)
		prevFrom := map[int]time.Duration{} // by end: from of the previous start
		for i, s := range b {
			prevTo := time.Duration(-1)
			for _, e := range b[i+1:] {
				from, to, ok := transcript.SpanTimes(seg, s, e)
				ef, et, eok := transcript.SpanEstimate(seg, s, e)
				if !ok || !eok {
					t.Fatalf("%q [%d,%d): not placed", text, s, e)
				}
				if from < seg.Start || to > seg.End || from > to || ef > et {
					t.Fatalf("%q [%d,%d): %v..%v (estimate %v..%v) outside the segment or backwards", text, s, e, from, to, ef, et)
				}
				if from != max(ef-pad, seg.Start) || to != min(et+pad, seg.End) {
					t.Fatalf("%q [%d,%d): %v..%v is not the estimate %v..%v padded by %v", text, s, e, from, to, ef, et, pad)
				}
				if to < prevTo {
					t.Fatalf("%q [%d,%d): ends at %v, before the shorter span's %v", text, s, e, to, prevTo)
				}
				if p, seen := prevFrom[e]; seen && from < p {
					t.Fatalf("%q [%d,%d): starts at %v, before the longer span's %v", text, s, e, from, p)
				}
				prevTo, prevFrom[e] = to, from
			}
		}
	}
}

// A number the transcript writes in digits takes the time it takes to say
// one digit at a time: its place in the segment is close to that of the
// same number written in words (English and Hindi), where weighting by
// bytes or characters would put it far off.
func TestSpanTimesWeighsDigitsAsWords(t *testing.T) {
	pairs := [][3]string{
		{"my number is ", "98765 43210", "nine eight seven six five four three two one zero"},
		{"मेरा नंबर ", "98765 43210", "नौ आठ सात छह पाँच चार तीन दो एक शून्य"},
	}
	for _, p := range pairs {
		for _, tail := range []string{" thank you, bye", " धन्यवाद, नमस्ते"} {
			digits := transcript.Segment{End: 8 * time.Second, Text: p[0] + p[1] + tail}
			words := transcript.Segment{End: 8 * time.Second, Text: p[0] + p[2] + tail}
			df, dt, _ := transcript.SpanEstimate(digits, len(p[0]), len(p[0])+len(p[1]))
			wf, wt, _ := transcript.SpanEstimate(words, len(p[0]), len(p[0])+len(p[2]))
			if d := (df - wf).Abs() + (dt - wt).Abs(); d > 400*time.Millisecond {
				t.Errorf("%q: digits at %v..%v, words at %v..%v", p[0]+p[1]+tail, df, dt, wf, wt)
			}
		}
	}
}

// Where a span cannot be placed, ok is false: the caller mutes the whole
// segment.
func TestSpanTimesFailsClosed(t *testing.T) {
	text := "मेरा नंबर 98765 है"
	ok := transcript.Segment{Start: time.Second, End: 4 * time.Second, Text: text}
	at := strings.Index(text, "9")
	cases := map[string]struct {
		seg        transcript.Segment
		start, end int
	}{
		"no duration":           {transcript.Segment{Start: time.Second, End: time.Second, Text: text}, at, at + 5},
		"ends before it starts": {transcript.Segment{Start: 2 * time.Second, End: time.Second, Text: text}, at, at + 5},
		"too long":              {transcript.Segment{End: transcript.MaxSpanSegment + time.Millisecond, Text: text}, at, at + 5},
		"empty span":            {ok, at, at},
		"backwards":             {ok, at + 5, at},
		"before the text":       {ok, -1, at},
		"past the text":         {ok, at, len(text) + 1},
		"inside a character":    {ok, 1, at},
		"ends inside one":       {ok, 0, len(text) - 1},
		"nothing spoken":        {transcript.Segment{End: time.Second, Text: " -- "}, 0, 4},
	}
	for name, c := range cases {
		if from, to, placed := transcript.SpanTimes(c.seg, c.start, c.end); placed {
			t.Errorf("%s: placed at %v..%v", name, from, to)
		}
	}
	if _, _, placed := transcript.SpanTimes(transcript.Segment{End: transcript.MaxSpanSegment, Text: text}, at, at+5); !placed {
		t.Error("a segment of MaxSpanSegment is refused")
	}
}

func FuzzSpanTimes(f *testing.F) {
	for _, s := range spanTexts {
		f.Add(s, 3, 20, int64(1500), int64(7000))
	}
	f.Fuzz(func(t *testing.T, text string, start, end int, from, to int64) {
		seg := transcript.Segment{Start: time.Duration(from) * time.Millisecond, End: time.Duration(to) * time.Millisecond, Text: text}
		a, b, ok := transcript.SpanTimes(seg, start, end)
		if !ok {
			return
		}
		if a < seg.Start || b > seg.End || a > b || !utf8.RuneStart(text[start]) {
			t.Fatalf("%v..%v for [%d,%d) of %+v", a, b, start, end, seg)
		}
	})
}
