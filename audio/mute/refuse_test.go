package mute_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/audiotest"
	"github.com/voxform/voxform/audio/mute"
	"github.com/voxform/voxform/internal/heaptest"
)

// Other containers and WAV encodings package audio does not read are
// refused with an error naming them, and nothing is written; Supports
// says the same of a file at plan time.
func TestMuteRefusesWhatItCannotCopy(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"mp3", "the source is mp3", audiotest.Concat(audiotest.XingFrame(10), audiotest.MP3Frames(3))},
		{"ogg", "the source is ogg", audiotest.OggSeed("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", 48000)},
		{"flac", "the source is flac", []byte("fLaC\x00\x00\x00\x22\x10\x00\x10\x00\x00\x00\x00\x00\x00\x00\x03\xe8\x00\xf0\x00\x00\x3e\x80")},
		{"adpcm", "format tag 0x0002", audiotest.RIFF(100, audiotest.Chunk("fmt ", audiotest.FmtBody(2, 1, 8000, 4)), audiotest.Chunk("data", audiotest.Ramp(8, 0)))},
		{"rf64", "no RIFF/WAVE signature", append([]byte("RF64\xff\xff\xff\xffWAVE"), audiotest.Chunk("fmt ", audiotest.FmtBody(1, 1, 8000, 16))...)},
		{"text", "not a WAV file", []byte("hello, this is not audio at all")},
		{"truncated", "not a WAV file", audiotest.RIFF(100, audiotest.Chunk("fmt ", audiotest.FmtBody(1, 1, 8000, 16)))},
		{"huge header", "MaxHeaderBytes (4 MiB)", audiotest.RIFF(100, audiotest.Chunk("fmt ", audiotest.FmtBody(1, 1, 8000, 16)),
			audiotest.Chunk("JUNK", make([]byte, mute.MaxHeaderBytes)), audiotest.Chunk("data", audiotest.Ramp(8, 0)))},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		err := mute.Mute(&out, bytes.NewReader(tc.file), []mute.Range{{From: 0, To: time.Second}}, mute.Silence)
		if !errors.Is(err, mute.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "only WAV") {
			t.Errorf("%s: %v, want ErrUnsupported saying %q", tc.name, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written for a refused source", tc.name, out.Len())
		}
		path := audiotest.WriteFile(t, tc.name, tc.file)
		if err := mute.Supports(path); !errors.Is(err, mute.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Supports(%s): %v", tc.name, err)
		}
	}
	for _, f := range formats {
		src, _, _ := wavFile(t, f, 0.1)
		path := audiotest.WriteFile(t, "ok.wav", src)
		if err := mute.Supports(path); err != nil {
			t.Errorf("Supports(%s): %v", f, err)
		}
	}
	if err := mute.Supports(filepath.Join(dir, "missing.wav")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Supports of a missing file: %v", err)
	}
}

// Invalid ranges, too many ranges and an unknown mode are refused before
// anything is written.
func TestMuteRefusesBadRanges(t *testing.T) {
	src, _, _ := wavFile(t, formats[1], 0.1)
	bad := map[string][]mute.Range{
		"negative":  {{From: -time.Millisecond, To: time.Second}},
		"backwards": {{From: 0, To: time.Millisecond}, {From: time.Second, To: time.Millisecond}},
		"too many":  make([]mute.Range, mute.MaxRanges+1),
	}
	want := map[string]string{"negative": "range 0", "backwards": "range 1", "too many": "MaxRanges (100000)"}
	for name, rs := range bad {
		var out bytes.Buffer
		err := mute.Mute(&out, bytes.NewReader(src), rs, mute.Beep)
		if err == nil || !strings.Contains(err.Error(), want[name]) || out.Len() != 0 {
			t.Errorf("%s: %v, %d bytes written", name, err, out.Len())
		}
	}
	var out bytes.Buffer
	if err := mute.Mute(&out, bytes.NewReader(src), nil, mute.Mode(7)); err == nil || out.Len() != 0 {
		t.Errorf("unknown mode: %v", err)
	}
	if _, err := mute.ParseMode("bleep"); err == nil || !strings.Contains(err.Error(), "silence or beep") {
		t.Errorf("ParseMode: %v", err)
	}
	for _, m := range []mute.Mode{mute.Silence, mute.Beep} {
		if got, err := mute.ParseMode(m.String()); got != m || err != nil {
			t.Errorf("ParseMode(%s) = %v, %v", m, got, err)
		}
	}
}

// A streaming header (sizes left at 0xFFFFFFFF) runs to the end: its
// audio is muted all the way, and a partial frame at the end is kept.
func TestMuteStreamingHeader(t *testing.T) {
	f := formats[1] // 16-bit stereo, 4-byte frames
	data := audio.AppendSamples(nil, f, speechLike(f, 0.5))
	src := audiotest.Concat([]byte("RIFF\xff\xff\xff\xffWAVE"), audiotest.Chunk("fmt ", audiotest.FmtBody(1, 2, 16000, 16)),
		[]byte("data\xff\xff\xff\xff"), data, []byte{1, 2, 3})
	var out bytes.Buffer
	if err := mute.Mute(&out, bytes.NewReader(src), []mute.Range{{From: 250 * time.Millisecond, To: time.Hour}}, mute.Silence); err != nil {
		t.Fatal(err)
	}
	got := out.Bytes()
	if len(got) != len(src) {
		t.Fatalf("%d bytes, source %d", len(got), len(src))
	}
	at := len(src) - 3 - len(data)/2
	if !bytes.Equal(got[:at], src[:at]) || !bytes.Equal(got[len(got)-3:], []byte{1, 2, 3}) {
		t.Error("bytes outside the range changed")
	}
	if !bytes.Equal(got[at:len(got)-3], make([]byte, len(data)/2)) {
		t.Error("the second half is not digital silence")
	}
}

// endless is a streaming-header WAV of n bytes of 16-bit mono audio,
// made as it is read.
type endless struct {
	hdr  []byte
	left int64
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.hdr) > 0 {
		n := copy(p, e.hdr)
		e.hdr = e.hdr[n:]
		return n, nil
	}
	if e.left == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), e.left))
	for i := range p[:n] {
		p[i] = byte(i*7 + 1)
	}
	e.left -= int64(n)
	return n, nil
}

// Mute streams: copying 64 MiB of audio with ranges all through it
// holds a buffer, not the audio.
func TestMuteStreams(t *testing.T) {
	const size = 64 << 20
	src := &endless{hdr: audiotest.Concat([]byte("RIFF\xff\xff\xff\xffWAVE"), audiotest.Chunk("fmt ", audiotest.FmtBody(1, 1, 48000, 16)), []byte("data\xff\xff\xff\xff")), left: size}
	var rs []mute.Range
	for s := time.Duration(0); s < 700*time.Second; s += 3 * time.Second {
		rs = append(rs, mute.Range{From: s, To: s + time.Second})
	}
	var n countingWriter
	growth := heapGrowth(func() {
		if err := mute.Mute(&n, src, rs, mute.Beep); err != nil {
			t.Fatal(err)
		}
	})
	if int64(n) != size+44 {
		t.Errorf("%d bytes written, want %d", n, size+44)
	}
	if growth > 16<<20 {
		t.Errorf("the heap grew by %d MiB muting %d MiB", growth>>20, size>>20)
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// heapGrowth runs f and returns how far the heap in use rose above its
// level before f.
func heapGrowth(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := heaptest.Sample(5 * time.Millisecond)
	f()
	if peak := stop(); peak > base {
		return peak - base
	}
	return 0
}
