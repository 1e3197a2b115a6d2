package loudness

import (
	"io"
	"time"

	"github.com/voxform/voxform/audio"
)

// What audio/master reads through this package: the same decoders, meter
// and edge rule as measuring and rendering, so that a delivered file is
// mastered and measured as every other output is.

// OpenSamples returns the samples of the audio in rs and their rate:
// headerless audio in format *raw, or, with raw nil, a file whose
// container MeasureLoudnessReader recognises (WAV, MP3, Ogg Opus), decoded
// as ffmpeg decodes it. Audio voxform recognises but cannot decode gives a
// *NoDecoderError.
func OpenSamples(rs io.ReadSeeker, raw *audio.Format) (audio.SampleSource, int, error) {
	src, rate, _, err := openRendered(rs, raw)
	return src, rate, err
}

// Meter measures the loudness of samples written to it, interleaved,
// at the rate and channel count it was made for (the meter of
// MeasureLoudnessReader).
type Meter struct{ m *loudnessMeter }

// NewMeter returns a meter of audio at rate Hz (8000 to 384000) with
// channels channels.
func NewMeter(rate, channels int) (*Meter, error) {
	m, err := newLoudnessMeter(rate, channels)
	if err != nil {
		return nil, err
	}
	return &Meter{m: m}, nil
}

// Write measures interleaved samples, whole frames.
func (m *Meter) Write(samples []float64) { m.m.Write(samples) }

// Loudness returns the loudness of everything written.
func (m *Meter) Loudness() Loudness { return m.m.Loudness() }

// Edges passes the mono samples of a source through, measuring the
// silence at their start and end with the rule of edges.go: 10 ms
// windows, sound above -50 dBFS RMS.
type Edges struct{ e *edgeMeter }

// NewEdges returns an Edges reading src, mono audio at rate Hz.
func NewEdges(src audio.SampleSource, rate int) *Edges { return &Edges{e: newEdges(src, rate)} }

// Channels is 1.
func (e *Edges) Channels() int { return 1 }

// ReadSamples reads from the source, measuring what it reads.
func (e *Edges) ReadSamples(dst []float64) (int, error) { return e.e.ReadSamples(dst) }

// Edges returns the silence before the first and after the last sound
// window of everything read.
func (e *Edges) Edges() (lead, tail time.Duration) { return e.e.edges() }
