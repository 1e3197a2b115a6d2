package loudness_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// writeInPieces passes b to w in pieces of growing, uneven sizes, as a
// network stream delivers them.
func writeInPieces(w *loudness.LoudnessWriter, b []byte) {
	for n := 1; len(b) > 0; n = n*3 + 7 {
		k := min(n, len(b))
		w.Write(b[:k])
		b = b[k:]
	}
}

// TestLoudnessWriterMatchesFile: a file measured from its bytes as they are
// written reads exactly as the finished file does, in every container
// voxform writes; a format without a decoder is a NoDecoderError, not a
// figure.
func TestLoudnessWriterMatchesFile(t *testing.T) {
	requireTool(t, "ffmpeg")
	requireTool(t, "espeak-ng")
	dir := t.TempDir()
	src := speech(t, dir)
	for _, c := range loudnessContainers {
		t.Run(c.name, func(t *testing.T) {
			rate := 24000
			if c.rates != nil {
				rate = c.rates[0]
			}
			args := append([]string{"-i", src, "-ar", strconv.Itoa(rate)}, c.args...)
			path := ffmpegMake(t, dir, "out-"+strconv.Itoa(rate)+"."+c.ext, args...)
			var raw *audio.Format
			if c.raw != nil {
				f := c.raw(rate, 1)
				raw = &f
			}
			want, err := loudness.MeasureLoudnessFile(context.Background(), path, raw)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			w := loudness.NewLoudnessWriter(context.Background(), raw)
			writeInPieces(w, b)
			got, err := w.Result()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("streamed %v (%v), file %v (%v)", got, got.Duration, want, want.Duration)
			}
		})
	}
	t.Run("no decoder", func(t *testing.T) {
		path := ffmpegMake(t, dir, "vorbis.ogg", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "libvorbis", "-f", "ogg")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		w := loudness.NewLoudnessWriter(context.Background(), nil)
		writeInPieces(w, b) // must not block once the decoder has given up
		_, err = w.Result()
		var nd *loudness.NoDecoderError
		if !errors.As(err, &nd) {
			t.Fatalf("got %v, want a NoDecoderError", err)
		}
	})
	t.Run("abort", func(t *testing.T) {
		w := loudness.NewLoudnessWriter(context.Background(), nil)
		w.Write([]byte("RIFF"))
		w.Abort()
		if _, err := w.Result(); err == nil {
			t.Fatal("an aborted measurement has a result")
		}
	})
}
