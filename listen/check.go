package listen

import (
	"fmt"
	"math"
	"strings"

	"github.com/voxform/voxform/internal/numfmt"
)

// Thresholds are the limits a check holds a transcript to. The zero value
// fails everything but an exact match; start from DefaultThresholds.
type Thresholds struct {
	// MaxCER is the highest character error rate that passes.
	MaxCER float64
	// MaxWER is the highest word error rate that passes.
	MaxWER float64
	// MaxRun is the longest diverging run, in words, that passes.
	MaxRun int
	// MaxMissingTail is how many words at the end of the text may go
	// unheard.
	MaxMissingTail int
	// NoiseWords: a transcript that differs from the text only by at most
	// this many substituted words (none missing, none extra, none a
	// number, and the text at least three words long for each) passes
	// MaxCER and MaxWER whatever its rates.
	NoiseWords int
}

// DefaultThresholds are the limits used when a manifest names none; the
// package documentation gives the reason for each.
func DefaultThresholds() Thresholds {
	return Thresholds{MaxCER: 0.20, MaxWER: 0.40, MaxRun: 2, MaxMissingTail: 1, NoiseWords: 2}
}

// Validate refuses a limit no check could use: a rate outside [0,1] or
// not a number, a negative count.
func (t Thresholds) Validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"max_cer", t.MaxCER}, {"max_wer", t.MaxWER}} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			return fmt.Errorf("listen thresholds: %s is %v, not a rate from 0 to 1", r.name, r.v)
		}
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"max_run", t.MaxRun}, {"max_missing_tail", t.MaxMissingTail}, {"noise_words", t.NoiseWords}} {
		if c.v < 0 {
			return fmt.Errorf("listen thresholds: %s is %d, below 0", c.name, c.v)
		}
	}
	return nil
}

// The names of the measures, as Measure.Name gives them.
const (
	MeasureCER         = "cer"
	MeasureWER         = "wer"
	MeasureLongestRun  = "longest_run"
	MeasureMissingTail = "missing_tail"
	MeasureSilence     = "silence"
	MeasureNumbers     = "numbers"
)

// MaxTextBytes bounds each side of a check before anything is done with
// it: a chunk's text and its transcript are a few kilobytes.
const MaxTextBytes = 1 << 20

// Measure is one metric against its limit.
type Measure struct {
	Name  string
	Value float64
	Limit float64
	Pass  bool
	// Waived: over the limit, yet passing because the transcript differs
	// only by at most NoiseWords substituted words (a rate measure only).
	Waived bool
}

// Span is a maximal run of edits without a match: reference words
// [RefStart, RefEnd) were heard as transcript words [HypStart, HypEnd).
// Sent and Heard are those normalized words; SentText and HeardText the
// stretch of each text (in NFC) they were made from, punctuation between
// them included.
type Span struct {
	RefStart, RefEnd    int
	HypStart, HypEnd    int
	Sent, Heard         string
	SentText, HeardText string
}

// Words is the span's length: the larger of its two sides, so that words
// heard where the text has none count as much as words not heard.
func (s Span) Words() int { return max(s.RefEnd-s.RefStart, s.HypEnd-s.HypStart) }

// Result is a check's verdict and everything it was made from.
type Result struct {
	Pass bool
	// Measures holds, in order, silence (only when nothing was heard of
	// a text with words), cer, wer, longest_run and missing_tail.
	Measures []Measure
	// Failures says why the check failed, one line per failing measure.
	Failures []string

	CER, WER                             float64
	CharEdits, RefChars                  int
	RefWords, HypWords                   int
	Substitutions, Deletions, Insertions int
	LongestRun                           Span // zero when nothing diverges
	MissingTail                          int
	Spans                                []Span
	Edits                                []Edit
	Sent, Heard                          Normalized
}

// Check compares what was heard with what was sent: both are normalized,
// aligned word by word and measured against t. The error is for bad
// thresholds and for a text over MaxWords; a transcript that says nothing
// like the text is a failing Result, not an error.
func Check(sent, heard string, t Thresholds) (Result, error) {
	if err := t.Validate(); err != nil {
		return Result{}, err
	}
	for _, side := range []struct{ name, text string }{{"text sent", sent}, {"transcript", heard}} {
		if len(side.text) > MaxTextBytes {
			return Result{}, fmt.Errorf("check listening: the %s has %s bytes, over the limit of %s (listen.MaxTextBytes)",
				side.name, numfmt.Thousands(len(side.text)), numfmt.Thousands(MaxTextBytes))
		}
	}
	r := Result{Sent: Normalize(sent), Heard: Normalize(heard)}
	ref, hyp := r.Sent.Strings(), r.Heard.Strings()
	edits, err := Align(ref, hyp)
	if err != nil {
		return Result{}, fmt.Errorf("check listening: %w", err)
	}
	r.Edits, r.RefWords, r.HypWords = edits, len(ref), len(hyp)
	r.count()
	r.Spans = spans(edits, r.Sent, r.Heard)
	for _, s := range r.Spans {
		r.CharEdits += charEdits(s, len(ref), len(hyp))
		if s.Words() > r.LongestRun.Words() {
			r.LongestRun = s
		}
	}
	r.RefChars = chars(ref)
	r.WER = rate(r.Substitutions+r.Deletions+r.Insertions, r.RefWords, r.HypWords)
	r.CER = rate(r.CharEdits, r.RefChars, r.HypWords)
	r.judge(t)
	return r, nil
}

// count tallies the edits and the unheard words at the end.
func (r *Result) count() {
	r.MissingTail = r.RefWords
	for _, e := range r.Edits {
		switch e.Op {
		case Substitute:
			r.Substitutions++
		case Delete:
			r.Deletions++
		case Insert:
			r.Insertions++
		case Match:
			r.MissingTail = r.RefWords - e.Ref - 1
		}
	}
}

// rate is edits per reference unit, capped at 1: past 1 the transcript is
// only longer garbage, and the counts in Result keep the exact figure. An
// empty reference scores 0 against an empty transcript, 1 against any
// other.
func rate(edits, refUnits, hypWords int) float64 {
	if refUnits == 0 {
		if hypWords == 0 {
			return 0
		}
		return 1
	}
	return min(1, float64(edits)/float64(refUnits))
}

// chars counts the runes of the words joined by single spaces.
func chars(words []string) int {
	n := max(len(words)-1, 0)
	for _, w := range words {
		n += len([]rune(w))
	}
	return n
}

// judge measures r against t.
func (r *Result) judge(t Thresholds) {
	numbers := r.numbersEdited()
	noise := r.Deletions+r.Insertions == 0 && r.Substitutions <= t.NoiseWords && 3*r.Substitutions <= r.RefWords && numbers == 0
	if r.RefWords > 0 && r.HypWords == 0 {
		r.add(Measure{Name: MeasureSilence, Value: 1, Limit: 0}, fmt.Sprintf("nothing heard of %d words sent", r.RefWords))
	}
	if numbers > 0 {
		r.add(Measure{Name: MeasureNumbers, Value: float64(numbers), Limit: 0}, fmt.Sprintf("%d number(s) not heard as sent", numbers))
	}
	for _, m := range []Measure{{Name: MeasureCER, Value: r.CER, Limit: t.MaxCER}, {Name: MeasureWER, Value: r.WER, Limit: t.MaxWER}} {
		m.Pass = m.Value <= m.Limit
		m.Waived = !m.Pass && noise
		r.add(m, fmt.Sprintf("%.3f over %.3f", m.Value, m.Limit))
	}
	run := r.LongestRun
	m := Measure{Name: MeasureLongestRun, Value: float64(run.Words()), Limit: float64(t.MaxRun)}
	m.Pass = run.Words() <= t.MaxRun
	r.add(m, fmt.Sprintf("%d words over %d: %s", run.Words(), t.MaxRun, run))
	m = Measure{Name: MeasureMissingTail, Value: float64(r.MissingTail), Limit: float64(t.MaxMissingTail)}
	m.Pass = r.MissingTail <= t.MaxMissingTail
	r.add(m, fmt.Sprintf("the last %d words sent were not heard, over %d", r.MissingTail, t.MaxMissingTail))
	r.Pass = len(r.Failures) == 0
}

// numbersEdited counts the edits in which a number takes part, on either
// side: a wrong amount, digit or phone number is never recognition noise
// (after normalization a number, written or spoken, is its digits).
func (r *Result) numbersEdited() int {
	n := 0
	for _, e := range r.Edits {
		if e.Op != Match && (e.Op != Insert && hasDigit(r.Sent.Words[e.Ref].Text) || e.Op != Delete && hasDigit(r.Heard.Words[e.Hyp].Text)) {
			n++
		}
	}
	return n
}

// hasDigit reports whether w holds an ASCII digit.
func hasDigit(w string) bool { return strings.ContainsAny(w, "0123456789") }

// add records m and, when it fails, why.
func (r *Result) add(m Measure, why string) {
	r.Measures = append(r.Measures, m)
	if !m.Pass && !m.Waived {
		r.Failures = append(r.Failures, m.Name+": "+why)
	}
}

// spans gathers the maximal runs of edits without a match.
func spans(edits []Edit, sent, heard Normalized) []Span {
	var out []Span
	for i := 0; i < len(edits); {
		if edits[i].Op == Match {
			i++
			continue
		}
		j := i
		for j < len(edits) && edits[j].Op != Match {
			j++
		}
		s := Span{RefStart: edits[i].Ref, HypStart: edits[i].Hyp, RefEnd: edits[i].Ref, HypEnd: edits[i].Hyp}
		for _, e := range edits[i:j] {
			if e.Op != Insert {
				s.RefEnd = e.Ref + 1
			}
			if e.Op != Delete {
				s.HypEnd = e.Hyp + 1
			}
		}
		s.Sent, s.SentText = side(sent, s.RefStart, s.RefEnd)
		s.Heard, s.HeardText = side(heard, s.HypStart, s.HypEnd)
		out = append(out, s)
		i = j
	}
	return out
}

// side is the normalized words [i, j) of n and the source text they span.
func side(n Normalized, i, j int) (words, text string) {
	if i >= j {
		return "", ""
	}
	ws := make([]string, 0, j-i)
	start, end := n.Words[i].Start, n.Words[i].End
	for _, w := range n.Words[i:j] {
		ws = append(ws, w.Text)
		start, end = min(start, w.Start), max(end, w.End)
	}
	return strings.Join(ws, " "), n.Text[start:end]
}

// String shows the span for a report: where it is in the text sent and
// what each side says there.
func (s Span) String() string {
	at := fmt.Sprintf("words %d to %d", s.RefStart+1, s.RefEnd)
	if s.RefStart == s.RefEnd {
		at = fmt.Sprintf("after word %d", s.RefStart)
	}
	return fmt.Sprintf("sent %q (%s), heard %q", s.Sent, at, s.Heard)
}
