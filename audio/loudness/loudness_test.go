package loudness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// segment is a stretch of a test signal: a sine of freq Hz whose peak is
// dbfs on every channel, for seconds.
type segment struct {
	dbfs, seconds float64
}

// tones renders segments of a 1 kHz sine at rate in channels channels,
// interleaved, continuous in phase across segments.
func tones(rate, channels int, freq float64, segs ...segment) []float64 {
	n := 0
	for _, s := range segs {
		n += int(math.Round(s.seconds * float64(rate)))
	}
	x := make([]float64, 0, n*channels)
	i := 0
	for _, s := range segs {
		a := math.Pow(10, s.dbfs/20)
		for n := int(math.Round(s.seconds * float64(rate))); n > 0; n-- {
			v := a * math.Sin(2*math.Pi*freq*float64(i)/float64(rate))
			for c := 0; c < channels; c++ {
				x = append(x, v)
			}
			i++
		}
	}
	return x
}

func measure(t *testing.T, rate, channels int, x []float64) loudness.Loudness {
	t.Helper()
	m, err := loudness.NewLoudnessMeter(rate, channels)
	if err != nil {
		t.Fatal(err)
	}
	m.Write(x)
	return m.Loudness()
}

// TestLoudnessEBUTech3341 runs the integrated-loudness cases of EBU Tech
// 3341 (v4, table 1, cases 1 to 5: stereo 1 kHz sines whose gating
// removes the quiet parts). Each must read -23.0 LUFS (the Tech's
// tolerance is ±0.1), case 2 -33.0. Cases 1 to 4 run a fifth of the
// Tech's length (their gating depends on the proportions) at every rate
// voxform writes, or at 48 kHz only under the race detector. Case 5,
// whose result also depends on how many blocks straddle its changes of
// level (a fifth of its length reads 0.11 LU high), runs at half length
// at 48 kHz.
func TestLoudnessEBUTech3341(t *testing.T) {
	rates := loudnessRates
	if raceEnabled {
		rates = []int{48000}
	}
	cases := []struct {
		name  string
		segs  []segment
		want  float64
		rates []int
	}{
		{"1: -23 dBFS", []segment{{-23, 4}}, -23, rates},
		{"2: -33 dBFS", []segment{{-33, 4}}, -33, rates},
		{"3: relative gate", []segment{{-36, 2}, {-23, 12}, {-36, 2}}, -23, rates},
		{"4: absolute and relative gates", []segment{{-72, 2}, {-36, 2}, {-23, 12}, {-36, 2}, {-72, 2}}, -23, rates},
		{"5: levels averaged", []segment{{-26, 10}, {-20, 10.05}, {-26, 10}}, -23, []int{48000}},
	}
	for _, tc := range cases {
		for _, rate := range tc.rates {
			t.Run(fmt.Sprintf("%s/%d", tc.name, rate), func(t *testing.T) {
				l := measure(t, rate, 2, tones(rate, 2, 1000, tc.segs...))
				if math.Abs(l.Integrated-tc.want) > 0.1 || l.Silent || l.Short {
					t.Errorf("got %v (%.3f LUFS), want %.1f LUFS", l, l.Integrated, tc.want)
				}
			})
		}
	}
}

// TestLoudnessTruePeakTech3341 runs the 48 kHz true-peak cases of EBU
// Tech 3341 (v4, table 2, cases 15 to 18): sines at fs/4, fs/6 and fs/8
// whose samples miss the crests (by up to 3 dB), each -6.02 dBTP. The
// Tech allows +0.2/-0.4 dB; a sample-peak meter reads as low as -9 dB.
func TestLoudnessTruePeakTech3341(t *testing.T) {
	cases := []struct {
		name        string
		freq, phase float64 // phase in degrees
	}{
		{"15: fs/4, 0°", 12000, 0},
		{"16: fs/4, 45°", 12000, 45},
		{"17: fs/6, 60°", 8000, 60},
		{"18: fs/8, 67.5°", 6000, 67.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const rate = 48000
			x := make([]float64, rate)
			for i := range x {
				x[i] = 0.5 * math.Sin(2*math.Pi*tc.freq*float64(i)/rate+tc.phase*math.Pi/180)
			}
			l := measure(t, rate, 1, x)
			if want := 20 * math.Log10(0.5); l.TruePeak < want-0.4 || l.TruePeak > want+0.2 {
				t.Errorf("true peak %.2f dBTP, want %.2f (+0.2/-0.4)", l.TruePeak, want)
			}
		})
	}
}

// TestLoudnessInterSamplePeakAllRates checks at every rate that a tone
// sampled off its crests reads its real peak, not its largest sample.
func TestLoudnessInterSamplePeakAllRates(t *testing.T) {
	for _, rate := range loudnessRates {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			freq := float64(rate) / 4 * 0.9 // near Nyquist, where samples miss most
			x := make([]float64, rate)
			for i := range x {
				x[i] = 0.5 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)+math.Pi/4)
			}
			l := measure(t, rate, 1, x)
			if want := 20 * math.Log10(0.5); math.Abs(l.TruePeak-want) > 0.1 {
				t.Errorf("true peak %.3f dBTP, want %.3f", l.TruePeak, want)
			}
		})
	}
}

// TestLoudnessDefinedResults checks silence, short, empty and non-finite
// input: defined values, never NaN.
func TestLoudnessDefinedResults(t *testing.T) {
	inf := math.Inf(-1)
	tests := []struct {
		name                 string
		x                    []float64
		silent, short        bool
		integrated, truePeak float64 // NaN: any finite value
	}{
		{"empty", nil, true, true, inf, inf},
		{"silence", make([]float64, 48000), true, false, inf, inf},
		{"one frame", []float64{0.5}, true, true, inf, 20 * math.Log10(0.5)},
		{"399 ms tone", tones(48000, 1, 1000, segment{-10, 0.399}), true, true, inf, math.NaN()},
		{"400 ms tone", tones(48000, 1, 1000, segment{-10, 0.4}), false, false, math.NaN(), math.NaN()},
		{"below -70 LUFS", tones(48000, 1, 1000, segment{-75, 2}), true, false, inf, math.NaN()},
		{"non-finite samples", append(tones(48000, 1, 1000, segment{-20, 1}), math.NaN(), math.Inf(1), math.Inf(-1)), false, false, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := measure(t, 48000, 1, tt.x)
			if l.Silent != tt.silent || l.Short != tt.short {
				t.Errorf("silent %v short %v, want %v %v", l.Silent, l.Short, tt.silent, tt.short)
			}
			check := func(what string, got, want float64) {
				if math.IsNaN(want) && (math.IsNaN(got) || math.IsInf(got, 0)) || !math.IsNaN(want) && got != want {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("integrated", l.Integrated, tt.integrated)
			check("true peak", l.TruePeak, tt.truePeak)
		})
	}
}

// TestLoudnessPiecesDoNotMatter writes the same audio in pieces of random
// sizes and in one go.
func TestLoudnessPiecesDoNotMatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := tones(22050, 2, 440, segment{-30, 1.3}, segment{-12, 2.1}, segment{-50, 0.7})
	for i := range x {
		x[i] += 0.01 * rng.NormFloat64()
	}
	whole := measure(t, 22050, 2, x)
	m, _ := loudness.NewLoudnessMeter(22050, 2)
	for rest := x; len(rest) > 0; {
		n := min(len(rest), 2*rng.IntN(6000))
		m.Write(rest[:n])
		rest = rest[n:]
	}
	pieces := m.Loudness()
	if math.Abs(whole.Integrated-pieces.Integrated) > 1e-9 || whole.TruePeak != pieces.TruePeak || whole.Duration != pieces.Duration {
		t.Errorf("whole %+v, in pieces %+v", whole, pieces)
	}
}

// TestLoudnessMemoryIsBounded measures a minute of 48 kHz stereo (11 MB
// of PCM; 20 s under the race detector) from a reader and checks that the
// measurement allocates a small fixed amount, not in proportion to the
// audio.
func TestLoudnessMemoryIsBounded(t *testing.T) {
	f := audio.Format{SampleRate: 48000, Channels: 2, BitsPerSample: 16}
	size := int64(60 * f.ByteRate())
	if raceEnabled {
		size /= 3
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := loudness.MeasureLoudness(context.Background(), &loop{buf: speechLike(48000, 7), n: size}, f)
	runtime.ReadMemStats(&after)
	if err != nil || l.Silent {
		t.Fatal(l, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("measuring %d MB allocated %d bytes", size>>20, got)
	}
}

func TestLoudnessErrors(t *testing.T) {
	if _, err := loudness.NewLoudnessMeter(4000, 1); !errors.Is(err, audio.ErrFormat) {
		t.Errorf("4 kHz: %v", err)
	}
	if _, err := loudness.NewLoudnessMeter(48000, 0); !errors.Is(err, audio.ErrFormat) {
		t.Errorf("0 channels: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16}
	if _, err := loudness.MeasureLoudness(ctx, bytes.NewReader(make([]byte, 16000)), f); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := loudness.MeasureLoudnessReader(context.Background(), bytes.NewReader([]byte("hello, world, not audio"))); !errors.Is(err, audio.ErrUnsupported) {
		t.Errorf("not audio: %v", err)
	}
	var nd *loudness.NoDecoderError
	if _, err := loudness.MeasureLoudnessReader(context.Background(), bytes.NewReader([]byte("fLaC\x00\x00\x00\x22"))); !errors.As(err, &nd) || nd.Container != audio.ContainerFLAC {
		t.Errorf("flac: %v", err)
	}
}

// FuzzMeasureLoudness checks that no input makes measurement panic or
// return NaN, whether it is read as a file (WAV, MP3, Ogg Opus) or as raw
// audio in a format picked by the first byte.
func FuzzMeasureLoudness(f *testing.F) {
	probeSeeds(f)
	// Short real files, so that mutations reach the decoders.
	dir := f.TempDir()
	for i, args := range [][]string{
		{"-c:a", "libopus", "-f", "ogg"},
		{"-ac", "2", "-ar", "16000", "-c:a", "libopus", "-f", "ogg"},
		{"-ar", "22050", "-c:a", "libmp3lame", "-b:a", "32k", "-f", "mp3"},
	} {
		path := ffmpegMake(f, dir, fmt.Sprint(i), append([]string{"-f", "lavfi", "-i", "sine=d=0.1"}, args...)...)
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ctx := context.Background()
		check := func(l loudness.Loudness, err error) {
			if err != nil {
				return
			}
			if math.IsNaN(l.Integrated) || math.IsNaN(l.TruePeak) || l.Silent != math.IsInf(l.Integrated, -1) {
				t.Fatalf("got %+v", l)
			}
		}
		check(loudness.MeasureLoudnessReader(ctx, bytes.NewReader(in)))
		if len(in) == 0 {
			return
		}
		fm := []audio.Format{
			{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.MuLaw},
			{SampleRate: 16000, Channels: 2, BitsPerSample: 16},
			{SampleRate: 22050, Channels: 3, BitsPerSample: 24},
			{SampleRate: 48000, Channels: 1, BitsPerSample: 32, Encoding: audio.Float},
			{SampleRate: 44100, Channels: 6, BitsPerSample: 64, Encoding: audio.Float},
		}[int(in[0])%5]
		check(loudness.MeasureLoudness(ctx, bytes.NewReader(in[1:]), fm))
	})
}
