package narration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Cue says where one chunk is in the joined audio, for players and
// review.
type Cue struct {
	Start, End time.Duration
	// Text is what the chunk says; callers give the chunk's text as
	// written (text[TextStart:TextEnd]), not the lexicon's spoken forms.
	Text string
}

// JSONCues writes cues as one JSON document, a cue at a time:
//
//	{"cues": [
//	{"index": 1, "start": 0.000, "end": 12.345, "text": "..."},
//	...
//	]}
//
// Times are seconds with millisecond precision; index counts from 1.
type JSONCues struct {
	w   *bufio.Writer
	n   int
	end time.Duration
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// NewJSONCues starts a JSON cue document on w.
func NewJSONCues(w io.Writer) *JSONCues {
	c := &JSONCues{w: bufio.NewWriter(w)}
	c.enc = json.NewEncoder(&c.buf)
	c.enc.SetEscapeHTML(false) // texts hold audio tags: <whispers>, not \u003cwhispers\u003e
	_, c.err = c.w.WriteString(`{"cues": [`)
	return c
}

// Write adds a cue; cues come in order and do not overlap.
func (c *JSONCues) Write(cue Cue) error {
	if c.err != nil {
		return c.err
	}
	if err := checkCue(cue, c.n, c.end, false); err != nil {
		return err
	}
	c.buf.Reset()
	if err := c.enc.Encode(cue.Text); err != nil {
		return fmt.Errorf("write cue %d: %w", c.n+1, err)
	}
	sep := "\n"
	if c.n > 0 {
		sep = ",\n"
	}
	c.n++
	c.end = cue.End
	_, c.err = fmt.Fprintf(c.w, `%s{"index": %d, "start": %s, "end": %s, "text": %s}`,
		sep, c.n, seconds(cue.Start), seconds(cue.End), bytes.TrimSuffix(c.buf.Bytes(), []byte("\n")))
	return c.err
}

// Close ends the document and flushes it; it does not close the writer.
func (c *JSONCues) Close() error {
	if c.err != nil {
		return c.err
	}
	if _, err := c.w.WriteString("\n]}\n"); err != nil {
		return err
	}
	return c.w.Flush()
}

// seconds formats d, rounded to the millisecond, as seconds: 12.345.
func seconds(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

// VTTChapters writes cues as a WebVTT file of chapters (W3C WebVTT: a
// track of kind "chapters"), a cue at a time:
//
//	WEBVTT
//
//	1
//	00:00:00.000 --> 00:00:12.345
//	text
//
// Timestamps are hh:mm:ss.ttt, hours of two digits or more. In the text,
// & < and > are written as &amp; &lt; &gt; (so no text can hold "-->"
// or start a tag), and white space holding a line break becomes one line
// break (a blank line would end the cue).
type VTTChapters struct {
	w   *bufio.Writer
	n   int
	end time.Duration
	err error
}

// NewVTTChapters starts a WebVTT file on w.
func NewVTTChapters(w io.Writer) *VTTChapters {
	c := &VTTChapters{w: bufio.NewWriter(w)}
	_, c.err = c.w.WriteString("WEBVTT\n")
	return c
}

// Write adds a cue; cues come in order, do not overlap, and end after
// they start (WebVTT cue timings).
func (c *VTTChapters) Write(cue Cue) error {
	if c.err != nil {
		return c.err
	}
	if err := checkCue(cue, c.n, c.end, true); err != nil {
		return err
	}
	c.n++
	c.end = cue.End
	_, c.err = fmt.Fprintf(c.w, "\n%d\n%s --> %s\n%s\n", c.n, vttTime(cue.Start), vttTime(cue.End), vttText(cue.Text))
	return c.err
}

// Close flushes the file; it does not close the writer.
func (c *VTTChapters) Close() error {
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}

// checkCue refuses a cue that starts before zero or before the previous
// one ends, or ends before it starts (at its start too, when strict).
func checkCue(cue Cue, n int, prevEnd time.Duration, strict bool) error {
	switch {
	case cue.Start < 0:
		return fmt.Errorf("cue %d starts at %v, before zero", n+1, cue.Start)
	case n > 0 && cue.Start < prevEnd:
		return fmt.Errorf("cue %d starts at %v, before cue %d ends at %v", n+1, cue.Start, n, prevEnd)
	case cue.End < cue.Start || strict && cue.End == cue.Start:
		return fmt.Errorf("cue %d ends at %v, not after its start at %v", n+1, cue.End, cue.Start)
	}
	return nil
}

// vttTime formats d, rounded to the millisecond, as hh:mm:ss.ttt.
func vttTime(d time.Duration) string {
	ms := d.Round(time.Millisecond).Milliseconds()
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\x00", "\uFFFD")

// vttText escapes a cue's text and makes its line breaks single.
func vttText(s string) string {
	var b strings.Builder
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if line = strings.TrimFunc(line, isSpace); line == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(vttEscaper.Replace(line))
	}
	return b.String()
}
