package state

import (
	"math"

	"github.com/voxform/voxform/audio/loudness"
)

// Loudness is the loudness of an audio output as the state records it:
// ITU-R BS.1770-4 / EBU R 128 figures rounded to 0.01 (the state is read
// in pull requests; no meter agrees with another more finely). The meter's
// -Inf (silence) has no JSON form: it is recorded as an absent figure.
type Loudness struct {
	// Integrated is the integrated loudness in LUFS; nil when Silent.
	Integrated *float64 `json:"integrated_lufs,omitempty"`
	// TruePeak is the true peak in dBTP; nil for digital silence.
	TruePeak *float64 `json:"true_peak_dbtp,omitempty"`
	// Silent is true when no 400 ms block reaches -70 LUFS (silence, or
	// audio shorter than one block): there is no integrated loudness.
	Silent bool `json:"silent,omitempty"`
}

// LoudnessOf is the record of a measurement.
func LoudnessOf(l loudness.Loudness) *Loudness {
	return &Loudness{
		Integrated: finite(l.Integrated),
		TruePeak:   finite(l.TruePeak),
		Silent:     l.Silent || math.IsInf(l.Integrated, -1),
	}
}

// finite is v rounded as the state keeps it, or nil when v is not a
// finite number.
func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	r := RoundLoudness(v)
	return &r
}

// RoundLoudness rounds a figure in LUFS, LU or dB to the 0.01 the state
// keeps.
func RoundLoudness(v float64) float64 { return math.Round(v*100) / 100 }
