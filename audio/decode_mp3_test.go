package audio_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/audio"
)

// The MP3 decoder is checked against ffmpeg's (mp3float): the samples
// Decode yields, less the encoder delay and padding of the LAME tag and
// the 529 samples of filterbank delay that ffmpeg skips with them, are
// rounded to 16 bits as ffmpeg rounds its float output (to nearest,
// clipped) and compared with `ffmpeg -i f.mp3 -f s16le -`.
//
// Tolerance: 1 LSB of 16 bits. Two float decoders that follow the
// standard differ only by rounding (float32 sums in another order), which
// moves a sample across a rounding boundary now and then; a wrong table,
// band, window or stereo rule moves whole granules by far more. Measured:
// at most 1 LSB at every rate, mono and stereo, CBR and VBR.
//
// At 24 kHz the reference is mpg123 instead: ffmpeg 5.1 (Debian 12)
// decodes some 24 kHz granules otherwise than the standard (its own
// current source has the same band tables as this decoder, ISO/IEC
// 13818-3 Table B.2 and LAME's; the granules differ where the spectrum
// crosses band 17 to 18 at 6.9 kHz), while mpg123, LAME's encoder tables
// and this decoder agree to 1 LSB.
const mp3TolLSB = 1

// mp3Signal is a test input for the decoder: an ffmpeg lavfi source.
type mp3Signal struct {
	name  string
	lavfi string
}

var mp3Signals = []mp3Signal{
	// Tones and a chirp with silences between: long blocks, and short
	// blocks at every onset.
	{"tones", "aevalsrc=0.4*sin(2*PI*440*t)*gt(mod(t\\,0.5)\\,0.1)+0.2*sin(2*PI*(300+2000*t)*t)|0.3*sin(2*PI*660*t)+0.1*sin(2*PI*5000*t)*gt(mod(t\\,0.3)\\,0.2):d=2"},
	// Pink noise, a different one in each channel: dense spectra, large
	// Huffman values.
	{"noise", "anoisesrc=color=pink:amplitude=0.3:d=2:seed=5,aformat=channel_layouts=mono[a];anoisesrc=color=brown:amplitude=0.5:d=2:seed=6[b];[a][b]amerge=inputs=2"},
}

// mp3Encoding is one libmp3lame setting the decoder is tested with.
type mp3Encoding struct {
	name     string
	channels int
	args     []string
}

var mp3Encodings = []mp3Encoding{
	{"mono cbr", 1, []string{"-b:a", "64k"}},
	{"mono vbr", 1, []string{"-q:a", "2"}},
	{"joint stereo cbr", 2, []string{"-b:a", "128k"}},
	{"stereo vbr", 2, []string{"-q:a", "6", "-joint_stereo", "0"}},
	{"joint stereo low", 2, []string{"-b:a", "32k"}},
}

var mp3Rates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// TestDecodeMP3MatchesFFmpeg decodes every signal at every MP3 sample
// rate in every encoding and compares the samples with ffmpeg's (mpg123's
// at 24 kHz). Each rate's files are encoded by one ffmpeg run and decoded
// by another (mp3RateFiles, referenceDecodeAll): starting ffmpeg costs
// more than encoding or decoding two seconds of audio.
func TestDecodeMP3MatchesFFmpeg(t *testing.T) {
	var mu sync.Mutex
	worst := map[int][2]int{} // by rate: largest difference, granules over tolerance
	t.Cleanup(func() {
		var b strings.Builder
		b.WriteString("largest |Δ| from the reference decoder in LSB of 16 bits (granules over 1 LSB):\n")
		for _, r := range mp3Rates {
			fmt.Fprintf(&b, "  %5d Hz: %d (%d)\n", r, worst[r][0], worst[r][1])
		}
		t.Log(b.String())
	})
	for _, rate := range mp3Rates {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			t.Parallel()
			paths := mp3RateFiles(t, rate)
			wants := referenceDecodeAll(t, paths, rate)
			for i, sig := range mp3Signals {
				for j, enc := range mp3Encodings {
					k := i*len(mp3Encodings) + j
					t.Run(sig.name+"/"+enc.name, func(t *testing.T) {
						got, want := decodeMP3Trimmed(t, paths[k], enc.channels), wants[k]
						if len(got) != len(want) {
							t.Fatalf("%d samples, ffmpeg %d", len(got), len(want))
						}
						maxDiff, bad, granules := compareGranules(got, want, enc.channels, rate)
						mu.Lock()
						w := worst[rate]
						worst[rate] = [2]int{max(w[0], maxDiff), w[1] + bad}
						mu.Unlock()
						if bad > 0 {
							t.Errorf("%d of %d granules differ from the reference by more than %d LSB (largest %d)", bad, granules, mp3TolLSB, maxDiff)
						}
					})
				}
			}
		})
	}
}

// mp3RateFiles encodes every signal in every encoding at rate, in one
// ffmpeg run, and returns the files' paths, signal by signal, each in
// the order of mp3Encodings.
func mp3RateFiles(t *testing.T, rate int) []string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-hide_banner", "-loglevel", "error", "-nostdin", "-y"}
	for _, sig := range mp3Signals {
		args = append(args, "-f", "lavfi", "-i", sig.lavfi)
	}
	var paths []string
	for i := range mp3Signals {
		for j, enc := range mp3Encodings {
			path := filepath.Join(dir, fmt.Sprintf("%d-%d.mp3", i, j))
			args = append(append(args, "-map", fmt.Sprintf("%d:a", i), "-ar", fmt.Sprint(rate), "-ac", fmt.Sprint(enc.channels), "-c:a", "libmp3lame"), enc.args...)
			args = append(args, path)
			paths = append(paths, path)
		}
	}
	run(t, "ffmpeg", args...)
	return paths
}

// referenceDecodeAll decodes the MP3 files at paths as the reference for
// rate does (see above), without the encoder delay and padding: mpg123
// once per file, or ffmpeg once for them all.
func referenceDecodeAll(t *testing.T, paths []string, rate int) [][]int16 {
	t.Helper()
	out := make([][]int16, len(paths))
	if rate == 24000 {
		for i, p := range paths {
			out[i] = referenceDecode(t, p, rate)
		}
		return out
	}
	var in, outs []string
	dir := t.TempDir()
	for i, p := range paths {
		in = append(in, "-i", p)
		outs = append(outs, "-map", fmt.Sprintf("%d:a", i), "-f", "s16le", filepath.Join(dir, fmt.Sprintf("%d.raw", i)))
	}
	ffmpegPipe(t, nil, append(append(in, "-y"), outs...)...)
	for i := range paths {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.raw", i)))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s16le(b)
	}
	return out
}

// decodeMP3Trimmed decodes the file at path with audio.Decode and cuts
// the encoder delay and padding its LAME tag records, as ffmpeg does,
// returning 16-bit samples rounded as ffmpeg rounds.
func decodeMP3Trimmed(t *testing.T, path string, channels int) []int16 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	delay, padding, frames, ok := audio.MP3Gapless(f)
	if !ok || frames == 0 {
		t.Fatalf("%s: no LAME tag with a frame count", path)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	d, err := audio.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format.Channels != channels {
		t.Fatalf("%d channels, encoded %d", d.Format.Channels, channels)
	}
	all := readAll(t, d.Samples)
	perFrame := int64(1152)
	if d.Format.SampleRate < 32000 {
		perFrame = 576
	}
	skip := (delay + audio.MP3DecoderDelay) * int64(channels)
	keep := (frames*perFrame - delay - padding) * int64(channels)
	if int64(len(all)) < skip+keep {
		t.Fatalf("decoded %d samples, the LAME tag says %d", len(all), skip+keep)
	}
	out := make([]int16, keep)
	for i, v := range all[skip : skip+keep] {
		out[i] = int16(max(-32768, min(32767, math.RoundToEven(v*32768))))
	}
	return out
}

// referenceDecode decodes the MP3 file at path as the reference for
// rate does (see above), without the encoder delay and padding.
func referenceDecode(t *testing.T, path string, rate int) []int16 {
	t.Helper()
	if rate != 24000 {
		return s16le(ffmpegPipe(t, nil, "-i", path, "-f", "s16le", "-"))
	}
	requireTool(t, "mpg123")
	// -s writes native byte order: little-endian on the machines voxform runs on.
	out, err := exec.Command("mpg123", "-q", "-s", path).Output()
	if err != nil {
		t.Fatalf("mpg123 %s: %v", path, err)
	}
	return s16le(out)
}

func s16le(b []byte) []int16 {
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// compareGranules returns the largest difference between got and want,
// and how many granules (576 frames) differ by more than mp3TolLSB.
func compareGranules(got, want []int16, channels, rate int) (maxDiff, bad, granules int) {
	n := 576 * channels
	for g := 0; g*n < len(got); g++ {
		end := min((g+1)*n, len(got))
		d := 0
		for i := g * n; i < end; i++ {
			d = max(d, absInt(int(got[i])-int(want[i])))
		}
		maxDiff = max(maxDiff, d)
		if d > mp3TolLSB {
			bad++
		}
		granules++
	}
	return maxDiff, bad, granules
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
