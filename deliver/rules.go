package deliver

import (
	"encoding/json"
	"fmt"
	"math"
)

// Measured is what audio/master.Measure finds in a delivered file.
type Measured struct {
	Container   string  `json:"container"`
	Codec       string  `json:"codec"`
	SampleRate  int     `json:"sample_rate"`
	Channels    int     `json:"channels"`
	BitrateMode string  `json:"bitrate_mode,omitempty"` // CBR or VBR; empty for PCM
	Bitrate     int     `json:"bitrate,omitempty"`      // bits per second (CBR: every frame's)
	Seconds     float64 `json:"seconds"`
	Bytes       int64   `json:"bytes"`
	// Levels, in LUFS and dBFS/dBTP; -Inf (JSON: null) for digital
	// silence.
	Integrated float64 `json:"integrated_lufs"`
	RMS        float64 `json:"rms_db"`
	TruePeak   float64 `json:"true_peak_dbtp"`
	SamplePeak float64 `json:"sample_peak_db"`
	NoiseFloor float64 `json:"noise_floor_db"`
	// Head and Tail are the seconds below HeadTailThreshold at the start
	// and at the end.
	Head float64 `json:"head_seconds"`
	Tail float64 `json:"tail_seconds"`
}

// Result is the verdict of one rule of a profile.
type Result struct {
	Rule     string `json:"rule"`     // "loudness", "peak", "sample_rate", ...
	Target   string `json:"target"`   // "-23 to -18 dB RMS"
	Measured string `json:"measured"` // "-19.8 dB RMS"
	Pass     bool   `json:"pass"`
}

// Tolerance is how far a level may be outside its range and still pass:
// measurements of the same file by two meters (voxform's and ffmpeg's)
// agree within it.
const Tolerance = 0.05

// Check judges every rule of p against m, in a fixed order.
func Check(p *Profile, m Measured) []Result {
	e := p.Encoding
	rs := []Result{
		eq("container", e.Container, m.Container),
		eq("codec", e.Codec, m.Codec),
		eqInt("sample_rate", e.SampleRate, m.SampleRate, " Hz"),
		eqInt("channels", e.Channels, m.Channels, ""),
	}
	if e.BitrateMode != "" {
		rs = append(rs, eq("bitrate_mode", e.BitrateMode, m.BitrateMode))
	}
	if e.Bitrate > 0 {
		r := Result{Rule: "bitrate", Measured: fmt.Sprintf("%d kbps", m.Bitrate/1000)}
		if e.BitrateMode == CBR {
			r.Target, r.Pass = fmt.Sprintf("%d kbps", e.Bitrate/1000), m.Bitrate == e.Bitrate
		} else {
			r.Target, r.Pass = fmt.Sprintf("about %d kbps", e.Bitrate/1000), m.Bitrate > 0
		}
		rs = append(rs, r)
	}
	if l := p.Loudness; l != nil {
		v, unit := m.Integrated, "LUFS"
		if l.Measure == RMS {
			v, unit = m.RMS, "dB RMS"
		}
		rs = append(rs, Result{Rule: "loudness", Target: fmt.Sprintf("%s to %s %s", num(l.Min), num(l.Max), unit),
			Measured: level(v, unit), Pass: within(v, l.Min, l.Max)})
	}
	if c := p.Peak; c != nil {
		v, unit := m.TruePeak, "dBTP"
		if c.Measure == SamplePeak {
			v, unit = m.SamplePeak, "dBFS"
		}
		rs = append(rs, ceiling("peak", c.Max, v, unit))
	}
	if p.NoiseFloor != nil {
		rs = append(rs, ceiling("noise_floor", *p.NoiseFloor, m.NoiseFloor, "dB RMS"))
	}
	if h := p.Head; h != nil {
		rs = append(rs, pad("head", h, m.Head))
	}
	if t := p.Tail; t != nil {
		rs = append(rs, pad("tail", t, m.Tail))
	}
	if p.MaxSeconds > 0 {
		rs = append(rs, Result{Rule: "duration", Target: fmt.Sprintf("at most %s s", num(p.MaxSeconds)),
			Measured: fmt.Sprintf("%.3f s", m.Seconds), Pass: m.Seconds <= p.MaxSeconds})
	}
	if p.MaxBytes > 0 {
		rs = append(rs, Result{Rule: "size", Target: fmt.Sprintf("at most %d bytes", p.MaxBytes),
			Measured: fmt.Sprintf("%d bytes", m.Bytes), Pass: m.Bytes <= p.MaxBytes})
	}
	return rs
}

// Failed returns the results that did not pass.
func Failed(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

func eq(rule, want, got string) Result {
	return Result{Rule: rule, Target: want, Measured: got, Pass: want == got}
}

func eqInt(rule string, want, got int, unit string) Result {
	return Result{Rule: rule, Target: fmt.Sprintf("%d%s", want, unit), Measured: fmt.Sprintf("%d%s", got, unit), Pass: want == got}
}

func ceiling(rule string, max, v float64, unit string) Result {
	return Result{Rule: rule, Target: fmt.Sprintf("at most %s %s", num(max), unit), Measured: level(v, unit),
		Pass: math.IsInf(v, -1) || v <= max+Tolerance}
}

func pad(rule string, p *Pad, v float64) Result {
	return Result{Rule: rule, Target: fmt.Sprintf("%s to %s s", num(p.Min), num(p.Max)), Measured: fmt.Sprintf("%.3f s", v),
		Pass: v >= p.Min-0.005 && v <= p.Max+0.005}
}

func within(v, lo, hi float64) bool {
	return !math.IsInf(v, 0) && !math.IsNaN(v) && v >= lo-Tolerance && v <= hi+Tolerance
}

func level(v float64, unit string) string {
	if math.IsInf(v, -1) {
		return "silence"
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// num renders a rule's number without trailing zeros.
func num(v float64) string { return fmt.Sprintf("%g", v) }

// MarshalJSON writes m with each level that is not a finite number
// (digital silence measures -Inf) as null.
func (m Measured) MarshalJSON() ([]byte, error) {
	type plain Measured
	return json.Marshal(struct {
		plain
		Integrated *float64 `json:"integrated_lufs"`
		RMS        *float64 `json:"rms_db"`
		TruePeak   *float64 `json:"true_peak_dbtp"`
		SamplePeak *float64 `json:"sample_peak_db"`
		NoiseFloor *float64 `json:"noise_floor_db"`
	}{plain(m), finite(m.Integrated), finite(m.RMS), finite(m.TruePeak), finite(m.SamplePeak), finite(m.NoiseFloor)})
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}
