package loudness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteTruePeak interpolates every window at every phase, skipping
// nothing: the true peak scan must find exactly what it finds.
func bruteTruePeak(p *truePeak, x []float64) float64 {
	peak := 0.0
	for _, v := range x {
		peak = max(peak, math.Abs(v))
	}
	for j := 0; j+peakTaps <= len(x); j++ {
		for ph := 0; ph < p.l-1; ph++ {
			y := 0.0
			for k := 0; k < peakTaps; k++ {
				y += x[j+k] * p.coefs[ph*peakTaps+k]
			}
			peak = max(peak, math.Abs(y))
		}
	}
	return peak
}

// TestTruePeakSkipsNothingThatCounts: the scan's skips (quiet blocks,
// windows whose bound cannot beat the peak so far) never change the true
// peak, for signals that rise through the file (every window a new
// candidate), steady tones, noise, clipped audio and steps, at every rate,
// written in uneven pieces.
func TestTruePeakSkipsNothingThatCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	signals := map[string]func(i, rate int) float64{
		"rising tone": func(i, rate int) float64 {
			return float64(i) / float64(rate) * math.Sin(2*math.Pi*3000*float64(i)/float64(rate))
		},
		"slowly rising low tone": func(i, rate int) float64 { // peaks between samples, each a little higher
			return (0.2 + float64(i)/float64(rate)) * math.Sin(2*math.Pi*101*float64(i)/float64(rate)+0.37)
		},
		"steady tone": func(i, rate int) float64 { return 0.7 * math.Sin(2*math.Pi*997*float64(i)/float64(rate)+0.3) },
		"noise":       func(i, rate int) float64 { return 0.3 * rng.NormFloat64() },
		"clipped": func(i, rate int) float64 {
			return max(-1, min(1, 1.6*math.Sin(2*math.Pi*220*float64(i)/float64(rate))))
		},
		"steps": func(i, rate int) float64 {
			if i/97%2 == 0 {
				return 0.9
			}
			return -0.2
		},
		"near nyquist": func(i, rate int) float64 {
			return 0.5 * math.Sin(math.Pi*0.97*float64(i)+0.1) * float64(i%3000) / 3000
		},
	}
	for _, rate := range []int{8000, 16000, 22050, 24000, 44100, 48000} {
		for name, gen := range signals {
			x := make([]float64, rate/2)
			for i := range x {
				x[i] = gen(i, rate)
			}
			p := newTruePeak(rate)
			for i, n := 0, 1; i < len(x); i, n = i+n, n%3000+517 {
				p.write(x[i:min(i+n, len(x))])
			}
			got, want := p.peak(), bruteTruePeak(p, x)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s at %d Hz: true peak %.15f, every window interpolated gives %.15f", name, rate, got, want)
			}
		}
	}
}
