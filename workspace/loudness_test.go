package workspace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fig(v float64) *float64 { return &v }

// TestLoudnessJudge: the median of an even count is the mean of the middle
// two; silent and unmeasured outputs take no part in it; a figure exactly
// at a limit is within it; only true peaks above the limit are flagged.
func TestLoudnessJudge(t *testing.T) {
	rep := &LoudnessReport{
		Limits: LoudnessLimits{MaxDeviation: 3, MaxTruePeak: -1},
		Outputs: []LoudnessCheck{
			{Address: "a", IntegratedLUFS: fig(-20), TruePeakDBTP: fig(-1)},
			{Address: "b", IntegratedLUFS: fig(-22), TruePeakDBTP: fig(-0.99)},
			{Address: "c", IntegratedLUFS: fig(-24), TruePeakDBTP: fig(-6)},
			{Address: "d", IntegratedLUFS: fig(-18.99), TruePeakDBTP: fig(-3)}, // 4.01 above
			{Address: "e", Silent: true},
			{Address: "f", Unmeasured: "missing"},
			{Address: "g", IntegratedLUFS: fig(-26), TruePeakDBTP: fig(-9)},
			{Address: "h", IntegratedLUFS: fig(-16), TruePeakDBTP: fig(-2)},
		},
	}
	rep.judge()
	if rep.MedianLUFS == nil || *rep.MedianLUFS != -21 {
		t.Fatalf("median %v, want -21 (the mean of -22 and -20)", rep.MedianLUFS)
	}
	var flagged []string
	for _, c := range rep.Outputs {
		if c.Flagged() {
			flagged = append(flagged, c.Address)
		}
	}
	// a: -20 is 1 LU from -21, peak at the limit; b: peak above;
	// c: -24 is exactly 3 LU below; d: 2.01 LU above; g: 5 below; h: 5 above.
	if diff := cmp.Diff([]string{"b", "g", "h"}, flagged); diff != "" {
		t.Errorf("flagged (-want +got):\n%s", diff)
	}
	if d := rep.Outputs[6].DeviationLU; d == nil || *d != -5 {
		t.Errorf("deviation of g %v, want -5", d)
	}
}
