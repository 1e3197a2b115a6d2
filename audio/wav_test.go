package audio_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// conformance: TTS-034, TTS-038, TTS-039
func TestWriteWAVHeaderGolden(t *testing.T) {
	tests := []struct {
		name string
		f    audio.Format
		data int64
	}{
		{"pcm16_mono_16k", mono16k, 32000},
		{"pcm24_stereo_48k", stereo48, 288000},
		{"mulaw_8k", mulaw8k, 8000},
		{"alaw_8k", alaw8k, 8001},
		{"float32_22k", float22, 88200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := audio.WriteWAVHeader(&b, tt.f, tt.data); err != nil {
				t.Fatal(err)
			}
			if b.Len() != audio.WAVHeaderSize(tt.f) {
				t.Errorf("header is %d bytes, WAVHeaderSize says %d", b.Len(), audio.WAVHeaderSize(tt.f))
			}
			golden(t, filepath.Join("testdata", "header_"+tt.name+".golden"), []byte(hex.Dump(b.Bytes())))
			f, n, err := audio.ReadWAVHeader(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.f, f); diff != "" || n != tt.data {
				t.Errorf("read back %d bytes (want %d), format diff (-want +got):\n%s", n, tt.data, diff)
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestWriteWAVHeaderRejects(t *testing.T) {
	tests := []struct {
		name string
		f    audio.Format
		data int64
	}{
		{"zero rate", audio.Format{Channels: 1, BitsPerSample: 16}, 0},
		{"12-bit", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 12}, 0},
		{"16-bit mulaw", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16, Encoding: audio.MuLaw}, 0},
		{"negative size", mono16k, -1},
		{"over 4 GiB", mono16k, 1 << 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := audio.WriteWAVHeader(io.Discard, tt.f, tt.data); err == nil {
				t.Error("no error")
			}
		})
	}
}

// fileWS is a minimal io.WriteSeeker over a byte slice.
type fileWS struct {
	b   []byte
	pos int64
}

func (f *fileWS) Write(p []byte) (int, error) {
	if need := f.pos + int64(len(p)); need > int64(len(f.b)) {
		f.b = append(f.b, make([]byte, need-int64(len(f.b)))...)
	}
	copy(f.b[f.pos:], p)
	f.pos += int64(len(p))
	return len(p), nil
}

func (f *fileWS) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += f.pos
	case io.SeekEnd:
		off += int64(len(f.b))
	}
	if off < 0 {
		return 0, errors.New("negative position")
	}
	f.pos = off
	return off, nil
}

func TestWAVWriterPatchesSizes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		f     audio.Format
		parts []int
	}{
		{"pcm16", mono16k, []int{100, 0, 3000, 2}},
		{"mulaw odd length", mulaw8k, []int{1, 2, 4}},
		{"empty", stereo48, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := &fileWS{}
			ws.Write([]byte("prefix")) // the writer starts at the current position
			w, err := audio.NewWAVWriter(ws, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for i, n := range tt.parts {
				if _, err := w.Write(bytes.Repeat([]byte{byte(i + 1)}, n)); err != nil {
					t.Fatal(err)
				}
				total += n
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			file := ws.b[6:]
			want := audio.WAVHeaderSize(tt.f) + total + total%2
			if len(file) != want {
				t.Fatalf("file is %d bytes, want %d", len(file), want)
			}
			if riff := binary.LittleEndian.Uint32(file[4:8]); int(riff) != len(file)-8 {
				t.Errorf("RIFF size %d, want %d", riff, len(file)-8)
			}
			f, n, err := audio.ReadWAVHeader(bytes.NewReader(file))
			if err != nil || f != tt.f || n != int64(total) {
				t.Errorf("ReadWAVHeader = %v, %d, %v; want %v, %d", f, n, err, tt.f, total)
			}
			if ws.pos != int64(len(ws.b)) {
				t.Errorf("writer left at %d, file ends at %d", ws.pos, len(ws.b))
			}
		})
	}
}

func TestReadWAVHeader(t *testing.T) {
	payload := []byte{1, 2, 3, 4}
	tests := []struct {
		name     string
		in       []byte
		want     audio.Format
		wantData int64
	}{
		{"LIST and fact before data", riff(100, chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("LIST", []byte("INFOISFT\x05\x00\x00\x00Lavf\x00\x00")),
			chunk("fact", []byte{2, 0, 0, 0}), chunk("data", payload)), mono16k, 4},
		{"odd-sized chunk with pad byte", riff(100, chunk("junk", []byte{9, 9, 9}), chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", payload)), mono16k, 4},
		{"extensible pcm 24", riff(100, chunk("fmt ", fmtBody(0xFFFE, 2, 48000, 24, extensible(1, 24)...)), chunk("data", payload)), stereo48, 4},
		{"extensible float", riff(100, chunk("fmt ", fmtBody(0xFFFE, 1, 22050, 32, extensible(3, 32)...)), chunk("data", payload)), float22, 4},
		{"mulaw tag 7", riff(100, chunk("fmt ", fmtBody(7, 1, 8000, 8, 0, 0)), chunk("data", payload)), mulaw8k, 4},
		{"alaw tag 6", riff(100, chunk("fmt ", fmtBody(6, 1, 8000, 8, 0, 0)), chunk("data", payload)), alaw8k, 4},
		{"8-bit unsigned", riff(100, chunk("fmt ", fmtBody(1, 1, 8000, 8)), chunk("data", payload)), u8mono, 4},
		{"streaming 0xFFFFFFFF", riff(0xFFFFFFFF, chunk("fmt ", fmtBody(1, 1, 16000, 16)), []byte("data\xff\xff\xff\xff")), mono16k, audio.UnknownSize},
		{"streaming zero sizes", riff(0, chunk("fmt ", fmtBody(1, 1, 16000, 16)), []byte("data\x00\x00\x00\x00")), mono16k, audio.UnknownSize},
		{"empty data", riff(36, chunk("fmt ", fmtBody(1, 1, 16000, 16)), []byte("data\x00\x00\x00\x00")), mono16k, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := bytes.NewReader(append(tt.in, 0xAB))
			f, n, err := audio.ReadWAVHeader(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f); diff != "" {
				t.Errorf("format (-want +got):\n%s", diff)
			}
			if n != tt.wantData {
				t.Errorf("data bytes %d, want %d", n, tt.wantData)
			}
			rest, _ := io.ReadAll(r)
			if len(rest) == 0 || rest[len(rest)-1] != 0xAB || (n > 0 && !bytes.Equal(rest[:4], payload)) {
				t.Errorf("reader not left at the data: rest %v", rest)
			}
		})
	}
}

func TestReadWAVHeaderErrors(t *testing.T) {
	good := chunk("fmt ", fmtBody(1, 1, 16000, 16))
	tests := []struct {
		name    string
		in      []byte
		notWAV  bool
		message string
	}{
		{"empty", nil, true, "not a WAV file: header is 0 bytes, need 12"},
		{"mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00"), true, `not a WAV file: no RIFF/WAVE signature (starts with "ID3.........")`},
		{"no fmt", riff(4), true, "not a WAV file: no fmt chunk before offset 12"},
		{"no data", riff(30, good), true, "not a WAV file: no data chunk before offset 36"},
		{"data before fmt", riff(30, chunk("data", nil), good), true, "not a WAV file: data chunk at offset 12 before the fmt chunk"},
		{"short fmt", riff(30, chunk("fmt ", []byte{1, 0})), true, "not a WAV file: fmt chunk at offset 12 has size 2"},
		{"truncated chunk", riff(30, []byte("LIST\xff\x00\x00\x00abc")), true, `not a WAV file: chunk "LIST" at offset 12: truncated: 3 of 256 bytes`},
		{"adpcm", riff(30, chunk("fmt ", fmtBody(0x11, 1, 8000, 4)), chunk("data", nil)), false, "read WAV header: unsupported audio format: format tag 0x0011"},
		{"zero channels", riff(30, chunk("fmt ", fmtBody(1, 0, 8000, 16)), chunk("data", nil)), false, "read WAV header: unsupported audio format: 0 channels outside 1..32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := audio.ReadWAVHeader(bytes.NewReader(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.message {
				t.Errorf("error %q, want %q", err, tt.message)
			}
			if errors.Is(err, audio.ErrNotWAV) != tt.notWAV {
				t.Errorf("errors.Is(ErrNotWAV) = %v, want %v", !tt.notWAV, tt.notWAV)
			}
		})
	}
}

// TestWAVWriterFilesAcceptedByFFprobe writes half a second of a sine in
// every encoding through SampleWriter and WAVWriter and has ffprobe read
// the files back.
// conformance: TTS-034, TTS-038, TTS-039
func TestWAVWriterFilesAcceptedByFFprobe(t *testing.T) {
	tests := []struct {
		codec string
		f     audio.Format
	}{
		{"pcm_u8", audio.Format{SampleRate: 22050, Channels: 2, BitsPerSample: 8}},
		{"pcm_s16le", audio.Format{SampleRate: 48000, Channels: 1, BitsPerSample: 16}},
		{"pcm_s24le", audio.Format{SampleRate: 44100, Channels: 2, BitsPerSample: 24}},
		{"pcm_s32le", audio.Format{SampleRate: 16000, Channels: 8, BitsPerSample: 32}},
		{"pcm_f32le", audio.Format{SampleRate: 24000, Channels: 1, BitsPerSample: 32, Encoding: audio.Float}},
		{"pcm_f64le", audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 64, Encoding: audio.Float}},
		{"pcm_mulaw", mulaw8k},
		{"pcm_alaw", alaw8k},
	}
	for _, tt := range tests {
		t.Run(tt.codec, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.wav")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			w, err := audio.NewWAVWriter(out, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			sw, _ := audio.NewSampleWriter(w, tt.f)
			src := &sineSource{rate: tt.f.SampleRate, ch: tt.f.Channels, frames: tt.f.SampleRate/2 + 1, freq: 440, amp: 0.8}
			buf := make([]float64, 333*tt.f.Channels)
			for {
				n, err := src.ReadSamples(buf)
				if werr := sw.WriteSamples(buf[:n]); werr != nil {
					t.Fatal(werr)
				}
				if err != nil {
					break
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got := ffprobe(t, path)
			want := probeResult{Codec: tt.codec, SampleRate: tt.f.SampleRate, Channels: tt.f.Channels,
				Duration: audio.FramesDuration(int64(src.frames), tt.f.SampleRate), Format: "wav"}
			if diff := cmp.Diff(want, got, cmpDuration(time.Millisecond)); diff != "" {
				t.Errorf("ffprobe (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpDuration compares durations within tol.
func cmpDuration(tol time.Duration) cmp.Option {
	return cmp.Comparer(func(a, b time.Duration) bool { return absDur(a-b) <= tol })
}
