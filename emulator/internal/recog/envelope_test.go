package recog

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// TestFineEnvelopeMatchesEmu checks that offset 0 is emu.Envelope exactly,
// and that an offset of whole windows is the same envelope shifted.
func TestFineEnvelopeMatchesEmu(t *testing.T) {
	for _, rate := range []int{8000, 22050, 44100} {
		rng := rand.New(rand.NewPCG(1, 2))
		ref, fine := emu.NewEnvelope(rate), newFineEnvelope(rate)
		for i := 0; i < rate; i++ {
			s := math.Sin(float64(i)/50) * rng.Float64()
			ref.Add(s)
			fine.Add(s)
		}
		opt := cmpopts.EquateApprox(0, 1e-5)
		if d := cmp.Diff(ref.Values(), fine.at(0), opt); d != "" {
			t.Errorf("rate %d: offset 0 differs (-emu +fine):\n%s", rate, d)
		}
		if d := cmp.Diff(ref.Values()[2:], fine.at(2*fineSteps), opt); d != "" {
			t.Errorf("rate %d: offset 2 windows differs:\n%s", rate, d)
		}
	}
}
