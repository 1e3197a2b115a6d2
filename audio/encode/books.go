package encode

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/voxform/voxform/deliver"
)

// M4B writes the book whose joined audio is the PCM WAV file wavIn as
// AAC (ffmpeg's encoder, an average of bitrate bit/s, at the WAV's rate
// and channels) in an MP4 file branded M4B: chapters as a QuickTime
// chapter track, title (©nam, ©alb), author (©ART), narrator (©wrt: the
// composer tag audiobook players show as narrator), year (©day), the
// language on the audio track, the cover as covr. Bit-exact, like
// Encode; only out is written, and removed on any failure.
func (t *Tool) M4B(ctx context.Context, wavIn string, b Book, bitrate int, out string) (err error) {
	tags := [][2]string{{"title", b.Title}, {"album", b.Title}, {"artist", b.Author}, {"album_artist", b.Author},
		{"composer", b.Narrator}, {"date", year(b.Year)}, {"genre", "Audiobook"}}
	e := deliver.Encoding{Codec: deliver.CodecAAC, BitrateMode: deliver.VBR, Bitrate: bitrate}
	return t.book(ctx, "write the M4B", wavIn, &b, e, tags, bookArgs(deliver.ContainerMP4, bitrate), out)
}

// MP3Book writes the book whose joined audio is the PCM WAV file wavIn as
// a constant-bit-rate MP3 (LAME, bitrate bit/s, at the WAV's rate and
// channels) led by an ID3v2.4 tag (UTF-8): TIT2 and TALB (title), TPE1
// (author), TCOM and TXXX:narrator (narrator), TDRC (year), TLAN
// (language), APIC (front cover), then a CTOC frame (top-level, ordered)
// listing a CHAP frame per chapter, each with a TIT2 sub-frame. ffmpeg's
// ID3v2 writer makes the CTOC and CHAP frames (the tests read them back).
// Bit-exact, like Encode; only out is written, and removed on any
// failure.
func (t *Tool) MP3Book(ctx context.Context, wavIn string, b Book, bitrate int, out string) (err error) {
	lang, _ := language(b.Language)
	tags := [][2]string{{"title", b.Title}, {"album", b.Title}, {"artist", b.Author}, {"composer", b.Narrator},
		{"narrator", b.Narrator}, {"date", year(b.Year)}, {"language", lang}, {"genre", "Audiobook"}}
	e := deliver.Encoding{Codec: deliver.CodecMP3, BitrateMode: deliver.CBR, Bitrate: bitrate}
	return t.book(ctx, "write the MP3 book", wavIn, &b, e, tags, bookArgs(deliver.ContainerMP3, bitrate), out)
}

// bookVersion changes when the layout of a book's tags or the flags of
// bookOutput change: it is part of BookIdentity.
const bookVersion = 1

// bookArgs are the encoder and muxer flags of a book in container
// (deliver.ContainerMP4 for M4B, deliver.ContainerMP3).
func bookArgs(container string, bitrate int) []string {
	if container == deliver.ContainerMP4 {
		return []string{"-c:a", "aac", "-b:a", strconv.Itoa(bitrate), "-brand", "M4B ", "-movflags", "+faststart", "-f", "ipod"}
	}
	return []string{"-c:a", "libmp3lame", "-b:a", strconv.Itoa(bitrate), "-id3v2_version", "4", "-write_xing", "1", "-f", "mp3"}
}

// BookIdentity names everything that makes the bytes of a book in
// container (deliver.ContainerMP4: M4B; deliver.ContainerMP3) at bitrate,
// beyond the audio and the book's own metadata: ffmpeg's version and
// libraries, the layout of the tags, every flag. A package's fingerprint
// covers it.
func (t *Tool) BookIdentity(container string, bitrate int) string {
	return fmt.Sprintf("ffmpeg %s (%s) book %d %s %s", t.Version, t.Libraries, bookVersion,
		strings.Join(bookOutput(true, "lang"), " "), strings.Join(bookArgs(container, bitrate), " "))
}

func year(y int) string {
	if y == 0 {
		return ""
	}
	return strconv.Itoa(y)
}

// book checks b against the WAV and the encoder, then runs ffmpeg with
// the WAV, the metadata (tags and chapters, on standard input) and the
// cover as inputs.
func (t *Tool) book(ctx context.Context, what, wavIn string, b *Book, e deliver.Encoding, tags [][2]string, codec []string, out string) (err error) {
	format, length, err := wavLength(wavIn)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	e.SampleRate, e.Channels = format.SampleRate, format.Channels
	if err := b.check(length, format.SampleRate); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := CheckEncoding(e); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := t.Supports(e.Codec); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	args, err := bookInputs(wavIn, b.Cover)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	lang, _ := language(b.Language)
	args = append(append(args, bookOutput(b.Cover != "", lang)...), codec...)
	args = append(args, "file:"+out)
	defer removeOnError(out, &err)
	var meta io.Reader = strings.NewReader(ffmetadata(tags, b.Chapters))
	return run(ctx, job{what: what, path: t.Path, args: args, stdin: meta, timeout: t.timeout()})
}

// bookInputs are the WAV (input 0), the metadata on standard input
// (input 1) and the cover, if any (input 2).
func bookInputs(wavIn, cover string) ([]string, error) {
	args := input(input(nil, "wav", "file:"+wavIn), "ffmetadata", "pipe:0")
	if cover == "" {
		return args, nil
	}
	demuxer, err := coverFormat(cover)
	if err != nil {
		return nil, err
	}
	return input(args, demuxer, "file:"+cover), nil
}

// bookOutput maps the audio, the cover as an attached picture, the
// metadata and chapters of input 1 only (nothing of the WAV's or the
// image's own), with the bit-exact flags.
func bookOutput(cover bool, lang string) []string {
	args := []string{"-map", "0:a:0"}
	if cover {
		args = append(args, "-map", "2:v:0", "-c:v", "copy", "-disposition:v:0", "attached_pic",
			"-metadata:s:v:0", "comment=Cover (front)", "-flags:v", "+bitexact")
	}
	args = append(args, "-map_metadata", "1", "-map_metadata:s:a", "-1", "-map_chapters", "1",
		"-fflags", "+bitexact", "-flags:a", "+bitexact", "-threads", "1")
	if lang != "" {
		args = append(args, "-metadata:s:a:0", "language="+lang)
	}
	return args
}
