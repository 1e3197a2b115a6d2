package encode_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/deliver"
)

var mp3CBR = deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 192000}

// fakeFFmpeg puts a shell script named ffmpeg alone on PATH: it answers
// -version and -encoders (listing encoders) and runs body for anything
// else, with $out the output path (the last argument, "file:" cut).
func fakeFFmpeg(t *testing.T, encoders, body string) *encode.Tool {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
for a; do last=$a; done
out=${last#file:}
case "$3" in
-version) echo "ffmpeg version 9.9-fake Copyright"; echo "libavcodec     61.  1.100 / 61.  1.100"; exit 0;;
-encoders) echo "Encoders:"; echo " ------"; for e in ` + encoders + `; do echo " A..... $e   $e"; done; exit 0;;
esac
` + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	tool, err := encode.Find()
	if err != nil {
		t.Fatal(err)
	}
	if tool.Path != filepath.Join(dir, "ffmpeg") || tool.Version != "9.9-fake" || tool.Libraries != "libavcodec 61.1.100" {
		t.Fatalf("found %+v, want the fake ffmpeg 9.9-fake", tool)
	}
	return tool
}

// TestMissingFFmpeg: without ffmpeg on PATH, Find says so, naming it.
func TestMissingFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := encode.Find()
	if !errors.Is(err, encode.ErrMissing) || !strings.Contains(err.Error(), "ffmpeg") || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("Find: %v, want an error naming ffmpeg as missing from PATH", err)
	}
}

// TestMissingEncoder: an ffmpeg without LAME refuses MP3 before running,
// naming the encoder and the codec; an encoder it has is accepted.
func TestMissingEncoder(t *testing.T) {
	tool := fakeFFmpeg(t, "aac libopus", `echo ran > "$out"`)
	if err := tool.Supports("aac"); err != nil {
		t.Errorf("Supports(aac): %v", err)
	}
	out := filepath.Join(t.TempDir(), "x.mp3")
	err := tool.Encode(context.Background(), toneWAV(t, 44100, 1, 100), mp3CBR, out)
	if !errors.Is(err, encode.ErrMissing) || !strings.Contains(err.Error(), "libmp3lame") || !strings.Contains(err.Error(), "mp3") {
		t.Fatalf("Encode: %v, want an error naming libmp3lame as missing", err)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the output exists after the refusal: %v", serr)
	}
}

// TestTimeoutAndCancelLeaveNoOutput: an ffmpeg that has written part of
// its output and hangs is stopped at the timeout (named in the error) or
// when the context ends, and the partial output is removed.
func TestTimeoutAndCancelLeaveNoOutput(t *testing.T) {
	tool := fakeFFmpeg(t, "libmp3lame aac libopus", `printf partial > "$out"; exec sleep 30`)
	in := toneWAV(t, 44100, 1, 100)
	tool.Timeout = 300 * time.Millisecond
	out := filepath.Join(t.TempDir(), "x.mp3")
	start := time.Now()
	err := tool.Encode(context.Background(), in, mp3CBR, out)
	if err == nil || !strings.Contains(err.Error(), "did not finish within the 300ms timeout") {
		t.Errorf("Encode: %v, want the 300ms timeout named", err)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a partial output is left after the timeout: %v", serr)
	}
	tool.Timeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	b, wav := testBook(t, "")
	err = tool.M4B(ctx, wav, b, 64000, out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("M4B: %v, want it stopped by the cancelled context", err)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a partial output is left after the cancel: %v", serr)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("stopping took %v", time.Since(start))
	}
}

// TestEnvironmentNotPassed: ffmpeg runs with an environment of its own:
// nothing of voxform's (an API key) reaches it.
func TestEnvironmentNotPassed(t *testing.T) {
	t.Setenv("VOXFORM_API_KEY", "sk-secret-123")
	tool := fakeFFmpeg(t, "libmp3lame", `env > "$out"`)
	out := filepath.Join(t.TempDir(), "x.mp3")
	if err := tool.Encode(context.Background(), toneWAV(t, 44100, 1, 100), mp3CBR, out); err != nil {
		t.Fatal(err)
	}
	env, _ := os.ReadFile(out)
	if strings.Contains(string(env), "sk-secret") || !strings.Contains(string(env), "LC_ALL=C") {
		t.Errorf("ffmpeg's environment:\n%s\nwant LC_ALL=C and no API key", env)
	}
}

// TestStderrIsBounded: a failing ffmpeg's flood of standard error comes
// back cut to MaxStderr, and the failed run leaves no output.
func TestStderrIsBounded(t *testing.T) {
	tool := fakeFFmpeg(t, "libmp3lame", `printf partial > "$out"; head -c 300000 /dev/zero | tr '\0' x >&2; exit 1`)
	out := filepath.Join(t.TempDir(), "x.mp3")
	err := tool.Encode(context.Background(), toneWAV(t, 44100, 1, 100), mp3CBR, out)
	if err == nil || len(err.Error()) > encode.MaxStderr+500 || !strings.Contains(err.Error(), "xxxx ...") {
		t.Fatalf("Encode: an error of %d bytes, want one cut near %d", len(err.Error()), encode.MaxStderr)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a failed run's output is left: %v", serr)
	}
	tool.FFprobe = "" // Probe reads ffmpeg's description, kept longer
	_, err = tool.Probe(context.Background(), toneWAV(t, 44100, 1, 100))
	if err == nil || len(err.Error()) > encode.MaxStderr+500 {
		t.Fatalf("Probe: an error of %d bytes, want one cut near %d", len(err.Error()), encode.MaxStderr)
	}
}

// TestBookBounds: a book that cannot be written whole and exact is
// refused before ffmpeg runs, each bound named, and nothing is written.
func TestBookBounds(t *testing.T) {
	tool := findTool(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jpg")
	os.WriteFile(big, append([]byte("\xff\xd8\xff"), make([]byte, encode.MaxCoverBytes)...), 0o644)
	gif := filepath.Join(dir, "cover.gif")
	os.WriteFile(gif, []byte("GIF89a..."), 0o644)
	many := make([]encode.Chapter, encode.MaxChapters+1)
	for i := range many {
		many[i] = encode.Chapter{Title: "c", Start: time.Duration(i) * time.Millisecond, End: time.Duration(i+1) * time.Millisecond}
	}
	for _, c := range []struct {
		name string
		edit func(*encode.Book)
		want string
	}{
		{"too many chapters", func(b *encode.Book) { b.Chapters = many }, "1001 chapters, over the limit of 1000"},
		{"no chapter", func(b *encode.Book) { b.Chapters = nil }, "no chapter"},
		{"long title", func(b *encode.Book) { b.Chapters[1].Title = strings.Repeat("अ", encode.MaxText+1) }, "chapter 2 title is 501 characters, over the limit of 500"},
		{"line break", func(b *encode.Book) { b.Title = "a\nb" }, "control character"},
		{"not UTF-8", func(b *encode.Book) { b.Author = "\xff" }, "book author is not UTF-8"},
		{"empty title", func(b *encode.Book) { b.Chapters[0].Title = "" }, "chapter 1 has no title"},
		{"overlap", func(b *encode.Book) { b.Chapters[2].Start -= time.Second }, "chapter 3"},
		{"past the end", func(b *encode.Book) { b.Chapters[2].End += 10 * time.Millisecond }, "after the end of the audio"},
		{"language", func(b *encode.Book) { b.Language = "xx-YY" }, `language "xx-YY" has no ISO 639-2 code`},
		{"year", func(b *encode.Book) { b.Year = 12026 }, "year 12026"},
		{"cover size", func(b *encode.Book) { b.Cover = big }, "over the limit of 10485760"},
		{"cover kind", func(b *encode.Book) { b.Cover = gif }, "neither a JPEG nor a PNG"},
	} {
		b, in := testBook(t, "")
		c.edit(&b)
		for _, write := range []func(string) error{
			func(out string) error { return tool.M4B(context.Background(), in, b, 64000, out) },
			func(out string) error { return tool.MP3Book(context.Background(), in, b, 192000, out) },
		} {
			out := filepath.Join(t.TempDir(), "book")
			err := write(out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("%s: the output exists: %v", c.name, serr)
			}
		}
	}
}
