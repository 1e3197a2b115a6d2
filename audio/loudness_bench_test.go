package audio_test

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxform/voxform/audio"
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
				l, err := audio.MeasureLoudness(context.Background(), &loop{buf: bc.buf, n: size}, f)
				if err != nil || l.Silent {
					b.Fatalf("%v, %v", l, err)
				}
			}
			b.ReportMetric(hour*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
		})
	}
}
