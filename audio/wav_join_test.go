package audio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio"
)

// wavPiece returns a whole WAV file holding data.
func wavPiece(t testing.TB, f audio.Format, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := audio.WriteWAVHeader(&b, f, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

// withSizes overwrites a WAV piece's RIFF and data sizes (PCM header).
func withSizes(p []byte, riffSize, dataSize uint32) []byte {
	p = bytes.Clone(p)
	binary.LittleEndian.PutUint32(p[4:8], riffSize)
	binary.LittleEndian.PutUint32(p[40:44], dataSize)
	return p
}

func TestWAVJoiner(t *testing.T) {
	a, b, c := ramp(3200, 0), ramp(1600, 50), ramp(802, 100)
	all := append(append(append([]byte{}, a...), b...), c...)
	mono8 := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16}
	tests := []struct {
		name   string
		format *audio.Format
		pieces [][]byte
		want   []byte
	}{
		{"whole WAV pieces", nil, [][]byte{wavPiece(t, mono16k, a), wavPiece(t, mono16k, b), wavPiece(t, mono16k, c)}, all},
		{"header-only first piece", nil, [][]byte{wavPiece(t, mono16k, nil), wavPiece(t, mono16k, a), wavPiece(t, mono16k, b), wavPiece(t, mono16k, c)}, all},
		{"streaming sizes", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 0xFFFFFFFF, 0xFFFFFFFF), withSizes(wavPiece(t, mono16k, b), 0, 0), wavPiece(t, mono16k, c)}, all},
		{"declared size too small", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 46, 10), wavPiece(t, mono16k, b), withSizes(wavPiece(t, mono16k, c), 36, 0)}, all},
		{"declared size too large", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 1<<20, 1<<20), wavPiece(t, mono16k, b), wavPiece(t, mono16k, c)}, all},
		{"trailing LIST chunk", nil, [][]byte{append(wavPiece(t, mono16k, a), chunk("LIST", []byte("INFOxyz"))...), wavPiece(t, mono16k, b), wavPiece(t, mono16k, c)}, all},
		{"raw pieces split mid-frame", &mono16k, [][]byte{all[:1001], all[1001:1002], all[1002:4000], all[4000:]}, all},
		{"WAV header then raw", nil, [][]byte{wavPiece(t, mono16k, nil), a, b[:3], b[3:], c}, all},
		{"given format, WAV pieces", &mono8, [][]byte{wavPiece(t, mono8, a), wavPiece(t, mono8, b), c}, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.wav")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			j, err := audio.NewWAVJoiner(out, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range tt.pieces {
				if err := j.Add(p); err != nil {
					t.Fatalf("piece %d: %v", i+1, err)
				}
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			out.Close()
			file, _ := os.ReadFile(path)
			f, data, err := audio.ParseWAV(file)
			if err != nil {
				t.Fatal(err)
			}
			if n := int(binary.LittleEndian.Uint32(file[4:8])); n != len(file)-8 {
				t.Errorf("RIFF size %d, file is %d bytes", n, len(file))
			}
			if !bytes.Equal(data, tt.want) {
				t.Errorf("joined data differs: %d bytes, want %d", len(data), len(tt.want))
			}
			p := ffprobe(t, path)
			want := f.Duration(int64(len(tt.want)))
			if p.Codec != "pcm_s16le" || p.SampleRate != f.SampleRate || absDur(p.Duration-want) > time.Millisecond {
				t.Errorf("ffprobe: %+v, want pcm_s16le %d Hz %v", p, f.SampleRate, want)
			}
		})
	}
}

func TestWAVJoinerRejects(t *testing.T) {
	mono8 := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16}
	ws := &fileWS{}
	j, _ := audio.NewWAVJoiner(ws, nil)
	if err := j.Add(nil); err != nil { // an empty piece before any format is harmless
		t.Fatal(err)
	}
	if err := j.Add([]byte{1, 2, 3, 4}); err == nil {
		t.Error("raw piece with no format: no error")
	}
	if err := j.Add(wavPiece(t, mono16k, ramp(4, 0))); err != nil {
		t.Fatal(err)
	}
	err := j.Add(wavPiece(t, mono8, ramp(4, 9)))
	want := "join WAV piece 4: unsupported audio format: format 8000 Hz, 1 ch, 16-bit pcm differs from 16000 Hz, 1 ch, 16-bit pcm"
	if err == nil || err.Error() != want {
		t.Errorf("mismatch error %v, want %q", err, want)
	}
	if err := j.Add(wavPiece(t, mulaw8k, ramp(4, 9))); err == nil {
		t.Error("mu-law piece after PCM: no error")
	}
	if err := j.Add([]byte("RIFF\x10\x00\x00\x00WAVEjunk")); !errors.Is(err, audio.ErrNotWAV) {
		t.Errorf("broken header: %v, want ErrNotWAV", err)
	}
	if err := j.Add(ramp(3, 4)); err != nil { // rejected pieces changed nothing
		t.Fatal(err)
	}
	if err := j.Close(); !errors.Is(err, audio.ErrPartialFrame) {
		t.Errorf("Close = %v, want ErrPartialFrame", err)
	}
	_, data, err := audio.ParseWAV(ws.b)
	if err != nil || !bytes.Equal(data, append(ramp(4, 0), 4, 5)) {
		t.Errorf("file data %v, %v", data, err)
	}
	if err := (&audio.WAVJoiner{}).Close(); err == nil {
		t.Error("empty joiner: no error")
	}
}

// TestWAVJoinerFFmpegPieces joins WAV files as ffmpeg writes them (with a
// LIST chunk) and checks the result against ffmpeg's own decoding.
func TestWAVJoinerFFmpegPieces(t *testing.T) {
	var want []byte
	out := filepath.Join(t.TempDir(), "joined.wav")
	f, _ := os.Create(out)
	defer f.Close()
	j, _ := audio.NewWAVJoiner(f, nil)
	for i, secs := range []float64{0.5, 0.25, 0.125} {
		path := genFFmpeg(t, "piece.wav", secs, 24000, "-c:a", "pcm_s16le")
		piece, _ := os.ReadFile(path)
		if !bytes.Contains(piece, []byte("LIST")) {
			t.Logf("piece %d has no LIST chunk", i)
		}
		want = append(want, ffmpegPipe(t, nil, "-i", path, "-f", "s16le", "-")...)
		if err := j.Add(piece); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got := ffmpegPipe(t, nil, "-i", out, "-f", "s16le", "-")
	if diff := cmp.Diff(len(want), len(got)); diff != "" || !bytes.Equal(want, got) {
		t.Errorf("joined audio differs from the pieces (len -want +got):\n%s", diff)
	}
	if p := ffprobe(t, out); absDur(p.Duration-875*time.Millisecond) > time.Millisecond {
		t.Errorf("ffprobe duration %v, want 875ms", p.Duration)
	}
}

// TestWAVJoinerAppend: Append, reading pieces, makes the file Add makes
// from the same pieces held in memory.
func TestWAVJoinerAppend(t *testing.T) {
	a, b, c := ramp(3200, 0), ramp(1600, 50), ramp(802, 100)
	tests := []struct {
		name   string
		format *audio.Format
		pieces [][]byte
	}{
		{"whole WAV pieces", nil, [][]byte{wavPiece(t, mono16k, a), wavPiece(t, mono16k, b), wavPiece(t, mono16k, c)}},
		{"streaming sizes", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 0xFFFFFFFF, 0xFFFFFFFF), withSizes(wavPiece(t, mono16k, b), 0, 0), wavPiece(t, mono16k, c)}},
		{"declared size too small", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 46, 10), wavPiece(t, mono16k, b), withSizes(wavPiece(t, mono16k, c), 36, 0)}},
		{"declared size too large", nil, [][]byte{withSizes(wavPiece(t, mono16k, a), 1<<20, 1<<20), wavPiece(t, mono16k, b)}},
		{"trailing LIST chunk", nil, [][]byte{append(wavPiece(t, mono16k, a), chunk("LIST", []byte("INFOxyz"))...), wavPiece(t, mono16k, b)}},
		{"raw after a WAV piece", nil, [][]byte{wavPiece(t, mono16k, nil), a, b[:3], b[3:], c}},
		{"a large piece", nil, [][]byte{wavPiece(t, mono16k, ramp(3<<20, 1)), wavPiece(t, mono16k, b)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added := joinWAV(t, tt.format, tt.pieces, func(j *audio.WAVJoiner, p []byte) error { return j.Add(p) })
			appended := joinWAV(t, tt.format, tt.pieces, func(j *audio.WAVJoiner, p []byte) error {
				if len(p) > 64<<10 {
					return j.Append(iotest.HalfReader(bytes.NewReader(p)))
				}
				return j.Append(iotest.OneByteReader(bytes.NewReader(p)))
			})
			if !bytes.Equal(added, appended) {
				t.Errorf("Append made %d bytes, Add %d", len(appended), len(added))
			}
		})
	}
}

func joinWAV(t *testing.T, f *audio.Format, pieces [][]byte, add func(*audio.WAVJoiner, []byte) error) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.wav")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	j, err := audio.NewWAVJoiner(out, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pieces {
		if err := add(j, p); err != nil {
			t.Fatalf("piece %d: %v", i, err)
		}
	}
	if err := j.Close(); err != nil && !errors.Is(err, audio.ErrPartialFrame) {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
