package transcript

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"
)

// Render writes segs to w in format f, one segment at a time: the segments
// may come from a stream and are never collected. Segments with no text are
// left out of srt and vtt.
func Render(w io.Writer, f Format, segs iter.Seq[Segment], opts Options) error {
	opts = opts.withDefaults()
	bw := bufio.NewWriter(w)
	var err error
	switch f {
	case TXT:
		err = renderTXT(bw, segs, opts)
	case SRT:
		err = renderCues(bw, segs, opts, false)
	case VTT:
		if _, err = bw.WriteString("WEBVTT\n\n"); err == nil {
			err = renderCues(bw, segs, opts, true)
		}
	default:
		return fmt.Errorf("render transcript: unknown format %q", f)
	}
	if err != nil {
		return fmt.Errorf("render %s transcript: %w", f, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render %s transcript: %w", f, err)
	}
	return nil
}

// RenderSlice is Render over a slice.
func RenderSlice(w io.Writer, f Format, segs []Segment, opts Options) error {
	return Render(w, f, slices.Values(segs), opts)
}

// renderTXT writes plain text: one line per segment, or with speakers one
// paragraph per speaker turn, labelled.
func renderTXT(w *bufio.Writer, segs iter.Seq[Segment], opts Options) error {
	var para []string
	speaker, started := "", false
	flush := func() error {
		if len(para) == 0 {
			return nil
		}
		text := strings.Join(para, " ")
		if speaker != "" {
			text = speaker + ": " + text
		}
		lines := []string{text}
		if opts.TextWidth > 0 {
			lines = wrap(text, opts.TextWidth)
		}
		if started && speaker != "" {
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		started = true
		for _, l := range lines {
			if _, err := w.WriteString(l + "\n"); err != nil {
				return err
			}
		}
		para = para[:0]
		return nil
	}
	for s := range segs {
		text := strings.Join(strings.Fields(s.Text), " ")
		if text == "" {
			continue
		}
		if s.Speaker != speaker || s.Speaker == "" {
			if err := flush(); err != nil {
				return err
			}
			speaker = s.Speaker
		}
		para = append(para, text)
	}
	return flush()
}

// cue is one subtitle.
type cue struct {
	start, end time.Duration
	lines      []string
}

// renderCues writes numbered SRT cues, or WebVTT cues when vtt is set.
func renderCues(w *bufio.Writer, segs iter.Seq[Segment], opts Options, vtt bool) error {
	n := 0
	var prevEnd time.Duration
	for s := range segs {
		for i, c := range splitCues(s, opts, vtt) {
			if c.start < prevEnd {
				c.start = prevEnd // cues never run backwards
			}
			if c.end < c.start {
				c.end = c.start
			}
			prevEnd = c.end
			n++
			if err := writeCue(w, n, c, s.Speaker, i == 0, vtt); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeCue(w *bufio.Writer, n int, c cue, speaker string, first, vtt bool) error {
	var b strings.Builder
	if vtt {
		fmt.Fprintf(&b, "%d\n%s --> %s\n", n, FormatVTTTime(c.start), FormatVTTTime(c.end))
	} else {
		fmt.Fprintf(&b, "%d\n%s --> %s\n", n, FormatSRTTime(c.start), FormatSRTTime(c.end))
	}
	for i, l := range c.lines {
		if vtt {
			l = vttEscape(l)
			if i == 0 && speaker != "" {
				l = "<v " + vttEscape(speaker) + ">" + l
			}
		}
		b.WriteString(l + "\n")
	}
	b.WriteByte('\n')
	_, err := w.WriteString(b.String())
	return err
}

// splitCues wraps a segment's text and shares it out over as many cues as
// the line and duration limits need, each cue's time in proportion to its
// share of the text. In srt the speaker label opens the segment's first cue;
// in vtt it is a voice tag on every cue and does not count in the length.
func splitCues(s Segment, opts Options, vtt bool) []cue {
	text := strings.ReplaceAll(strings.Join(strings.Fields(s.Text), " "), "-->", "->")
	if text == "" {
		return nil
	}
	if s.Speaker != "" && !vtt {
		text = s.Speaker + ": " + text
	}
	lines := wrap(text, opts.MaxLineLength)
	dur := max(s.End-s.Start, 0)
	k := ceilDiv(len(lines), opts.MaxLines)
	k = min(max(k, int(ceilDiv64(int64(dur), int64(opts.MaxCueDuration)))), len(lines))
	for {
		cues := shareCues(s.Start, dur, lines, k)
		if k == len(lines) || longest(cues) <= opts.MaxCueDuration {
			return cues
		}
		k++ // text shares are uneven: one more cue
	}
}

func longest(cues []cue) time.Duration {
	var d time.Duration
	for _, c := range cues {
		d = max(d, c.end-c.start)
	}
	return d
}

// shareCues spreads lines evenly over k cues, and the segment's time over
// the cues in proportion to their text.
func shareCues(start, dur time.Duration, lines []string, k int) []cue {
	cues := make([]cue, 0, k)
	total := 0
	for _, l := range lines {
		total += len([]rune(l))
	}
	done, at := 0, 0
	for i := range k {
		nl := (len(lines) - at) / (k - i) // share the rest evenly
		if (len(lines)-at)%(k-i) != 0 {
			nl++
		}
		part := lines[at : at+nl]
		at += nl
		from := start + time.Duration(float64(dur)*float64(done)/float64(total))
		for _, l := range part {
			done += len([]rune(l))
		}
		to := start + time.Duration(float64(dur)*float64(done)/float64(total))
		if i == k-1 {
			to = start + dur
		}
		cues = append(cues, cue{start: from.Round(time.Millisecond), end: to.Round(time.Millisecond), lines: part})
	}
	return cues
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func ceilDiv64(a, b int64) int64 { return (a + b - 1) / b }

var vttReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func vttEscape(s string) string { return vttReplacer.Replace(s) }
