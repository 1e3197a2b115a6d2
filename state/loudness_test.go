package state

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/audio/loudness"
)

// TestLoudnessRecord: the meter's figures are kept to 0.01; silence,
// whose figures are -Inf, is recorded as absent figures and silent: true,
// so the state stays valid JSON and reads back as written.
func TestLoudnessRecord(t *testing.T) {
	tests := []struct {
		name string
		in   loudness.Loudness
		json string
	}{
		{"speech", loudness.Loudness{Integrated: -23.456, TruePeak: -1.004}, `{"integrated_lufs":-23.46,"true_peak_dbtp":-1}`},
		{"digital silence", loudness.Loudness{Integrated: math.Inf(-1), TruePeak: math.Inf(-1), Silent: true}, `{"silent":true}`},
		{"short click", loudness.Loudness{Integrated: math.Inf(-1), TruePeak: 0.3, Silent: true, Short: true}, `{"silent":true,"true_peak_dbtp":0.3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			f.Resources["synthesis.a"] = &Resource{Kind: "synthesis", Status: StatusComplete, Fingerprint: "fp",
				Outputs:   []Output{{Path: "a.wav", SHA256: strings.Repeat("0", 64), Size: 1, Loudness: LoudnessOf(tt.in)}},
				CreatedAt: time.Unix(0, 0).UTC(), UpdatedAt: time.Unix(0, 0).UTC()}
			var buf bytes.Buffer
			if err := f.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			compact := strings.Join(strings.Fields(buf.String()), "")
			if !strings.Contains(compact, `"loudness":`+tt.json) {
				t.Fatalf("state has no %s:\n%s", tt.json, buf.String())
			}
			back, err := Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.Resources["synthesis.a"].Outputs, back.Resources["synthesis.a"].Outputs); diff != "" {
				t.Errorf("read back (-written +read):\n%s", diff)
			}
		})
	}
}
