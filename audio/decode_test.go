package audio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/voxform/voxform/audio"
)

// TestDecodeWAVMatchesFFmpeg decodes WAV files of every encoding and
// compares every sample with ffmpeg's conversion to 64-bit float.
func TestDecodeWAVMatchesFFmpeg(t *testing.T) {
	tests := []struct {
		name  string
		rate  int
		args  []string
		codec string
	}{
		{"u8 stereo", 22050, []string{"-ac", "2", "-c:a", "pcm_u8"}, "pcm"},
		{"s16", 16000, []string{"-c:a", "pcm_s16le"}, "pcm"},
		{"s24", 48000, []string{"-c:a", "pcm_s24le"}, "pcm"},
		{"s32", 44100, []string{"-c:a", "pcm_s32le"}, "pcm"},
		{"f32", 24000, []string{"-c:a", "pcm_f32le"}, "float"},
		{"mulaw", 8000, []string{"-c:a", "pcm_mulaw"}, "mulaw"},
		{"alaw", 8000, []string{"-c:a", "pcm_alaw"}, "alaw"},
		{"extensible 3ch", 8000, []string{"-ac", "3", "-c:a", "pcm_s16le"}, "pcm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := genFFmpeg(t, "a.wav", 0.5, tt.rate, tt.args...)
			want := f64le(ffmpegPipe(t, nil, "-i", path, "-f", "f64le", "-c:a", "pcm_f64le", "-"))
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := audio.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if d.Container != audio.ContainerWAV || d.Format.Encoding.String() != tt.codec || d.Format.SampleRate != tt.rate {
				t.Errorf("decoded %s %v", d.Container, d.Format)
			}
			got := readAll(t, d.Samples)
			if len(got) != len(want) {
				t.Fatalf("%d samples, ffmpeg %d", len(got), len(want))
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-7 {
					t.Fatalf("sample %d = %v, ffmpeg %v", i, got[i], want[i])
				}
			}
		})
	}
}

func f64le(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// TestDecodeMP3 decodes MP3 files made by ffmpeg and checks rate,
// channels, length and pitch against what was encoded.
func TestDecodeMP3(t *testing.T) {
	tests := []struct {
		name     string
		rate     int
		channels int
		args     []string
	}{
		{"cbr 44.1k with Info frame and ID3 tags", 44100, 1, []string{"-c:a", "libmp3lame", "-b:a", "128k", "-write_id3v1", "1", "-metadata", "title=x"}},
		{"vbr 48k stereo", 48000, 2, []string{"-ac", "2", "-c:a", "libmp3lame", "-q:a", "5"}},
		{"mpeg2 22.05k no Xing", 22050, 1, []string{"-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"}},
		{"mpeg2 16k", 16000, 1, []string{"-c:a", "libmp3lame", "-b:a", "32k"}},
		{"mpeg2.5 8k", 8000, 1, []string{"-c:a", "libmp3lame", "-b:a", "32k"}},
		{"mpeg2.5 11.025k stereo", 11025, 2, []string{"-ac", "2", "-c:a", "libmp3lame", "-b:a", "32k"}},
		{"mpeg2.5 12k vbr", 12000, 1, []string{"-c:a", "libmp3lame", "-q:a", "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := genFFmpeg(t, "a.mp3", 1, tt.rate, tt.args...)
			want := len(ffmpegPipe(t, nil, "-i", path, "-f", "s16le", "-ac", "2", "-")) / 4
			f, _ := os.Open(path)
			defer f.Close()
			d, err := audio.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if d.Format.SampleRate != tt.rate || d.Format.Channels != tt.channels {
				t.Errorf("format %v", d.Format)
			}
			got := readAll(t, audio.Mono(d.Samples))
			// Decode does not trim the encoder delay and padding; ffmpeg does.
			if slack := 2 * 1152; len(got) < want || len(got) > want+slack {
				t.Errorf("%d frames, ffmpeg %d (+%d allowed)", len(got), want, slack)
			}
			// The pitch of the audio only: the encoder delay and padding
			// decode to near-silence, whose float noise crosses zero.
			if f := zeroCrossFreq(got[want/4:want], tt.rate); math.Abs(f-440) > 1 {
				t.Errorf("pitch %.2f Hz, want 440", f)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		is   error
	}{
		{"ogg", oggSeed("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", 48000), audio.ErrUnsupported},
		{"garbage", []byte("hello world"), audio.ErrUnsupported},
		// MPEG-1 layer II, 128 kbit/s at 44.1 kHz: 417-byte frames.
		{"mp2", bytes.Repeat(append([]byte{0xFF, 0xFD, 0x80, 0xC4}, make([]byte, 413)...), 10), audio.ErrUnsupported},
		{"bad wav", []byte("RIFF\x00\x00\x00\x00WAVEdata"), audio.ErrNotWAV},
		{"mp3 garbage frames", concat([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0xFF, 0xFB, 0x90, 0x44, 0xFF, 0xFF}, 2000)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := audio.Decode(bytes.NewReader(tt.in))
			if err == nil {
				_, err = io.Copy(io.Discard, mustEncoder(t, d))
			}
			if err == nil {
				if tt.is != nil {
					t.Fatal("no error")
				}
				return
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
		})
	}
}

func mustEncoder(t *testing.T, d *audio.Decoded) io.Reader {
	t.Helper()
	e, err := audio.NewEncoder(d.Samples, d.Format)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestToPCM16MonoFrames converts WAV and MP3 input to what realtime
// recognition takes and cuts it into frames.
// conformance: RT-012, RT-013
func TestToPCM16MonoFrames(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		args      []string
		srcRate   int
		rate      int
		tolerance int     // output samples beyond the exact count allowed (MP3 decoder delay)
		amplitude float64 // of the sine after downmixing (0: ffmpeg's 1/8)
	}{
		// ffmpeg's upmix puts the mono sine at -3 dB on each channel.
		{"48k stereo wav to 16k", "a.wav", []string{"-ac", "2", "-c:a", "pcm_s16le"}, 48000, 16000, 0, 0.125 / math.Sqrt2},
		{"8k mulaw wav to 16k", "a.wav", []string{"-c:a", "pcm_mulaw"}, 8000, 16000, 0, 0},
		{"8k alaw wav to 16k", "a.wav", []string{"-c:a", "pcm_alaw"}, 8000, 16000, 0, 0},
		{"16k alaw wav to 8k", "a.wav", []string{"-c:a", "pcm_alaw"}, 16000, 8000, 0, 0},
		{"22.05k wav to 16k", "a.wav", []string{"-c:a", "pcm_s24le"}, 22050, 16000, 0, 0},
		{"44.1k wav to 8k", "a.wav", []string{"-c:a", "pcm_f32le"}, 44100, 8000, 0, 0},
		{"44.1k mp3 to 16k", "a.mp3", []string{"-c:a", "libmp3lame"}, 44100, 16000, 2 * 1152 * 16000 / 44100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := genFFmpeg(t, tt.file, 1.5, tt.srcRate, tt.args...)
			f, _ := os.Open(path)
			defer f.Close()
			d, err := audio.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			pcm, err := audio.ToPCM16Mono(d, tt.rate)
			if err != nil {
				t.Fatal(err)
			}
			fr := audio.NewFrameReader(pcm, audio.RealtimeFrameBytes)
			var all []byte
			for {
				frame, err := fr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(frame) != 1024 {
					t.Fatalf("frame of %d bytes", len(frame))
				}
				all = append(all, frame...)
			}
			samples := make([]float64, len(all)/2)
			for i := range samples {
				samples[i] = float64(int16(binary.LittleEndian.Uint16(all[2*i:]))) / 32768
			}
			exact := (int(1.5*float64(tt.srcRate))*tt.rate + tt.srcRate - 1) / tt.srcRate
			if padded := (exact*2 + 1023) / 1024 * 512; len(samples) < padded || len(samples) > padded+tt.tolerance+512 {
				t.Errorf("%d samples, want %d (exactly %d, padded to a frame)", len(samples), padded, exact)
			}
			if f := zeroCrossFreq(samples[:exact], tt.rate); math.Abs(f-440) > 1 {
				t.Errorf("pitch %.2f Hz, want 440", f)
			}
			// A wrong expansion of G.711 or a wrong scale keeps the pitch
			// but not the level.
			amplitude := tt.amplitude
			if amplitude == 0 {
				amplitude = 0.125
			}
			var sum float64
			for _, v := range samples[:exact] {
				sum += v * v
			}
			if rms, want := math.Sqrt(sum/float64(exact)), amplitude/math.Sqrt2; math.Abs(rms-want) > 0.08*want {
				t.Errorf("level %.4f RMS, want %.4f", rms, want)
			}
		})
	}
}

func TestFrameReader(t *testing.T) {
	for _, n := range []int{0, 1, 1023, 1024, 1025, 4096} {
		fr := audio.NewFrameReader(bytes.NewReader(bytes.Repeat([]byte{7}, n)), 1024)
		var sizes []int
		total := 0
		for {
			b, err := fr.Next()
			if err == io.EOF {
				break
			}
			sizes = append(sizes, len(b))
			total += bytes.Count(b, []byte{7})
		}
		if want := (n + 1023) / 1024; len(sizes) != want || total != n {
			t.Errorf("%d bytes: frames %v with %d data bytes, want %d frames", n, sizes, total, want)
		}
	}
}

// longWAV writes a sparse WAV file of ten minutes of 48 kHz stereo
// 16-bit silence (115 MB) and returns its path and data size.
func longWAV(tb testing.TB) (string, int64) {
	tb.Helper()
	path := tb.TempDir() + "/long.wav"
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	fm := audio.Format{SampleRate: 48000, Channels: 2, BitsPerSample: 16}
	size := int64(fm.ByteRate()) * 600
	if err := audio.WriteWAVHeader(f, fm, size); err != nil {
		tb.Fatal(err)
	}
	if err := f.Truncate(int64(audio.WAVHeaderSize(fm)) + size); err != nil {
		tb.Fatal(err)
	}
	return path, size
}

// TestStreamingMemory probes, validates and opens ten minutes of 48 kHz
// stereo WAV (115 MB), converts the first ten seconds and checks that the bytes
// allocated stay a small constant: nothing reads the file whole.
// BenchmarkDecodeLongWAV streams all of it.
func TestStreamingMemory(t *testing.T) {
	path, size := longWAV(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	info, err := audio.Probe(path)
	if err != nil || info.Duration.Minutes() != 10 {
		t.Fatalf("Probe = %+v, %v", info, err)
	}
	if err := audio.Validate(path, audio.ContainerWAV); err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open(path)
	defer in.Close()
	d, err := audio.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := audio.ToPCM16Mono(d, 16000)
	if err != nil {
		t.Fatal(err)
	}
	minute := int64(16000 * 2 * 10)
	if n, err := io.CopyN(io.Discard, pcm, minute); err != nil || n != minute {
		t.Fatalf("converted %d bytes, want %d: %v", n, minute, err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes for a %d-byte file", alloc, size)
	}
}

// BenchmarkDecodeLongWAV decodes ten minutes of 48 kHz stereo WAV to
// 16 kHz mono PCM, as realtime recognition sends it; allocs/op and B/op
// stay flat whatever the length.
func BenchmarkDecodeLongWAV(b *testing.B) {
	path, _ := longWAV(b)
	b.ReportAllocs()
	for b.Loop() {
		in, _ := os.Open(path)
		d, err := audio.Decode(in)
		if err != nil {
			b.Fatal(err)
		}
		pcm, _ := audio.ToPCM16Mono(d, 16000)
		n, err := io.Copy(io.Discard, pcm)
		if err != nil || n != 16000*2*600 {
			b.Fatalf("converted %d bytes: %v", n, err)
		}
		in.Close()
	}
}
