package listen

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckMetrics(t *testing.T) {
	for _, c := range []struct {
		name              string
		sent, heard       string
		wer, cer          float64
		run, tail         int
		failing           []string // measure names, in order
		subs, dels, inses int
	}{
		{name: "equal but for punctuation and case", sent: "Hello, World! How are you?", heard: "hello world how are you"},
		{name: "one substitution", sent: "alpha beta gamma delta", heard: "alpha bravo gamma delta",
			wer: 0.25, cer: 4.0 / 22, run: 1, subs: 1},
		{name: "character edits inside a word", sent: "the kitten sat", heard: "the sitting sat",
			wer: 1.0 / 3, cer: 3.0 / 14, run: 1, subs: 1},
		{name: "a deleted word costs its space, and is no noise", sent: "a bb c", heard: "a c",
			wer: 1.0 / 3, cer: 3.0 / 6, run: 1, dels: 1, failing: []string{MeasureCER}},
		{name: "babble heard where the text has none", sent: "alpha beta gamma delta", heard: "alpha beta zz yy xx gamma delta",
			wer: 0.75, cer: 9.0 / 22, run: 3, inses: 3, failing: []string{MeasureCER, MeasureWER, MeasureLongestRun}},
		{name: "two misheard words are noise", sent: "alpha beta gamma delta epsilon zeta", heard: "alpha bet gamma delta epsilon zet",
			wer: 2.0 / 6, cer: 2.0 / 35, run: 1, tail: 1, subs: 2},
		{name: "two misheard words of four are not noise", sent: "alpha beta gamma delta", heard: "alpha bet gamma delt",
			wer: 0.5, cer: 2.0 / 22, run: 1, tail: 1, subs: 2, failing: []string{MeasureWER}},
		{name: "three misheard words are not noise", sent: "alpha beta gamma delta epsilon", heard: "alphx beta gammx delta epsilx",
			wer: 0.6, cer: 4.0 / 30, run: 1, tail: 1, subs: 3, failing: []string{MeasureWER}},
		{name: "the end not heard", sent: "alpha beta gamma delta epsilon", heard: "alpha beta gamma",
			wer: 0.4, cer: 14.0 / 30, run: 2, tail: 2, dels: 2, failing: []string{MeasureCER, MeasureMissingTail}},
		{name: "nothing heard", sent: "alpha beta", heard: "",
			wer: 1, cer: 1, run: 2, tail: 2, dels: 2, failing: []string{MeasureSilence, MeasureCER, MeasureWER, MeasureMissingTail}},
		{name: "nothing sent, nothing heard", sent: "।", heard: ""},
		{name: "nothing sent, a word heard", sent: "", heard: "hmm", wer: 1, cer: 1, run: 1, inses: 1,
			failing: []string{MeasureCER, MeasureWER}},
		{name: "longer garbage is capped at 1", sent: "alpha", heard: "zz yy xx ww vv",
			wer: 1, cer: 1, run: 5, tail: 1, subs: 1, inses: 4, failing: []string{MeasureCER, MeasureWER, MeasureLongestRun}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Check(c.sent, c.heard, DefaultThresholds())
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.WER, c.wer) || !near(r.CER, c.cer) {
				t.Errorf("WER %v CER %v, want %v and %v", r.WER, r.CER, c.wer, c.cer)
			}
			if r.LongestRun.Words() != c.run || r.MissingTail != c.tail {
				t.Errorf("longest run %d, missing tail %d, want %d and %d", r.LongestRun.Words(), r.MissingTail, c.run, c.tail)
			}
			if r.Substitutions != c.subs || r.Deletions != c.dels || r.Insertions != c.inses {
				t.Errorf("S %d D %d I %d, want %d %d %d", r.Substitutions, r.Deletions, r.Insertions, c.subs, c.dels, c.inses)
			}
			if diff := cmp.Diff(c.failing, failingNames(r)); diff != "" {
				t.Errorf("failing measures (-want +got):\n%s\nfailures %q", diff, r.Failures)
			}
			if r.Pass != (len(c.failing) == 0) || len(r.Failures) != len(c.failing) {
				t.Errorf("pass %v with failures %q", r.Pass, r.Failures)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func failingNames(r Result) []string {
	var out []string
	for _, m := range r.Measures {
		if !m.Pass && !m.Waived {
			out = append(out, m.Name)
		}
	}
	return out
}

// TestCheckNoiseWords: one misheard word of a three-word prompt is a
// large rate, forgiven as noise at the default; without the allowance it
// fails, as two misheard words of four do, and a word missing is never
// forgiven as noise.
func TestCheckNoiseWords(t *testing.T) {
	th := DefaultThresholds()
	r, err := Check("call the supervisor", "call the superman", th)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Pass || !r.Measures[0].Waived || r.Measures[0].Name != MeasureCER {
		t.Errorf("one word in three at the defaults: pass %v, measures %+v; want a pass with the CER waived", r.Pass, r.Measures)
	}
	th.NoiseWords = 0
	if r, _ := Check("call the supervisor", "call the superman", th); r.Pass {
		t.Errorf("one word in three with NoiseWords 0 passes: %+v", r.Measures)
	}
	if r, _ := Check("hold the line now", "told the lime now", DefaultThresholds()); r.Pass {
		t.Errorf("two words in four pass as noise: %+v", r.Measures)
	}
	if r, _ := Check("hold the line now", "hold the line", DefaultThresholds()); r.Pass {
		t.Errorf("a word missing is forgiven as noise: %+v", r.Measures)
	}
}

// TestCheckSpanOfGarbledRun: the longest run names its word range in the
// text sent, both sides' words, and the source text it came from.
func TestCheckSpanOfGarbledRun(t *testing.T) {
	sent := "We open at nine. Your parcel, number 42, leaves the depot today; thank you."
	heard := "we open at nine your parcel number 42 blah blah blah today thank you"
	r, err := Check(sent, heard, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	want := Span{RefStart: 8, RefEnd: 11, HypStart: 8, HypEnd: 11,
		Sent: "leaves the depot", Heard: "blah blah blah", SentText: "leaves the depot", HeardText: "blah blah blah"}
	if diff := cmp.Diff(want, r.LongestRun); diff != "" {
		t.Errorf("longest run (-want +got):\n%s", diff)
	}
	if r.Pass || !strings.Contains(strings.Join(r.Failures, "\n"), `longest_run: 3 words over 2: sent "leaves the depot" (words 9 to 11), heard "blah blah blah"`) {
		t.Errorf("failures %q", r.Failures)
	}
}

func TestThresholdsValidate(t *testing.T) {
	for _, c := range []struct {
		change func(*Thresholds)
		want   string
	}{
		{func(t *Thresholds) { t.MaxCER = -0.1 }, "listen thresholds: max_cer is -0.1, not a rate from 0 to 1"},
		{func(t *Thresholds) { t.MaxWER = 1.5 }, "listen thresholds: max_wer is 1.5, not a rate from 0 to 1"},
		{func(t *Thresholds) { t.MaxWER = math.NaN() }, "listen thresholds: max_wer is NaN, not a rate from 0 to 1"},
		{func(t *Thresholds) { t.MaxRun = -1 }, "listen thresholds: max_run is -1, below 0"},
		{func(t *Thresholds) { t.MaxMissingTail = -2 }, "listen thresholds: max_missing_tail is -2, below 0"},
		{func(t *Thresholds) { t.NoiseWords = -3 }, "listen thresholds: noise_words is -3, below 0"},
	} {
		th := DefaultThresholds()
		c.change(&th)
		if _, err := Check("a", "a", th); err == nil || err.Error() != c.want {
			t.Errorf("Check with %+v: error %v, want %q", th, err, c.want)
		}
	}
	if err := DefaultThresholds().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
