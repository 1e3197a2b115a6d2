package executor

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/planner"
)

// Every output is checked, complete, at its temporary path before it is
// renamed into place (SPEC section 6: container magic, expected size,
// stream completion). The transports check their own end-of-stream
// signals (Content-Length, the WAV data size, the SSE and WebSocket final
// events); these checks are about the file as it will be left.

// audioCheck returns the check of a synthesis output in the resolved
// format cfg: for wav, mp3 and ogg a whole file of that container (WAV
// sizes agreeing with the file and the requested rate and channels, MP3
// frames untruncated, an Ogg stream ended); for headerless raw, mu-law and
// A-law audio, a non-empty whole number of frames of the requested format
// and no stray container header.
func audioCheck(cfg contract.Format) check {
	if cfg.Headered() {
		c := cfg.AudioContainer()
		return func(r io.ReaderAt, size int64) error {
			if err := audio.ValidateReader(io.NewSectionReader(r, 0, size), c); err != nil {
				return err
			}
			if c != audio.ContainerWAV {
				return nil
			}
			info, err := audio.ProbeReader(io.NewSectionReader(r, 0, size))
			if err != nil {
				return err
			}
			if info.SampleRate != cfg.SampleRate || info.Channels != cfg.NumChannels {
				return fmt.Errorf("wav audio of %d Hz, %d channel(s); %d Hz, %d channel(s) were requested",
					info.SampleRate, info.Channels, cfg.SampleRate, cfg.NumChannels)
			}
			return nil
		}
	}
	f, err := cfg.Audio()
	return func(r io.ReaderAt, size int64) error {
		if err != nil {
			return err
		}
		if size == 0 {
			return fmt.Errorf("empty %s audio", cfg.Container)
		}
		return audio.ValidateRawAt(r, size, f)
	}
}

// audioValidator is audioCheck of the file at a path.
func audioValidator(cfg contract.Format) func(path string) error {
	return atPath(audioCheck(cfg))
}

// transcriptCheck returns the check of a transcript output: json is one
// well-formed JSON value; txt is UTF-8; srt and vtt are well-formed cues.
// With hasText (the transcript has some text), txt, srt and vtt must not
// be empty of it.
func transcriptCheck(format string, hasText bool) check {
	return func(ra io.ReaderAt, size int64) error {
		r := bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 64<<10)
		switch format {
		case "json":
			return checkJSON(r)
		case "txt":
			return checkText(r, hasText)
		case "srt", "vtt":
			return checkCues(r, format == "vtt", hasText)
		case planner.RedactedAudioFormat:
			return audio.ValidateReader(io.NewSectionReader(ra, 0, size), audio.ContainerWAV)
		}
		return fmt.Errorf("no check for %s transcripts", format)
	}
}

// transcriptValidator is transcriptCheck of the file at a path.
func transcriptValidator(format string, hasText bool) func(path string) error {
	return atPath(transcriptCheck(format, hasText))
}

// atPath is c of the whole file at path.
func atPath(c check) func(path string) error {
	return func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		return c(f, st.Size())
	}
}

// checkJSON reads one JSON value token by token (never holding it whole)
// and nothing but white space after it.
func checkJSON(r io.Reader) error {
	dec := json.NewDecoder(r)
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("not valid JSON: %w", err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("not valid JSON: data after the document")
	}
	return nil
}

// checkText checks UTF-8 and, with hasText, that some text is there.
func checkText(r *bufio.Reader, hasText bool) error {
	seen := false
	for {
		c, size, err := r.ReadRune()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if c == utf8.RuneError && size == 1 {
			return errors.New("not valid UTF-8 text")
		}
		if !strings.ContainsRune(" \t\r\n", c) {
			seen = true
		}
	}
	if hasText && !seen {
		return errors.New("empty, but the transcript has text")
	}
	return nil
}

var (
	srtTiming = regexp.MustCompile(`^\d{2,}:\d{2}:\d{2},\d{3} --> \d{2,}:\d{2}:\d{2},\d{3}$`)
	vttTiming = regexp.MustCompile(`^\d{2,}:\d{2}:\d{2}\.\d{3} --> \d{2,}:\d{2}:\d{2}\.\d{3}( .*)?$`)
)

// checkCues checks SRT (numbered from 1) or WebVTT (a WEBVTT header, cue
// ids optional) cues: a timing line, at least one text line, a blank line.
func checkCues(r *bufio.Reader, vtt, hasText bool) error {
	timing, kind := srtTiming, "srt"
	if vtt {
		timing, kind = vttTiming, "vtt"
	}
	line, n := 0, 0
	next := func() (string, bool, error) {
		s, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) {
			if s != "" {
				return "", false, fmt.Errorf("%s line %d: no final newline", kind, line+1)
			}
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		line++
		return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r"), true, nil
	}
	if vtt {
		head, ok, err := next()
		if err != nil {
			return err
		}
		if !ok || !strings.HasPrefix(strings.TrimPrefix(head, "\ufeff"), "WEBVTT") {
			return errors.New("vtt: no WEBVTT header")
		}
		// The header block ends at the first blank line.
		for ok && head != "" {
			if head, ok, err = next(); err != nil {
				return err
			}
		}
	}
	for {
		s, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if s == "" {
			continue
		}
		n++
		if !timing.MatchString(s) {
			// A cue identifier (required and sequential in SRT) comes first.
			if !vtt && s != fmt.Sprint(n) {
				return fmt.Errorf("srt line %d: cue number %q, want %d", line, s, n)
			}
			if s, ok, err = next(); err != nil {
				return err
			}
			if !ok || !timing.MatchString(s) {
				return fmt.Errorf("%s line %d: no cue timing", kind, line)
			}
		} else if !vtt {
			return fmt.Errorf("srt line %d: cue %d has no number", line, n)
		}
		texts := 0
		for {
			if s, ok, err = next(); err != nil {
				return err
			}
			if !ok || s == "" {
				break
			}
			texts++
		}
		if texts == 0 {
			return fmt.Errorf("%s line %d: cue %d has no text", kind, line, n)
		}
	}
	if hasText && n == 0 {
		return fmt.Errorf("%s: no cues, but the transcript has text", kind)
	}
	return nil
}
