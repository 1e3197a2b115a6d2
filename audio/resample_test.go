package audio_test

import (
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/voxform/voxform/audio"
)

// sineSource generates frames of a sine on channel 0 (others silent).
type sineSource struct {
	rate, ch, frames, pos int
	freq, amp             float64
}

func (s *sineSource) Channels() int { return s.ch }

func (s *sineSource) ReadSamples(dst []float64) (int, error) {
	n := 0
	for ; n+s.ch <= len(dst) && s.pos < s.frames; s.pos++ {
		for c := 0; c < s.ch; c++ {
			dst[n+c] = 0
		}
		dst[n] = s.amp * math.Sin(2*math.Pi*s.freq*float64(s.pos)/float64(s.rate))
		n += s.ch
	}
	if s.pos == s.frames {
		return n, io.EOF
	}
	return n, nil
}

// zeroCrossFreq estimates a sine's frequency from its rising zero
// crossings (interpolated) over the middle of x.
func zeroCrossFreq(x []float64, rate int) float64 {
	var first, last float64
	count := 0
	for i := len(x) / 10; i < len(x)*9/10; i++ {
		if x[i-1] < 0 && x[i] >= 0 {
			at := float64(i-1) + x[i-1]/(x[i-1]-x[i])
			if count == 0 {
				first = at
			}
			last = at
			count++
		}
	}
	if count < 2 {
		return 0
	}
	return float64(count-1) / ((last - first) / float64(rate))
}

func rms(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

func TestResamplerKeepsFrequencyAndDuration(t *testing.T) {
	tests := []struct{ from, to int }{
		{48000, 16000}, {8000, 16000}, {22050, 16000}, {44100, 8000}, {16000, 48000}, {24000, 22050}, {16000, 16000},
		{44100, 47999}, // too many phases for a per-phase table: interpolated kernel
	}
	for _, tt := range tests {
		t.Run(fmtRates(tt.from, tt.to), func(t *testing.T) {
			in := &sineSource{rate: tt.from, ch: 2, frames: tt.from, freq: 1000, amp: 0.5}
			r, err := audio.NewResampler(in, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			out := readAll(t, r)
			frames := len(out) / 2
			want := (int64(in.frames)*int64(tt.to) + int64(tt.from) - 1) / int64(tt.from)
			if int64(frames) != want {
				t.Errorf("%d output frames, want %d", frames, want)
			}
			left, right := make([]float64, frames), make([]float64, frames)
			for i := range left {
				left[i], right[i] = out[2*i], out[2*i+1]
			}
			if f := zeroCrossFreq(left, tt.to); math.Abs(f-1000) > 1 {
				t.Errorf("frequency %.3f Hz, want 1000", f)
			}
			mid := left[frames/10 : frames*9/10]
			if a := rms(mid) * math.Sqrt2; math.Abs(a-0.5) > 0.005 {
				t.Errorf("amplitude %.4f, want 0.5", a)
			}
			if a := rms(right); a > 1e-9 {
				t.Errorf("silent channel has rms %g", a)
			}
		})
	}
}

// TestResamplerRemovesAliases feeds a tone above the new Nyquist frequency:
// without the low-pass it would fold back into the audible band.
func TestResamplerRemovesAliases(t *testing.T) {
	tests := []struct {
		from, to int
		freq     float64
	}{
		{48000, 16000, 10000}, {44100, 8000, 5000}, {22050, 16000, 9000}, {47999, 16001, 9000},
	}
	for _, tt := range tests {
		t.Run(fmtRates(tt.from, tt.to), func(t *testing.T) {
			in := &sineSource{rate: tt.from, ch: 1, frames: tt.from, freq: tt.freq, amp: 0.9}
			r, _ := audio.NewResampler(in, tt.from, tt.to)
			out := readAll(t, r)
			if a := rms(out[len(out)/10 : len(out)*9/10]); a > 0.9/math.Sqrt2*0.001 {
				t.Errorf("alias rms %.5f, want under -60 dB", a)
			}
		})
	}
}

func TestNewResamplerRejects(t *testing.T) {
	for _, rates := range [][2]int{{0, 16000}, {16000, -1}, {16000, 1 << 30}} {
		if _, err := audio.NewResampler(&sineSource{ch: 1}, rates[0], rates[1]); err == nil {
			t.Errorf("%v: no error", rates)
		}
	}
}

func fmtRates(from, to int) string { return fmt.Sprintf("%dto%d", from, to) }

// TestResamplerStreams checks that the resampler reads only about a
// filter's width ahead of what it outputs, whatever the input length.
func TestResamplerStreams(t *testing.T) {
	for _, tt := range []struct{ from, to int }{{48000, 16000}, {8000, 16000}, {44100, 47999}} {
		t.Run(fmtRates(tt.from, tt.to), func(t *testing.T) {
			in := &sineSource{rate: tt.from, ch: 1, frames: tt.from * 3600, freq: 440, amp: 0.5}
			r, _ := audio.NewResampler(in, tt.from, tt.to)
			buf := make([]float64, 1000)
			if n, err := r.ReadSamples(buf); n != 1000 || err != nil {
				t.Fatalf("ReadSamples = %d, %v", n, err)
			}
			need := 1000 * tt.from / tt.to
			if in.pos > need+2048 {
				t.Errorf("read %d input frames to produce 1000 output frames (need about %d)", in.pos, need)
			}
		})
	}
}
