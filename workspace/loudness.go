package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/owned"
	"github.com/voxform/voxform/state"
)

// Loudness limits of 'voxform verify -loudness' where neither its flags
// nor the manifest's loudness: block set them. 3 LU is about the smallest
// jump in level listeners notice between consecutive prompts; -1 dBTP is
// EBU R 128's limit for true peak.
const (
	DefaultMaxDeviation = 3.0  // LU from the median
	DefaultMaxTruePeak  = -1.0 // dBTP
)

// LoudnessLimits are what CheckLoudness holds audio outputs to.
type LoudnessLimits struct {
	// MaxDeviation is how far, in LU, an output's integrated loudness may
	// lie from the median of the project's outputs.
	MaxDeviation float64
	// MaxTruePeak is the highest true peak allowed, in dBTP.
	MaxTruePeak float64
}

// LimitsOf returns the limits of the manifest's loudness: block (m may be
// nil), the defaults where it sets none.
func LimitsOf(m *manifest.Manifest) LoudnessLimits {
	l := LoudnessLimits{MaxDeviation: DefaultMaxDeviation, MaxTruePeak: DefaultMaxTruePeak}
	if m == nil || m.Loudness == nil {
		return l
	}
	if v := m.Loudness.MaxDeviation; v != nil {
		l.MaxDeviation = *v
	}
	if v := m.Loudness.MaxTruePeak; v != nil {
		l.MaxTruePeak = *v
	}
	return l
}

// LoudnessCheck is one audio output as CheckLoudness found it.
type LoudnessCheck struct {
	Address string `json:"address"`
	Path    string `json:"path"`
	// The figures, as the state records them (state.Loudness).
	IntegratedLUFS *float64 `json:"integrated_lufs,omitempty"`
	TruePeakDBTP   *float64 `json:"true_peak_dbtp,omitempty"`
	Silent         bool     `json:"silent,omitempty"`
	// Measured is set when the figures were measured now: the state has
	// none (apply measures only where the manifest declares loudness:,
	// and states written before voxform measured have none) or the file
	// changed since.
	Measured bool `json:"measured,omitempty"`
	// MedianLUFS is the median the output was compared with.
	MedianLUFS *float64 `json:"median_lufs,omitempty"`
	// DeviationLU is IntegratedLUFS minus the median: positive is louder.
	DeviationLU *float64 `json:"deviation_lu,omitempty"`
	// Loudness and Peak are the limits broken, if any.
	Loudness bool `json:"outside_loudness,omitempty"`
	Peak     bool `json:"above_peak,omitempty"`
	// Unmeasured says why an output has no figures: its file is missing,
	// voxform has no decoder for its format, or its recorded audio_config
	// does not say what the format is.
	Unmeasured string `json:"unmeasured,omitempty"`
}

// Flagged reports whether the output breaks a limit.
func (c *LoudnessCheck) Flagged() bool { return c.Loudness || c.Peak }

// LoudnessReport is the result of CheckLoudness.
type LoudnessReport struct {
	Limits LoudnessLimits
	// MedianLUFS is the median integrated loudness of the outputs that
	// have one (not silent, measured); nil when none has.
	MedianLUFS *float64
	// Outputs are every synthesis output, by address then path.
	Outputs []LoudnessCheck
}

// CheckLoudness compares the integrated loudness of every synthesis
// output recorded in st with the median of them all, and its true peak
// with the limit. It uses the figures the state recorded; an output
// without them, or whose file is in changed (paths whose content no
// longer matches the state, from Verify), is measured from its file now.
// A missing file, or a format voxform cannot decode, is reported as
// unmeasured and is no error.
func (w *Workspace) CheckLoudness(ctx context.Context, st *state.File, lim LoudnessLimits, changed map[string]bool) (*LoudnessReport, error) {
	root, err := owned.Open(w.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rep := &LoudnessReport{Limits: lim}
	type job struct {
		i   int
		raw *audio.Format
	}
	var jobs []job
	for _, addr := range st.Addresses() {
		r := st.Resources[addr]
		if r.Kind != string(manifest.KindSynthesis) {
			continue
		}
		for _, o := range r.Outputs {
			if o.Format != "" {
				continue // a cue file, not audio
			}
			c := LoudnessCheck{Address: addr, Path: o.Path}
			if l := o.Loudness; l != nil && !changed[o.Path] {
				c.IntegratedLUFS, c.TruePeakDBTP, c.Silent = l.Integrated, l.TruePeak, l.Silent
			} else {
				if raw, err := contract.RecordedRawFormat(audioConfigOf(r)); err != nil {
					c.Unmeasured = fmt.Sprintf("its recorded audio_config: %v", err)
				} else {
					jobs = append(jobs, job{len(rep.Outputs), raw})
				}
			}
			rep.Outputs = append(rep.Outputs, c)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		c := &rep.Outputs[j.i]
		g.Go(func() error { return measureOutput(gctx, root, w.Dir, c, j.raw) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep.judge()
	return rep, nil
}

// measureOutput measures the file of c now. The file is read only as the
// file system resolves it inside the manifest directory.
func measureOutput(ctx context.Context, root *owned.Root, dir string, c *LoudnessCheck, raw *audio.Format) error {
	if _, err := root.Resolve(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check loudness of %s: %w", c.Path, err)
	}
	l, err := loudness.MeasureLoudnessFile(ctx, filepath.Join(dir, filepath.FromSlash(c.Path)), raw)
	var nd *loudness.NoDecoderError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Unmeasured = "missing"
		return nil
	case errors.As(err, &nd):
		c.Unmeasured = nd.Error()
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		c.Unmeasured = err.Error()
		return nil
	}
	rec := state.LoudnessOf(l)
	c.IntegratedLUFS, c.TruePeakDBTP, c.Silent, c.Measured = rec.Integrated, rec.TruePeak, rec.Silent, true
	return nil
}

// judge computes the median and flags the outputs beyond the limits. An
// output exactly at a limit is within it.
func (r *LoudnessReport) judge() {
	var ls []float64
	for _, c := range r.Outputs {
		if c.IntegratedLUFS != nil {
			ls = append(ls, *c.IntegratedLUFS)
		}
	}
	if len(ls) > 0 {
		slices.Sort(ls)
		m := ls[len(ls)/2]
		if len(ls)%2 == 0 {
			m = (ls[len(ls)/2-1] + m) / 2
		}
		m = state.RoundLoudness(m)
		r.MedianLUFS = &m
	}
	for i := range r.Outputs {
		c := &r.Outputs[i]
		if c.IntegratedLUFS != nil && r.MedianLUFS != nil {
			d := state.RoundLoudness(*c.IntegratedLUFS - *r.MedianLUFS)
			c.MedianLUFS, c.DeviationLU = r.MedianLUFS, &d
			c.Loudness = max(d, -d) > r.Limits.MaxDeviation
		}
		c.Peak = c.TruePeakDBTP != nil && *c.TruePeakDBTP > r.Limits.MaxTruePeak
	}
}

// audioConfigOf is the audio_config recorded with r's request, nil for none.
func audioConfigOf(r *state.Resource) map[string]any {
	c, _ := r.RequestFields()["audio_config"].(map[string]any)
	return c
}
