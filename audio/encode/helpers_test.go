package encode_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/audio/internal/audiotest"
)

// findTool finds the real ffmpeg, failing the test loudly when it is
// missing: these tests never pass by skipping.
func findTool(t testing.TB) *encode.Tool {
	t.Helper()
	audiotest.RequireTool(t, "ffmpeg")
	audiotest.RequireTool(t, "ffprobe")
	tool, err := encode.Find()
	if err != nil {
		t.Fatalf("find ffmpeg: %v", err)
	}
	return tool
}

// toneWAV writes frames of a 440 Hz tone with a little noise (a fixed
// seed) as a 16-bit PCM WAV at rate and channels, and returns its path.
func toneWAV(t testing.TB, rate, channels int, frames int64, extra ...[]byte) string {
	t.Helper()
	f := audio.Format{SampleRate: rate, Channels: channels, BitsPerSample: 16, Encoding: audio.PCM}
	var b bytes.Buffer
	audio.WriteWAVHeader(&b, f, frames*int64(f.BlockAlign()))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range frames {
		v := 0.3*math.Sin(2*math.Pi*440*float64(i)/float64(rate)) + 0.02*(rng.Float64()*2-1)
		for range channels {
			binary.Write(&b, binary.LittleEndian, int16(v*32767))
		}
	}
	data := b.Bytes()
	if len(extra) > 0 { // chunks between the header's fmt and data chunks
		head := audio.WAVHeaderSize(f) - 8
		var w bytes.Buffer
		w.Write(data[:head])
		for _, c := range extra {
			w.Write(c)
		}
		w.Write(data[head:])
		data = w.Bytes()
		binary.LittleEndian.PutUint32(data[4:], uint32(len(data)-8))
	}
	path := filepath.Join(t.TempDir(), "in.wav")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sum(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// probed is what ffprobe says of a file.
type probed struct {
	Streams []struct {
		CodecType   string            `json:"codec_type"`
		CodecName   string            `json:"codec_name"`
		SampleRate  string            `json:"sample_rate"`
		Channels    int               `json:"channels"`
		BitRate     string            `json:"bit_rate"`
		Disposition map[string]int    `json:"disposition"`
		Tags        map[string]string `json:"tags"`
	} `json:"streams"`
	Format struct {
		FormatName string            `json:"format_name"`
		BitRate    string            `json:"bit_rate"`
		Duration   string            `json:"duration"`
		Tags       map[string]string `json:"tags"`
	} `json:"format"`
	Chapters []struct {
		StartTime string            `json:"start_time"`
		EndTime   string            `json:"end_time"`
		Tags      map[string]string `json:"tags"`
	} `json:"chapters"`
}

// ffprobe runs the real ffprobe on path with -show_streams -show_format
// -show_chapters and fails the test if ffprobe complains.
func ffprobe(t testing.TB, path string) probed {
	t.Helper()
	audiotest.RequireTool(t, "ffprobe")
	cmd := exec.Command("ffprobe", "-v", "error", "-show_streams", "-show_format", "-show_chapters", "-of", "json", path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("ffprobe %s: %v\n%s", path, err, errb.String())
	}
	var p probed
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	return p
}

func secs(t testing.TB, s string) time.Duration {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatalf("ffprobe time %q: %v", s, err)
	}
	return time.Duration(math.Round(f * 1e9))
}
