package executor

import (
	"context"

	"github.com/voxform/voxform/audio"
	audioloudness "github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/state"
)

// loudness measures an audio output in the pass that writes it: the bytes
// appended to the temporary file are passed to a meter as they are written
// (see audioloudness.LoudnessWriter), on the operation's own goroutine and the
// meter's, so measuring adds no pass over the file and no wait for other
// operations. A write that rewrites bytes already written (a WAV header
// patched at the end) is not audio the meter lacks and is skipped; one
// that rewrites the end of the file ends the measurement (nothing is
// recorded). A nil *loudness measures nothing.
type loudness struct {
	ctx context.Context
	raw *audio.Format // headerless audio: its format; nil: a container
	w   *audioloudness.LoudnessWriter
}

// measure starts measuring o, a synthesis output in format cfg, when the
// apply measures loudness (Options.MeasureLoudness); otherwise o records
// none.
func (w *outputs) measure(ctx context.Context, o *outputFile, cfg contract.Format) {
	if !w.loudness {
		return
	}
	l := &loudness{ctx: ctx}
	if !cfg.Headered() {
		f, err := cfg.Audio()
		if err != nil {
			return
		}
		l.raw = &f
	}
	l.restart()
	o.loud = l
}

// measureFile measures a written output (a variable for the tests that
// count the files measured).
var measureFile = audioloudness.MeasureLoudnessFile

// measuring is validate that also measures the complete file it checks,
// in format cfg, into *into, when the apply measures loudness (otherwise
// validate): for an output whose bytes are not written through the
// meter (a restore from a cache entry kept without figures, by an apply
// that measured none). A file the meter cannot decode records nothing.
func (w *outputs) measuring(ctx context.Context, cfg contract.Format, validate func(string) error, into **state.Loudness) func(string) error {
	if !w.loudness {
		return validate
	}
	var raw *audio.Format
	if !cfg.Headered() {
		f, err := cfg.Audio()
		if err != nil {
			return validate
		}
		raw = &f
	}
	return func(path string) error {
		if err := validate(path); err != nil {
			return err
		}
		if l, err := measureFile(ctx, path, raw); err == nil {
			*into = state.LoudnessOf(l)
		}
		return nil
	}
}

// wrote passes p, written at pos of a file of size bytes, to the meter.
func (l *loudness) wrote(p []byte, pos, size int64) {
	if l == nil || l.w == nil {
		return
	}
	switch {
	case pos == size:
		l.w.Write(p)
	case pos+int64(len(p)) > size:
		l.drop()
	}
}

// restart measures from the start again (the file was emptied).
func (l *loudness) restart() {
	if l == nil {
		return
	}
	l.drop()
	l.w = audioloudness.NewLoudnessWriter(l.ctx, l.raw)
}

// drop ends the measurement without a result.
func (l *loudness) drop() {
	if l == nil || l.w == nil {
		return
	}
	l.w.Abort()
	l.w = nil
}

// result ends the measurement and returns its record, or nil when the
// file could not be measured: a format voxform has no decoder for is
// not an error, only a figure the state does not have.
func (l *loudness) result() *state.Loudness {
	if l == nil || l.w == nil {
		return nil
	}
	res, err := l.w.Result()
	l.w = nil
	if err != nil {
		return nil
	}
	return state.LoudnessOf(res)
}

// metaLoudness is the cache entry's copy of an output's loudness record.
func metaLoudness(m *cache.Meta, l *state.Loudness) {
	if l == nil {
		return
	}
	m.IntegratedLUFS, m.TruePeakDBTP, m.Silent = l.Integrated, l.TruePeak, l.Silent
}

// loudnessOfMeta is the loudness record a cache entry carries, or nil for
// an entry kept without one (by an older voxform, or of audio voxform
// could not measure).
func loudnessOfMeta(m cache.Meta) *state.Loudness {
	if m.IntegratedLUFS == nil && m.TruePeakDBTP == nil && !m.Silent {
		return nil
	}
	return &state.Loudness{Integrated: m.IntegratedLUFS, TruePeak: m.TruePeakDBTP, Silent: m.Silent}
}
