package encode

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/audio"
)

// Bounds of a book.
const (
	MaxChapters   = 1000     // chapters in one book
	MaxText       = 500      // characters of a title, an author, a narrator, a chapter title
	MaxCoverBytes = 10 << 20 // bytes of a cover image (JPEG or PNG)
)

// Chapter is one chapter of a book: its title and where it starts and
// ends in the book's joined audio, exact to its sample counts
// (audio.FramesDuration of the frames before it and of its own).
type Chapter struct {
	Title      string
	Start, End time.Duration
}

// Book is a book's metadata and chapters. Language is a BCP 47 tag
// ("hi-IN") or an ISO 639 code; the files carry its ISO 639-2/T code
// ("hin"). Year 0 and Cover "" are absent; Cover is a JPEG or PNG file.
type Book struct {
	Title, Author, Narrator, Language string
	Year                              int
	Cover                             string
	Chapters                          []Chapter
}

// checkText refuses a text a tag cannot carry whole: not UTF-8, control
// characters (a line break would end an ffmetadata entry), over MaxText.
func checkText(field, s string) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not UTF-8", field)
	case utf8.RuneCountInString(s) > MaxText:
		return fmt.Errorf("%s is %d characters, over the limit of %d", field, utf8.RuneCountInString(s), MaxText)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%s %q holds a control character (a line break or tab)", field, s)
	}
	return nil
}

// language returns the ISO 639-2/T code of a BCP 47 tag's primary
// language ("hi-IN" -> "hin"), or "" for "".
func language(tag string) (string, error) {
	if tag == "" {
		return "", nil
	}
	primary, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	code, ok := iso639[strings.ToLower(primary)]
	if !ok {
		return "", fmt.Errorf("language %q has no ISO 639-2 code (want a tag such as hi-IN or en)", tag)
	}
	return code, nil
}

// check refuses a book that cannot be written whole and exact: each
// bound is named; chapters must be ordered, not overlap, and end within
// the audio's length (to the sample at rate; 0: no slack).
func (b *Book) check(length time.Duration, rate int) error {
	for _, f := range []struct{ name, v string }{{"title", b.Title}, {"author", b.Author}, {"narrator", b.Narrator}} {
		if err := checkText("book "+f.name, f.v); err != nil {
			return err
		}
	}
	if _, err := language(b.Language); err != nil {
		return fmt.Errorf("book %w", err)
	}
	if b.Year < 0 || b.Year > 9999 {
		return fmt.Errorf("book year %d is outside 1 to 9999", b.Year)
	}
	switch n := len(b.Chapters); {
	case n == 0:
		return fmt.Errorf("book has no chapter")
	case n > MaxChapters:
		return fmt.Errorf("book has %d chapters, over the limit of %d", n, MaxChapters)
	}
	slack := time.Duration(0)
	if rate > 0 {
		slack = time.Second / time.Duration(rate)
	}
	return checkChapters(b.Chapters, length, slack)
}

func checkChapters(chapters []Chapter, length, slack time.Duration) error {
	var prev time.Duration
	for i, c := range chapters {
		at := fmt.Sprintf("chapter %d (%q)", i+1, c.Title)
		if err := checkText(fmt.Sprintf("chapter %d title", i+1), c.Title); err != nil {
			return err
		}
		switch {
		case c.Title == "":
			return fmt.Errorf("chapter %d has no title", i+1)
		case c.Start < prev:
			return fmt.Errorf("%s starts at %v, before the end of the chapter before it (%v)", at, c.Start, prev)
		case c.End <= c.Start:
			return fmt.Errorf("%s ends at %v, not after its start %v", at, c.End, c.Start)
		case c.End > length+slack:
			return fmt.Errorf("%s ends at %v, after the end of the audio (%v)", at, c.End, length)
		}
		prev = c.End
	}
	return nil
}

// wavLength reads the format and length of the PCM WAV file at path.
func wavLength(path string) (audio.Format, time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return audio.Format{}, 0, fmt.Errorf("read the book's audio: %w", err)
	}
	defer f.Close()
	format, n, err := audio.ReadWAVHeader(f)
	if err != nil {
		return audio.Format{}, 0, fmt.Errorf("read the book's audio %s: %w", path, err)
	}
	if n == audio.UnknownSize {
		return audio.Format{}, 0, fmt.Errorf("read the book's audio %s: the WAV header states no data size", path)
	}
	return format, format.Duration(n), nil
}

// coverFormat sniffs the cover image at path and returns ffmpeg's
// demuxer for it, refusing anything but JPEG and PNG and anything over
// MaxCoverBytes.
func coverFormat(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the cover: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read the cover: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > MaxCoverBytes {
		return "", fmt.Errorf("cover %s is %d bytes, over the limit of %d (or not a regular file)", path, st.Size(), MaxCoverBytes)
	}
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	switch {
	case n >= 3 && string(head[:3]) == "\xff\xd8\xff":
		return "jpeg_pipe", nil
	case n == 8 && string(head) == "\x89PNG\r\n\x1a\n":
		return "png_pipe", nil
	}
	return "", fmt.Errorf("cover %s is neither a JPEG nor a PNG image (starts with % x)", path, head[:n])
}

// ffmetadata writes b as ffmpeg's metadata file (read on ffmpeg's
// standard input): the global tags of tags, in order, and a chapter
// section per chapter with its start, end (in nanoseconds, exact) and
// title.
func ffmetadata(tags [][2]string, chapters []Chapter) string {
	var s strings.Builder
	s.WriteString(";FFMETADATA1\n")
	for _, t := range tags {
		if t[1] != "" {
			fmt.Fprintf(&s, "%s=%s\n", t[0], escapeMeta(t[1]))
		}
	}
	for _, c := range chapters {
		fmt.Fprintf(&s, "[CHAPTER]\nTIMEBASE=1/1000000000\nSTART=%d\nEND=%d\ntitle=%s\n", int64(c.Start), int64(c.End), escapeMeta(c.Title))
	}
	return s.String()
}

// escapeMeta escapes what ffmetadata gives a meaning: = ; # \ and line
// breaks (refused before; escaped anyway).
func escapeMeta(v string) string {
	var s strings.Builder
	for _, r := range v {
		if strings.ContainsRune("=;#\\\n", r) {
			s.WriteByte('\\')
		}
		s.WriteRune(r)
	}
	return s.String()
}
