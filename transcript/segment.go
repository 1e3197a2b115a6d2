package transcript

import (
	"fmt"
	"strings"
	"time"
)

// Segment is one time-aligned piece of a transcript.
type Segment struct {
	Start, End time.Duration
	Text       string
	// Speaker labels the segment when the transcript is diarized or
	// multi-channel (for example "Speaker 1"); empty otherwise.
	Speaker string
}

// Format is an output format of Render.
type Format string

// Formats Render writes.
const (
	TXT Format = "txt"
	SRT Format = "srt"
	VTT Format = "vtt"
)

// ParseFormat returns the Format named by s ("txt", "srt" or "vtt").
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case TXT, SRT, VTT:
		return f, nil
	}
	return "", fmt.Errorf("unknown transcript format %q (want txt, srt or vtt)", s)
}

// Options tune rendering. The zero value gives subtitles of at most two
// lines of 42 characters and cues of at most 7 seconds, and unwrapped text.
type Options struct {
	// MaxLineLength is the longest subtitle line in characters (runes);
	// longer text is word-wrapped (0: 42). A single word longer than the
	// limit gets a line of its own.
	MaxLineLength int
	// MaxLines is the number of lines per cue (0: 2); a segment needing more
	// is split into several cues, its time shared out by text length.
	MaxLines int
	// MaxCueDuration splits a segment's cues further so that none lasts
	// longer (0: 7 s).
	MaxCueDuration time.Duration
	// TextWidth wraps txt output at this many characters (0: no wrapping).
	TextWidth int
}

func (o Options) withDefaults() Options {
	if o.MaxLineLength <= 0 {
		o.MaxLineLength = 42
	}
	if o.MaxLines <= 0 {
		o.MaxLines = 2
	}
	if o.MaxCueDuration <= 0 {
		o.MaxCueDuration = 7 * time.Second
	}
	return o
}

// FormatSRTTime formats d as an SRT timestamp, 00:00:01,000.
func FormatSRTTime(d time.Duration) string { return clock(d, ',') }

// FormatVTTTime formats d as a WebVTT timestamp, 00:00:01.000.
func FormatVTTTime(d time.Duration) string { return clock(d, '.') }

func clock(d time.Duration, sep byte) string {
	if d < 0 {
		d = 0
	}
	ms := d.Round(time.Millisecond).Milliseconds()
	h := ms / 3_600_000
	m := ms / 60_000 % 60
	s := ms / 1000 % 60
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", h, m, s, sep, ms%1000)
}

// wrap splits text into lines of at most width runes, breaking at spaces.
func wrap(text string, width int) []string {
	words := strings.Fields(text)
	var lines []string
	var cur strings.Builder
	n := 0
	for _, w := range words {
		wl := len([]rune(w))
		switch {
		case n == 0:
			cur.WriteString(w)
			n = wl
		case width > 0 && n+1+wl > width:
			lines = append(lines, cur.String())
			cur.Reset()
			cur.WriteString(w)
			n = wl
		default:
			cur.WriteByte(' ')
			cur.WriteString(w)
			n += 1 + wl
		}
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
