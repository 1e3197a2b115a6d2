package master_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
)

func requireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not on PATH", name)
	}
}

// ffmpegEncoder is the test's Encoder: ffmpeg run directly, with the
// flags that make its output the same bytes for the same input.
type ffmpegEncoder struct{}

func (ffmpegEncoder) Identity(e deliver.Encoding) string { return "test ffmpeg " + e.Codec }

func (ffmpegEncoder) Encode(ctx context.Context, in string, e deliver.Encoding, out string) error {
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", in, "-map_metadata", "-1",
		"-fflags", "+bitexact", "-flags:a", "+bitexact", "-threads", "1", "-ar", strconv.Itoa(e.SampleRate), "-ac", strconv.Itoa(e.Channels)}
	switch e.Codec {
	case deliver.CodecMP3:
		args = append(args, "-c:a", "libmp3lame", "-b:a", strconv.Itoa(e.Bitrate), "-f", "mp3")
	case deliver.CodecAAC:
		args = append(args, "-c:a", "aac", "-b:a", strconv.Itoa(e.Bitrate), "-f", "mp4")
	case deliver.CodecOpus:
		args = append(args, "-c:a", "libopus", "-b:a", strconv.Itoa(e.Bitrate), "-vbr", "off", "-f", "ogg")
	}
	return run(ctx, nil, "ffmpeg", append(args, out)...)
}

func (ffmpegEncoder) Decode(ctx context.Context, in string, w io.Writer) error {
	return run(ctx, w, "ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-i", in, "-c:a", "pcm_f32le", "-f", "wav", "-")
}

func (ffmpegEncoder) Probe(ctx context.Context, path string) (master.Stream, error) {
	var out bytes.Buffer
	if err := run(ctx, &out, "ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path); err != nil {
		return master.Stream{}, err
	}
	var p struct {
		Streams []struct {
			Codec      string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
			BitRate    string `json:"bit_rate"`
		} `json:"streams"`
		Format struct {
			Name string `json:"format_name"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil || len(p.Streams) == 0 {
		return master.Stream{}, fmt.Errorf("ffprobe: %v", err)
	}
	s := p.Streams[0]
	rate, _ := strconv.Atoi(s.SampleRate)
	br, _ := strconv.Atoi(s.BitRate)
	c := p.Format.Name
	if strings.Contains(c, "mp4") {
		c = deliver.ContainerMP4
	}
	return master.Stream{Container: c, Codec: s.Codec, SampleRate: rate, Channels: s.Channels, Bitrate: br}, nil
}

func run(ctx context.Context, stdout io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, errb.String())
	}
	return nil
}

// ref is what ffmpeg's filters measure of a file.
type ref struct {
	integrated, truePeak float64 // ebur128 (peak=true): LUFS, dBTP
	rms, peak            float64 // astats, Overall: RMS level dB, Peak level dB
}

// ffmpegRef measures path with ffmpeg: ebur128's integrated loudness and
// true peak from its metadata (3 decimals; the true peak linear), astats'
// overall RMS and peak levels.
func ffmpegRef(t testing.TB, path string) ref {
	t.Helper()
	requireTool(t, "ffmpeg")
	cmd := exec.Command("ffmpeg", "-hide_banner", "-nostats", "-nostdin", "-i", path, "-af",
		"ebur128=peak=true:metadata=1,ametadata=mode=print:file=-,astats=measure_perchannel=none:measure_overall=RMS_level+Peak_level",
		"-f", "null", "-")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, errb.String())
	}
	r := ref{integrated: math.NaN(), truePeak: math.NaN(), rms: math.NaN(), peak: math.NaN()}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "lavfi.r128.I="); ok {
			r.integrated, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "lavfi.r128.true_peak="); ok {
			f, _ := strconv.ParseFloat(v, 64)
			r.truePeak = 20 * math.Log10(f)
		}
	}
	for _, line := range strings.Split(errb.String(), "\n") {
		_, v, ok := strings.Cut(line, "] ")
		if !ok {
			continue
		}
		if s, ok := strings.CutPrefix(v, "RMS level dB: "); ok {
			r.rms, _ = strconv.ParseFloat(s, 64)
		}
		if s, ok := strings.CutPrefix(v, "Peak level dB: "); ok {
			r.peak, _ = strconv.ParseFloat(s, 64)
		}
	}
	return r
}

// TestMain removes the speech file the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if speechPath != "" {
		os.RemoveAll(filepath.Dir(speechPath))
	}
	os.Exit(code)
}

var (
	speechOnce sync.Once
	speechPath string
	speechErr  error
)

// speech is a WAV file of synthetic speech (espeak-ng, 22.05 kHz mono),
// about 40 s with pauses between sentences, made once per test run.
func speech(t testing.TB) string {
	t.Helper()
	requireTool(t, "espeak-ng")
	speechOnce.Do(func() {
		dir, err := os.MkdirTemp("", "voxform-master-speech-")
		if err != nil {
			speechErr = err
			return
		}
		speechPath = filepath.Join(dir, "speech.wav")
		text := "Chapter one. It was a bright cold day in April, and the clocks were striking thirteen. " +
			"Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly " +
			"through the glass doors of Victory Mansions, though not quickly enough to prevent a swirl of gritty dust " +
			"from entering along with him. The hallway smelt of boiled cabbage and old rag mats. At one end of it a " +
			"coloured poster, too large for indoor display, had been tacked to the wall."
		speechErr = exec.Command("espeak-ng", "-s", "150", "-g", "8", "-w", speechPath, text).Run()
	})
	if speechErr != nil {
		t.Fatalf("espeak-ng: %v", speechErr)
	}
	return speechPath
}

// writeWAV writes a 16-bit PCM WAV file of frames frames at rate Hz,
// mono, sample i being gen(i).
func writeWAV(t testing.TB, path string, rate int, frames int64, gen func(i int64) float64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	w, err := audio.NewWAVWriter(f, format)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 0, 4096)
	var b []byte
	for i := int64(0); i < frames; i++ {
		buf = append(buf, gen(i))
		if len(buf) == cap(buf) || i == frames-1 {
			b = audio.AppendSamples(b[:0], format, buf)
			if _, err := w.Write(b); err != nil {
				t.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// sine is a tone of freq Hz at amplitude amp (linear) between frames
// from and to, silence elsewhere.
func sine(rate int, freq, amp float64, from, to int64) func(int64) float64 {
	return func(i int64) float64 {
		if i < from || i >= to {
			return 0
		}
		return amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))
	}
}

func sha(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// heavy skips a test that masters long or many files under the race
// detector: scripts/test.sh runs this package once more without it, and
// every test runs there.
func heavy(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("masters minutes of audio: run without the race detector (scripts/test.sh's last pass)")
	}
}
