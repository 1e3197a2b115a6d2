package join

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/voxform/voxform/audio"
)

// pieceSeconds are the lengths of the pieces, cycled: not whole frames.
var pieceSeconds = []float64{0.73, 1.31, 0.2, 2.05, 0.9}

// genPieces makes n pieces with ffmpeg: sines of several pitches and
// lengths at rate, encoded with the output arguments, all in one ffmpeg
// run (starting ffmpeg costs more than encoding a second of audio).
func genPieces(t *testing.T, n, rate int, ext string, out ...string) []string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y"}
	for i := range n {
		args = append(args, "-f", "lavfi", "-i",
			fmt.Sprintf("sine=frequency=%d:sample_rate=%d:duration=%g", 220+40*i, rate, pieceSeconds[i%len(pieceSeconds)]))
	}
	return encodePieces(t, dir, n, ext, args, out)
}

// encodePieces adds to args, ffmpeg's options and its n inputs, an
// output in dir for each input, encoded with the output arguments, runs
// ffmpeg and returns the outputs' paths.
func encodePieces(t *testing.T, dir string, n int, ext string, args, out []string) []string {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("p%02d.%s", i, ext))
		args = append(append(append(args, "-map", fmt.Sprintf("%d:a", i)), out...), paths[i])
	}
	run(t, "ffmpeg", args...)
	return paths
}

// speechPieces makes pieces of speech with espeak-ng, encoded by ffmpeg.
func speechPieces(t *testing.T, rate int, ext string, out ...string) []string {
	t.Helper()
	sentences := []string{"नमस्ते, यह पहला वाक्य है।", "This is the second sentence of the chapter.", "और यह तीसरा, अंतिम वाक्य है।"}
	dir := t.TempDir()
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y"}
	for i, s := range sentences {
		wav := filepath.Join(dir, fmt.Sprintf("s%d.wav", i))
		voice := "hi"
		if i == 1 {
			voice = "en"
		}
		run(t, "espeak-ng", "-v", voice, "-w", wav, s)
		args = append(args, "-i", wav)
	}
	return encodePieces(t, dir, len(sentences), ext, args, append([]string{"-ar", strconv.Itoa(rate)}, out...))
}

// join joins the files at paths with the joiner of c into a file (or,
// when seekable is false, through a writer that cannot seek), reading
// each piece a few bytes at a time, and returns the file and the start
// of each piece the joiner reported, then its duration.
func join(t *testing.T, c audio.Container, paths []string, seekable bool) (string, []time.Duration) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "joined."+string(c))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ws io.WriteSeeker = f
	var buf bytes.Buffer
	if !seekable {
		ws = noSeek{&buf}
	}
	j, err := NewJoiner(c, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	var starts []time.Duration
	for i, p := range paths {
		starts = append(starts, j.Duration())
		in, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		err = j.Append(iotest.HalfReader(in))
		in.Close()
		if err != nil {
			t.Fatalf("piece %d: %v", i, err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if !seekable {
		if _, err := f.Write(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return out, append(starts, j.Duration())
}

// noSeek is a writer whose Seek always fails, as a pipe's does.
type noSeek struct{ io.Writer }

func (noSeek) Seek(int64, int) (int64, error) { return 0, errors.New("not seekable") }

// decodeClean decodes path with ffmpeg, failing the test on any message,
// and returns the samples decoded (mono, at rate).
func decodeClean(t *testing.T, path string, rate int) int64 {
	t.Helper()
	requireTool(t, "ffmpeg")
	cmd := exec.Command("ffmpeg", "-v", "error", "-nostdin", "-i", path, "-ac", "1", "-ar", strconv.Itoa(rate), "-f", "s16le", "-")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("ffmpeg decoding %s: %v\n%s", path, err, errb.String())
	}
	return int64(out.Len() / 2)
}

// pieceDurations probes each piece once: its duration, and their sum.
func pieceDurations(t *testing.T, paths []string) ([]time.Duration, time.Duration) {
	durs := make([]time.Duration, len(paths))
	var sum time.Duration
	for i, p := range paths {
		durs[i] = ffprobe(t, p).Duration
		sum += durs[i]
	}
	return durs, sum
}

// TestMP3JoinerFFprobe: MP3 pieces at every sample rate voxform asks for
// (MPEG-1, 2 and 2.5), CBR and VBR, tagged by ffmpeg (ID3v2, LAME Info
// frame) and by hand (ID3v1, APEv2), join into one stream that ffprobe
// takes, that decodes without a message, and whose duration is the sum of
// the pieces' within one frame, as the joiner says; each piece starts
// where the joiner said.
func TestMP3JoinerFFprobe(t *testing.T) {
	tests := []struct {
		name     string
		n, rate  int
		args     []string
		seekable bool
	}{
		{"8000 Hz", 3, 8000, []string{"-c:a", "libmp3lame", "-b:a", "32k"}, true},
		{"16000 Hz", 3, 16000, []string{"-c:a", "libmp3lame", "-b:a", "64k"}, true},
		{"22050 Hz", 3, 22050, []string{"-c:a", "libmp3lame", "-b:a", "64k"}, true},
		{"24000 Hz, 30 pieces", 30, 24000, []string{"-c:a", "libmp3lame", "-b:a", "64k"}, true},
		{"44100 Hz VBR", 7, 44100, []string{"-c:a", "libmp3lame", "-q:a", "5"}, true},
		{"48000 Hz stereo", 2, 48000, []string{"-c:a", "libmp3lame", "-b:a", "128k", "-ac", "2"}, true},
		{"24000 Hz, not seekable", 4, 24000, []string{"-c:a", "libmp3lame", "-b:a", "64k"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := genPieces(t, tt.n, tt.rate, "mp3", tt.args...)
			if len(paths) > 2 {
				tagID3v1(t, paths[1])
				tagAPE(t, paths[2])
			}
			checkMP3Join(t, paths, tt.rate, tt.seekable)
		})
	}
	t.Run("speech", func(t *testing.T) {
		checkMP3Join(t, speechPieces(t, 24000, "mp3", "-c:a", "libmp3lame", "-b:a", "64k"), 24000, true)
	})
}

func checkMP3Join(t *testing.T, paths []string, rate int, seekable bool) {
	t.Helper()
	joined, starts := join(t, audio.ContainerMP3, paths, seekable)
	got := ffprobe(t, joined)
	if got.Codec != "mp3" || got.SampleRate != rate {
		t.Errorf("joined: %+v", got)
	}
	frame := time.Duration(float64(time.Second) * 1152 / float64(rate))
	if rate < 32000 {
		frame /= 2
	}
	durs, sum := pieceDurations(t, paths)
	if d := absDur(got.Duration - sum); d > frame {
		t.Errorf("ffprobe: joined %v, the pieces %v: %v apart, over one frame (%v)", got.Duration, sum, d, frame)
	}
	if d := absDur(starts[len(starts)-1] - sum); d > frame {
		t.Errorf("joiner: %v, the pieces %v", starts[len(starts)-1], sum)
	}
	// Every decoded sample is a frame's: the file is the pieces' frames.
	frames := decodeClean(t, joined, rate)
	if want := int64(starts[len(starts)-1].Seconds()*float64(rate) + 0.5); frames != want {
		t.Errorf("decoded %d samples, want %d", frames, want)
	}
	var at time.Duration
	for i := range paths {
		if d := absDur(starts[i] - at); d > time.Millisecond {
			t.Errorf("piece %d starts at %v, want %v", i, starts[i], at)
		}
		at += durs[i]
	}
}

// tagID3v1 appends an ID3v1 tag to an MP3 file.
func tagID3v1(t *testing.T, path string) {
	tag := make([]byte, 128)
	copy(tag, "TAGtitle")
	appendFile(t, path, tag)
}

// tagAPE appends an APEv2 tag (header, one item, footer) to an MP3 file.
func tagAPE(t *testing.T, path string) {
	item := append([]byte{5, 0, 0, 0, 0, 0, 0, 0}, "Title\x00hello"...)
	apeHeader := func(flags uint32) []byte {
		h := make([]byte, 32)
		copy(h, "APETAGEX")
		binary.LittleEndian.PutUint32(h[8:], 2000)
		binary.LittleEndian.PutUint32(h[12:], uint32(len(item)+32))
		binary.LittleEndian.PutUint32(h[16:], 1)
		binary.LittleEndian.PutUint32(h[20:], flags)
		return h
	}
	appendFile(t, path, bytes.Join([][]byte{apeHeader(1<<31 | 1<<29), item, apeHeader(1 << 31)}, nil))
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestOpusJoinerFFprobe: Ogg Opus pieces at every sample rate voxform
// asks for, with 20 and 60 ms packets and a comment header over several
// pages, join into one logical stream that ffprobe takes and that decodes
// without a message; the decoded audio is exactly as long as the joiner
// says, which is the sum of the pieces' durations within one packet (the
// padding and priming a single stream cannot trim are made up for by
// dropping a piece's first packet whenever they add up to one), also
// after 30 joins; each piece starts where the joiner said, within two
// packets of the pieces before it.
func TestOpusJoinerFFprobe(t *testing.T) {
	bigTags := "comment=" + strings.Repeat("long comment ", 10_000)
	tests := []struct {
		name    string
		n, rate int
		args    []string
		packet  time.Duration
	}{
		{"8000 Hz", 3, 8000, []string{"-c:a", "libopus", "-b:a", "24k"}, 20 * time.Millisecond},
		{"16000 Hz, 60 ms packets", 3, 16000, []string{"-c:a", "libopus", "-frame_duration", "60"}, 60 * time.Millisecond},
		{"22050 Hz", 3, 22050, []string{"-c:a", "libopus"}, 20 * time.Millisecond},
		{"24000 Hz, 30 pieces", 30, 24000, []string{"-c:a", "libopus"}, 20 * time.Millisecond},
		{"44100 Hz, tags over pages", 3, 44100, []string{"-c:a", "libopus", "-metadata", bigTags}, 20 * time.Millisecond},
		{"48000 Hz stereo", 2, 48000, []string{"-c:a", "libopus", "-ac", "2"}, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOpusJoin(t, genPieces(t, tt.n, tt.rate, "ogg", tt.args...), tt.packet)
		})
	}
	t.Run("speech", func(t *testing.T) {
		checkOpusJoin(t, speechPieces(t, 24000, "ogg", "-c:a", "libopus"), 20*time.Millisecond)
	})
}

func checkOpusJoin(t *testing.T, paths []string, packet time.Duration) {
	t.Helper()
	joined, starts := join(t, audio.ContainerOgg, paths, true)
	got := ffprobe(t, joined)
	if got.Codec != "opus" || got.SampleRate != 48000 {
		t.Errorf("joined: %+v", got)
	}
	total := starts[len(starts)-1]
	if samples := decodeClean(t, joined, 48000); samples != int64(total.Seconds()*48000+0.5) {
		t.Errorf("decoded %d samples, the joiner says %v", samples, total)
	}
	var sum time.Duration // decoded durations of the pieces
	for i, p := range paths {
		if d := starts[i] - sum; d < 0 || d > 2*packet {
			t.Errorf("piece %d starts at %v; the pieces before it last %v", i, starts[i], sum)
		}
		sum += probeDecoded(t, p)
	}
	if d := total - sum; d < 0 || d >= packet {
		t.Errorf("joined %v, the pieces %v: %v more, want less than one packet (%v)", total, sum, d, packet)
	}
	// ffprobe's duration (the last granule position, pre-skip included)
	// agrees with the decoded length.
	if d := absDur(got.Duration - total - audio.FramesDuration(312, 48000)); d > 20*time.Millisecond {
		t.Errorf("ffprobe says %v, the decoded audio is %v", got.Duration, total)
	}
}

// probeDecoded is the decoded duration of an Opus file (Probe subtracts
// the pre-skip).
func probeDecoded(t *testing.T, path string) time.Duration {
	info, err := audio.Probe(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Duration
}

// TestJoinerRefusesMismatches: pieces of another stream shape are refused
// with a message naming both, as are damaged and foreign pieces.
func TestJoinerRefusesMismatches(t *testing.T) {
	mp3a := genPieces(t, 1, 24000, "mp3", "-c:a", "libmp3lame", "-b:a", "64k")[0]
	mp3b := genPieces(t, 1, 16000, "mp3", "-c:a", "libmp3lame", "-b:a", "64k")[0]
	oggMono := genPieces(t, 1, 48000, "ogg", "-c:a", "libopus")[0]
	oggStereo := genPieces(t, 1, 48000, "ogg", "-c:a", "libopus", "-ac", "2")[0]
	ogg24 := genPieces(t, 1, 24000, "ogg", "-c:a", "libopus")[0]
	damaged := writeFile(t, "damaged.ogg", flipByte(t, oggMono, -100))
	tests := []struct {
		name   string
		c      audio.Container
		pieces []string
		want   string
	}{
		{"MP3 sample rate", audio.ContainerMP3, []string{mp3a, mp3b}, "join MP3 piece 2: unsupported audio format: MPEG-2 layer 3, 16000 Hz, 1 channels, the first piece is MPEG-2 layer 3, 24000 Hz, 1 channels"},
		{"not MP3", audio.ContainerMP3, []string{mp3a, oggMono}, "join MP3 piece 2: not an MP3 file"},
		{"Opus channels", audio.ContainerOgg, []string{oggMono, oggStereo}, "join Ogg Opus piece 2: page 0: unsupported audio format: 2 channels, the first piece has 1"},
		{"Opus input rate", audio.ContainerOgg, []string{oggMono, ogg24}, "input sample rate 24000 Hz, the first piece's is 48000 Hz"},
		{"Opus damaged page", audio.ContainerOgg, []string{oggMono, damaged}, "the page is damaged"},
		{"not Ogg", audio.ContainerOgg, []string{oggMono, mp3a}, "join Ogg Opus piece 2: page 0: not an Ogg page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := NewJoiner(tt.c, noSeek{io.Discard}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.pieces {
				in, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				err = j.Append(in)
				in.Close()
				if err != nil {
					if !strings.Contains(err.Error(), tt.want) {
						t.Errorf("error %q, want %q in it", err, tt.want)
					}
					if j.Close() == nil {
						t.Error("Close after a refused piece succeeded")
					}
					return
				}
			}
			t.Errorf("joined; want %q", tt.want)
		})
	}
}

func flipByte(t *testing.T, path string, at int) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)+at] ^= 0x55 // at from the end: inside the last page's audio
	return b
}

// TestRawJoiner: headerless pieces (mu-law, A-law, PCM) are their bytes
// concatenated; a piece that ends mid-frame is refused.
func TestRawJoiner(t *testing.T) {
	for _, c := range []audio.Container{audio.ContainerMuLaw, audio.ContainerALaw} {
		var out bytes.Buffer
		j, err := NewJoiner(c, noSeek{&out}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := ramp(8001, 0), ramp(7, 9)
		for _, p := range [][]byte{a, b, nil} {
			if err := j.Append(bytes.NewReader(p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil || !bytes.Equal(out.Bytes(), append(a, b...)) || j.Duration() != time.Second+time.Second/1000 {
			t.Errorf("%s: %d bytes, %v, %v", c, out.Len(), j.Duration(), err)
		}
	}
	pcm := mono16k
	j, err := NewJoiner(audio.ContainerRaw, noSeek{io.Discard}, &pcm)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(bytes.NewReader(ramp(3, 0))); !errors.Is(err, audio.ErrPartialFrame) {
		t.Errorf("a piece of 3 bytes of 16-bit PCM: %v", err)
	}
	if _, err := NewJoiner(audio.ContainerRaw, noSeek{io.Discard}, nil); err == nil {
		t.Error("raw without a format: no error")
	}
	if _, err := NewJoiner(audio.ContainerFLAC, noSeek{io.Discard}, nil); !errors.Is(err, audio.ErrUnsupported) {
		t.Errorf("FLAC: %v", err)
	}
}
