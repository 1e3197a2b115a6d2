package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/transcript"
)

// The spantime step measures transcript.SpanTimes, which places a span of
// a segment's text (a number a customer reads out) in the segment's time:
// for each utterance of a generated corpus, espeak-ng says the whole
// utterance, the text before the span, and the text up to the span's end,
// each separately; where each of the last two stops speaking is where the
// span truly starts and ends in the first. The corpus is English and
// Hindi, the numbers (mobile, Aadhaar, card) as digits in the transcript
// (the ITN form: said one digit at a time, written "98765 43210") or as
// number words (Hindi and English ones mixed in the Hindi utterances), at
// the start, middle and end of the utterance, at two speaking rates.

// spanCase is one utterance: the transcript's text and the span in it,
// and what is said (the digits one by one where the text has them).
type spanCase struct {
	group            string
	voice            string
	text             string
	start, end       int // the span's bytes in text
	said, saidBefore string
	saidThrough      string
}

var spanTemplates = map[string][]string{
	"en": {
		"my mobile number is {N}",
		"{N} is my mobile number, please update it",
		"sure, my aadhaar number is {N} and the name is Ravi Kumar",
		"the card number is {N}, expiry is next year",
		"yes, please note it down, {N}, thank you",
	},
	"hi": {
		"मेरा मोबाइल नंबर {N} है",
		"{N} यह मेरा नंबर है, कृपया अपडेट कीजिए",
		"जी, मेरा आधार नंबर {N} है और नाम रवि कुमार है",
		"कार्ड नंबर {N} है, एक्सपायरी अगले साल की है",
		"हाँ लिख लीजिए {N} धन्यवाद",
	},
}

var (
	enDigits = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	hiDigits = [10]string{"शून्य", "एक", "दो", "तीन", "चार", "पाँच", "छह", "सात", "आठ", "नौ"}
)

// spanForms are how the number is written in the transcript and said.
var spanForms = []string{"digits", "words"}

// spanEntity returns a number of one of the kinds redaction looks for:
// its digits and the grouping a transcript writes it in.
func spanEntity(r *rand.Rand) ([]int, []int) {
	kinds := [][]int{{5, 5}, {4, 4, 4}, {4, 4, 4, 4}} // mobile, Aadhaar, card
	groups := kinds[r.IntN(len(kinds))]
	var d []int
	for _, g := range groups {
		for range g {
			d = append(d, r.IntN(10))
		}
	}
	if groups[0] == 5 {
		d[0] = 6 + r.IntN(4)
	}
	return d, groups
}

// spanNumber writes digits d as the transcript has them and as they are
// said, in lang and form.
func spanNumber(d, groups []int, lang, form string, r *rand.Rand) (written, said string) {
	var w, s []string
	switch form {
	case "digits":
		at := 0
		for _, g := range groups {
			var b strings.Builder
			for _, x := range d[at : at+g] {
				b.WriteByte(byte('0' + x))
				s = append(s, string(rune('0'+x)))
			}
			w = append(w, b.String())
			at += g
		}
		return strings.Join(w, " "), strings.Join(s, " ")
	}
	for _, x := range d {
		word := enDigits[x]
		if lang == "hi" && r.IntN(4) != 0 { // Hindi, with some English digits
			word = hiDigits[x]
		}
		w = append(w, word)
	}
	return strings.Join(w, " "), strings.Join(w, " ")
}

// spanCorpus generates n utterances of each language and form.
func spanCorpus(n int) []spanCase {
	r := rand.New(rand.NewPCG(29, 1))
	var out []spanCase
	for _, lang := range []string{"en", "hi"} {
		for _, form := range spanForms {
			for i := range n {
				tmpl := spanTemplates[lang][i%len(spanTemplates[lang])]
				d, groups := spanEntity(r)
				written, said := spanNumber(d, groups, lang, form, r)
				pre, post, _ := strings.Cut(tmpl, "{N}")
				c := spanCase{group: lang + " " + form, voice: lang, text: pre + written + post,
					start: len(pre), end: len(pre) + len(written),
					said: pre + said + post, saidBefore: strings.TrimSpace(pre), saidThrough: strings.TrimSpace(pre + said)}
				out = append(out, c)
			}
		}
	}
	return out
}

// speech is where an espeak-ng synthesis speaks: its sound's first and
// last instants (-50 dBFS RMS in 10 ms windows, loudness.Edges).
type speech struct{ on, off time.Duration }

// espeakSpeech synthesizes text with voice at rate words a minute.
func espeakSpeech(ctx context.Context, dir, voice string, rate int, text string) (speech, error) {
	path := filepath.Join(dir, "say.wav")
	cmd := exec.CommandContext(ctx, "espeak-ng", "-v", voice, "-s", fmt.Sprint(rate), "-w", path, text)
	if out, err := cmd.CombinedOutput(); err != nil {
		return speech{}, fmt.Errorf("espeak-ng: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		return speech{}, err
	}
	defer f.Close()
	d, err := audio.Decode(f)
	if err != nil {
		return speech{}, err
	}
	e := loudness.NewEdges(audio.Mono(d.Samples), d.Format.SampleRate)
	buf := make([]float64, 4096)
	frames := 0
	for {
		n, err := e.ReadSamples(buf)
		frames += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return speech{}, fmt.Errorf("read %s: %w", path, err)
		}
	}
	lead, tail := e.Edges()
	total := audio.FramesDuration(int64(frames), d.Format.SampleRate)
	return speech{on: lead, off: total - tail}, nil
}

// spanError is one measured span: how far the estimate's start is after
// the true start and its end before the true end (positive: the estimate
// misses that much of the span), and the segment's duration.
type spanError struct {
	group           string
	late, early     time.Duration
	seg             time.Duration
	covered, placed bool
}

// measureSpan synthesizes one case at rate and compares SpanEstimate and
// SpanTimes with the truth.
func measureSpan(ctx context.Context, dir string, c spanCase, rate int) (spanError, error) {
	full, err := espeakSpeech(ctx, dir, c.voice, rate, c.said)
	if err != nil {
		return spanError{}, err
	}
	from, to := full.on, full.off
	if c.saidBefore != "" {
		s, err := espeakSpeech(ctx, dir, c.voice, rate, c.saidBefore)
		if err != nil {
			return spanError{}, err
		}
		from = s.off
	}
	if c.saidThrough != strings.TrimSpace(c.said) {
		s, err := espeakSpeech(ctx, dir, c.voice, rate, c.saidThrough)
		if err != nil {
			return spanError{}, err
		}
		to = s.off
	}
	seg := transcript.Segment{Start: full.on, End: full.off, Text: c.text}
	e := spanError{group: c.group, seg: seg.End - seg.Start}
	estFrom, estTo, ok := transcript.SpanEstimate(seg, c.start, c.end)
	padFrom, padTo, padOK := transcript.SpanTimes(seg, c.start, c.end)
	if !ok || !padOK {
		return e, nil
	}
	e.placed = true
	e.late, e.early = estFrom-from, to-estTo
	e.covered = padFrom <= from && padTo >= to
	return e, nil
}

// spanTime is the step: the estimate's error per language and form.
func (h *harness) spanTime(ctx context.Context) error {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		return fmt.Errorf("espeak-ng is needed to measure span times (scripts/deps.sh installs it): %w", err)
	}
	dir, err := os.MkdirTemp(h.work, "spantime-")
	if err != nil {
		return err
	}
	n := 30
	if h.sz.quick {
		n = 10
	}
	var errs []spanError
	for _, c := range spanCorpus(n) {
		for _, rate := range []int{145, 185} {
			e, err := measureSpan(ctx, dir, c, rate)
			if err != nil {
				return fmt.Errorf("%q at %d words a minute: %w", c.said, rate, err)
			}
			errs = append(errs, e)
		}
	}
	for i, g := range []string{"en digits", "en words", "hi digits", "hi words"} {
		h.add(spanRow(fmt.Sprintf("SP%d", i+1), g, errs))
	}
	return nil
}

// spanRow summarizes the errors of one group: the unpadded estimate's
// error at both ends of each span, the most it missed a span by, and the
// least the pad had to spare.
func spanRow(id, group string, all []spanError) result {
	var abs []float64 // ms
	covered, n := 0, 0
	worst, worstShare, spare := 0.0, 0.0, math.Inf(1)
	for _, e := range all {
		if e.group != group {
			continue
		}
		n++
		if !e.placed {
			continue
		}
		if e.covered {
			covered++
		}
		miss := max(e.late, e.early)
		worst = max(worst, millis(miss))
		worstShare = max(worstShare, float64(miss)/float64(e.seg))
		pad := transcript.SpanPadFixed + time.Duration(transcript.SpanPadFraction*float64(e.seg))
		spare = min(spare, millis(pad-miss))
		abs = append(abs, math.Abs(millis(e.late)), math.Abs(millis(e.early)))
	}
	slices.Sort(abs)
	mean := 0.0
	for _, v := range abs {
		mean += v / float64(len(abs))
	}
	return result{ID: id, What: "where a number is spoken in its segment, " + group + " (transcript.SpanTimes against espeak-ng)",
		Target:  "every span inside the padded estimate",
		Figure:  fmt.Sprintf("error mean %.0f ms, p95 %.0f ms, max %.0f ms; %d/%d spans covered", mean, quantile(abs, 0.95), quantile(abs, 1), covered, n),
		Verdict: map[bool]string{true: "met", false: "MISSED"}[covered == n && n > 0],
		Details: []string{fmt.Sprintf("%d utterances (%d span ends); the unpadded estimate misses a span by at most %.0f ms, %.1f%% of its segment; the pad (%s + %.0f%% of the segment) has at least %.0f ms to spare",
			n, len(abs), worst, 100*worstShare, transcript.SpanPadFixed, 100*transcript.SpanPadFraction, spare)}}
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile is the q-quantile of sorted values (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
