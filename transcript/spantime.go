package transcript

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// Where a piece of a segment's text is spoken. The service times
// segments, not words, so SpanTimes estimates: it shares the segment's
// time out over its text in proportion to how long each part takes to
// say, then widens the result by a pad that covers the estimate's
// measured error (go run ./bench -only spantime). Weights are in Latin
// letters: a letter is 1; a digit is a word said on its own ("98765" is
// five words, as a caller reads a number out), weighted as the average
// length of the digits' names; an akshara of an Indic script (a
// consonant or independent vowel that does not follow a virama; vowel
// signs and other marks weigh nothing) is a syllable; a punctuation mark
// is a short pause; a symbol is a short word ("+" is "plus", "@" "at");
// spaces weigh nothing.
const (
	digitWeight   = 4.2 // zero, one, ..., nine: 4.1 letters; शून्य ... नौ: 1.8 aksharas
	aksharaWeight = 2.3 // a Devanagari syllable as long as 2.3 Latin letters
	pauseWeight   = 2.0 // , . ; : ? ! and the danda
	symbolWeight  = 3.0 // + @ % & # / and the like, said as short words
)

// SpanTimes widens an estimate by SpanPadFixed plus SpanPadFraction of
// the segment's duration on each side. The estimate's error grows with
// the segment: measured against espeak-ng (go run ./bench -only
// spantime: English and Hindi, numbers as digits and as number words,
// 240 spans), it missed a span's start or end by at most 7.9% of the
// segment (573 ms of 7.4 s), and the pad covers every measured span with
// at least 150 ms to spare.
const (
	SpanPadFixed    = 150 * time.Millisecond
	SpanPadFraction = 0.08
)

// MaxSpanSegment is the longest segment SpanTimes places a span in: the
// estimate's error grows with the segment, and past this a span is not
// placed (the caller takes the whole segment).
const MaxSpanSegment = 30 * time.Second

// SpanTimes estimates where bytes [start, end) of seg.Text are spoken:
// SpanEstimate widened by SpanPadFixed plus SpanPadFraction of the
// segment's duration on each side, and clamped to the segment. The
// result is monotone: a span that starts (ends) later never gets an
// earlier from (to). ok is false, and the caller must then take the whole
// segment (fail closed), where SpanEstimate cannot place the span.
func SpanTimes(seg Segment, start, end int) (from, to time.Duration, ok bool) {
	from, to, ok = SpanEstimate(seg, start, end)
	if !ok {
		return 0, 0, false
	}
	pad := SpanPadFixed + time.Duration(SpanPadFraction*float64(seg.End-seg.Start))
	return max(from-pad, seg.Start), min(to+pad, seg.End), true
}

// SpanEstimate is SpanTimes before the pad (what the bench measures): the
// segment's time shared out in proportion to the spoken weight of the
// text before, in and after bytes [start, end). ok is false when the span
// cannot be placed: the segment has no duration or is longer than
// MaxSpanSegment, the range is empty, out of the text or not on
// character boundaries, or the text has nothing spoken.
func SpanEstimate(seg Segment, start, end int) (from, to time.Duration, ok bool) {
	dur := seg.End - seg.Start
	if dur <= 0 || dur > MaxSpanSegment || seg.Start < 0 {
		return 0, 0, false
	}
	t := seg.Text
	if start < 0 || end > len(t) || start >= end || !boundary(t, start) || !boundary(t, end) {
		return 0, 0, false
	}
	before, within, total := weightUpTo(t, start), weightUpTo(t, end), weightUpTo(t, len(t))
	if total <= 0 {
		return 0, 0, false
	}
	from = seg.Start + time.Duration(float64(dur)*before/total)
	to = seg.Start + time.Duration(float64(dur)*within/total)
	return from, to, true
}

// boundary reports whether byte i of s starts a character (or ends s).
func boundary(s string, i int) bool { return i == len(s) || utf8.RuneStart(s[i]) }

// weightUpTo is the spoken weight of s[:n].
func weightUpTo(s string, n int) float64 {
	w := 0.0
	prev := rune(-1)
	for _, r := range s[:n] {
		w += runeWeight(r, prev)
		prev = r
	}
	return w
}

// runeWeight is the spoken weight of r, which follows prev.
func runeWeight(r, prev rune) float64 {
	switch {
	case unicode.IsDigit(r):
		return digitWeight
	case unicode.IsSpace(r):
		return 0
	case indic(r):
		if unicode.IsLetter(r) && !isVirama(prev) {
			return aksharaWeight
		}
		if pause(r) {
			return pauseWeight
		}
		return 0
	case unicode.IsLetter(r):
		return 1
	case unicode.IsMark(r), quiet(r):
		return 0
	case pause(r):
		return pauseWeight
	}
	return symbolWeight
}

// pause reports whether r marks a pause when read.
func pause(r rune) bool {
	switch r {
	case ',', '.', ';', ':', '?', '!', '।', '॥':
		return true
	}
	return false
}

// quiet reports whether r is not read at all: hyphens, dashes,
// apostrophes, quotes and brackets.
func quiet(r rune) bool {
	return unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Ps, r) || unicode.Is(unicode.Pe, r) ||
		unicode.Is(unicode.Pi, r) || unicode.Is(unicode.Pf, r) || r == '\'' || r == '"' || unicode.IsControl(r)
}

// indicScripts are the scripts whose letters are counted as aksharas.
var indicScripts = []*unicode.RangeTable{unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi,
	unicode.Gujarati, unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam}

func indic(r rune) bool { return r >= 0x0900 && r <= 0x0DFF && unicode.In(r, indicScripts...) }

// isVirama reports whether r is the virama (halant) of an Indic script,
// which joins the next consonant into the same akshara.
func isVirama(r rune) bool {
	switch r {
	case 0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D4D:
		return true
	}
	return false
}
