package loudness_test

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// loop is an endless-looking reader of n bytes repeating buf.
type loop struct {
	buf []byte
	off int
	n   int64
}

func (l *loop) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(int64(len(p)), l.n)], l.buf[l.off:])
	l.off = (l.off + k) % len(l.buf)
	l.n -= int64(k)
	return k, nil
}

// speechLike returns seconds of 16-bit mono audio at rate that loudness
// measurement treats as speech does: voiced syllables (a 120 Hz pulse
// train through a few formants) of varying level, pauses between words
// and sentences, and a low noise floor.
func speechLike(rate int, seconds float64) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	n := int(seconds * float64(rate))
	b := make([]byte, 2*n)
	phase := 0.0
	for i := 0; i < n; i++ {
		t := float64(i) / float64(rate)
		syll := math.Mod(t, 0.25) / 0.25
		env := math.Sin(math.Pi*syll) * (0.6 + 0.4*math.Sin(2*math.Pi*0.37*t))
		if math.Mod(t, 3.0) > 2.4 || math.Mod(t, 0.75) > 0.6 { // pauses
			env = 0
		}
		phase += 2 * math.Pi * (120 + 20*math.Sin(2*math.Pi*0.5*t)) / float64(rate)
		v := 0.0
		for _, f := range []float64{1, 2, 3, 5, 8, 13, 21} {
			v += math.Sin(f*phase) / f
		}
		v = 0.25*env*v + 0.001*(rng.Float64()*2-1)
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(math.Round(max(-1, min(1, v))*32767))))
	}
	return b
}

// whiteNoise returns seconds of 16-bit mono white noise at a constant
// level, the worst case for the true-peak scan (nothing can be skipped).
func whiteNoise(rate int, seconds float64) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 2*int(seconds*float64(rate)))
	for i := 0; i < len(b); i += 2 {
		binary.LittleEndian.PutUint16(b[i:], uint16(int16(rng.NormFloat64()*3000)))
	}
	return b
}

// BenchmarkMeasureLoudnessHour measures one hour of 16 kHz mono 16-bit
// audio from a reader, and reports how many times faster than real time.
func BenchmarkMeasureLoudnessHour(b *testing.B) {
	const rate, hour = 16000, 3600
	f := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16}
	for _, bc := range []struct {
		name string
		buf  []byte
	}{
		{"speech-like", speechLike(rate, 30)},
		{"white-noise", whiteNoise(rate, 30)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			size := int64(hour * f.ByteRate())
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				l, err := loudness.MeasureLoudness(context.Background(), &loop{buf: bc.buf, n: size}, f)
				if err != nil || l.Silent {
					b.Fatalf("%v, %v", l, err)
				}
			}
			b.ReportMetric(hour*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
		})
	}
}

// promptLike returns a prompt as the emulator's synthetic voice renders
// three five-letter words at rate (bench/'s apply of 1,000 syntheses): a
// 65 ms unit per letter, at a level, pitch and formant drawn per letter,
// with 5 ms ramps, and a 45 ms near-silent unit per space; about 1.1 s of
// 16-bit mono.
func promptLike(rate int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []int16
	ph0, ph1 := 0.0, 0.0
	for c := range 17 {
		n, amp := int(0.065*float64(rate)), 0.25+0.6*rng.Float64()
		f0, f1 := 100+150*rng.Float64(), 300+2200*rng.Float64()
		if c == 5 || c == 11 { // a space
			n, amp = int(0.045*float64(rate)), 0.02
		}
		ramp := float64(rate) * 0.005
		for i := range n {
			ph0 += 2 * math.Pi * f0 / float64(rate)
			ph1 += 2 * math.Pi * f1 / float64(rate)
			v := 0.6*math.Sin(ph0) + 0.25*math.Sin(2*ph0) + 0.15*math.Sin(ph1)
			g := amp * 0.7
			if k := float64(min(i, n-i)); k < ramp {
				g *= math.Pow(math.Sin(math.Pi*k/(2*ramp)), 2)
			}
			out = append(out, int16(v*g*32767))
		}
	}
	b := make([]byte, 2*len(out))
	for i, v := range out {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// BenchmarkMeasureLoudnessPrompt8k measures short prompts of 8 kHz 16-bit
// raw audio one at a time, as apply does for every synthesis, and reports
// the time (wall and CPU) per second of audio measured.
func BenchmarkMeasureLoudnessPrompt8k(b *testing.B) {
	const rate = 8000
	f := audio.Format{SampleRate: rate, Channels: 1, BitsPerSample: 16}
	for _, bc := range []struct {
		name string
		gen  func(seed uint64) []byte
	}{
		{"prompt-like", func(seed uint64) []byte { return promptLike(rate, seed) }},
		{"speech-like", func(uint64) []byte { return speechLike(rate, 1.1) }},
		{"white-noise", func(uint64) []byte { return whiteNoise(rate, 1.1) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prompts := make([][]byte, 16)
			var bytes int64
			for i := range prompts {
				prompts[i] = bc.gen(uint64(i))
				bytes += int64(len(prompts[i]))
			}
			b.SetBytes(bytes)
			cpu0 := cpuTime()
			for b.Loop() {
				for _, p := range prompts {
					l, err := loudness.MeasureLoudness(context.Background(), &loop{buf: p, n: int64(len(p))}, f)
					if err != nil || l.Silent {
						b.Fatalf("%v, %v", l, err)
					}
				}
			}
			seconds := float64(b.N) * float64(bytes) / float64(f.ByteRate())
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/seconds, "ns/s-audio")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/seconds, "cpu-ns/s-audio")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system: the
// machine the benchmarks run on is shared, so wall time alone says
// little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
