package loudness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// promptSamples is a prompt as the emulator's synthetic voice renders
// three five-letter words (see promptLike in bench_test.go),
// as samples.
func promptSamples(rate int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []float64
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
			out = append(out, float64(int16(v*g*32767))/32768)
		}
	}
	return out
}

// TestTruePeakComputesFewPhases: reading 8 kHz speech at 192 kHz takes 23
// interpolated values per sample; the scan bounds most of them away
// (spans of phases whose bound cannot beat the peak so far) and computes
// under one per sample, while finding what computing all of them finds.
func TestTruePeakComputesFewPhases(t *testing.T) {
	const rate = 8000
	for seed := range uint64(8) {
		x := promptSamples(rate, seed)
		p := newTruePeak(rate)
		for i := 0; i < len(x); i += 800 {
			p.write(x[i:min(i+800, len(x))])
		}
		if got, want := p.peak(), bruteTruePeak(p, x); math.Abs(got-want) > 1e-12*want {
			t.Errorf("prompt %d: true peak %.15f, every window interpolated gives %.15f", seed, got, want)
		}
		if perSample := float64(p.computed) / float64(len(x)); perSample > 1 {
			t.Errorf("prompt %d: %.2f phases computed per sample, want at most 1 (of %d)", seed, perSample, p.l-1)
		}
	}
}
