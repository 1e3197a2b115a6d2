package encode_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/deliver"
)

// TestProbeWithAndWithoutFFprobe: Probe describes MP4, MP3 and Ogg
// files as ffprobe does; without ffprobe, from ffmpeg's description, it
// finds the same, and says which tool it read.
func TestProbeWithAndWithoutFFprobe(t *testing.T) {
	tool := findTool(t)
	in := toneWAV(t, 44100, 2, 66150)
	for _, c := range []struct {
		e    deliver.Encoding
		ext  string
		want encode.Stream
	}{
		{deliver.Encoding{Container: "mp4", Codec: "aac", SampleRate: 44100, Channels: 2, BitrateMode: "vbr", Bitrate: 96000}, "m4a",
			encode.Stream{Container: "mp4", Codec: "aac", SampleRate: 44100, Channels: 2, BitrateMode: "vbr"}},
		{deliver.Encoding{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 128000}, "mp3",
			encode.Stream{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 1, BitrateMode: "cbr", Bitrate: 128000}},
		{deliver.Encoding{Container: "ogg", Codec: "opus", SampleRate: 24000, Channels: 1, BitrateMode: "cbr", Bitrate: 48000}, "ogg",
			encode.Stream{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 1, BitrateMode: "cbr", Bitrate: 48000}},
	} {
		out := filepath.Join(t.TempDir(), "x."+c.ext)
		if err := tool.Encode(context.Background(), in, c.e, out); err != nil {
			t.Fatal(err)
		}
		withProbe, err := tool.Probe(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		bare := &encode.Tool{Path: tool.Path, Version: tool.Version, Libraries: tool.Libraries}
		withoutProbe, err := bare.Probe(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		if withProbe.Source != "ffprobe" || withoutProbe.Source != "ffmpeg" {
			t.Errorf("sources %q and %q, want ffprobe and ffmpeg", withProbe.Source, withoutProbe.Source)
		}
		if d := (withProbe.Duration - 1500*time.Millisecond).Abs(); d > 50*time.Millisecond {
			t.Errorf("%s: duration %v, want 1.5 s", c.ext, withProbe.Duration)
		}
		if d := (withProbe.Duration - withoutProbe.Duration).Abs(); d > 10*time.Millisecond {
			t.Errorf("%s: durations %v and %v differ", c.ext, withProbe.Duration, withoutProbe.Duration)
		}
		for _, s := range []encode.Stream{withProbe, withoutProbe} {
			got := s
			got.Source, got.Duration = "", 0
			if c.want.Bitrate == 0 {
				got.Bitrate = 0
			}
			if got != c.want {
				t.Errorf("%s (%s): %+v, want %+v", c.ext, s.Source, got, c.want)
			}
		}
	}
}

// TestDecode: an M4A, an MP3 and an Ogg Opus file decode to a float WAV
// on a writer, at their rate and channels, as long as the PCM they were
// encoded from to the sample (the encoder's priming and padding
// trimmed).
func TestDecode(t *testing.T) {
	tool := findTool(t)
	for _, e := range []deliver.Encoding{
		{Container: "mp4", Codec: "aac", SampleRate: 44100, Channels: 2, BitrateMode: "vbr", Bitrate: 96000},
		{Container: "mp3", Codec: "mp3", SampleRate: 44100, Channels: 2, BitrateMode: "cbr", Bitrate: 128000},
		{Container: "ogg", Codec: "opus", SampleRate: 48000, Channels: 2, BitrateMode: "vbr", Bitrate: 64000},
	} {
		in := toneWAV(t, e.SampleRate, 2, int64(e.SampleRate)*3/2)
		out := filepath.Join(t.TempDir(), "x."+e.Container)
		if err := tool.Encode(context.Background(), in, e, out); err != nil {
			t.Fatal(err)
		}
		var wav bytes.Buffer
		if err := tool.Decode(context.Background(), out, &wav); err != nil {
			t.Fatal(err)
		}
		f, _, err := audio.ReadWAVHeader(&wav)
		if err != nil {
			t.Fatal(err)
		}
		if f.SampleRate != e.SampleRate || f.Channels != 2 || f.Encoding != audio.Float || f.BitsPerSample != 32 {
			t.Fatalf("%s decoded %v, want %d Hz stereo float", e.Codec, f, e.SampleRate)
		}
		data, _ := io.ReadAll(&wav)
		if got, want := len(data)/f.BlockAlign(), e.SampleRate*3/2; got != want {
			t.Errorf("%s: decoded %d frames, want %d", e.Codec, got, want)
		}
	}
	if err := tool.Decode(context.Background(), filepath.Join(t.TempDir(), "missing.m4a"), io.Discard); err == nil {
		t.Error("decoding a missing file succeeds")
	}
}
