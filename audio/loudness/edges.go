package loudness

import (
	"time"

	"github.com/voxform/voxform/audio"
)

// The edges of audio are the silence at its start (lead) and at its end
// (tail), which the seams of a joined output add up at each chunk
// boundary. They are measured on the mono signal (channels averaged) at
// the source's rate, in windows of 10 ms from the first sample (the last
// one may be shorter): a window is sound when its RMS is above -50 dBFS
// (full scale 1.0, so a full-scale sine is -3 dBFS), well above the noise
// of 16-bit, MP3 or Opus silence and below the quietest speech. Lead is
// the time before the first sound window, tail the time after the last
// one; both are multiples of 10 ms but for a tail that ends in the last,
// shorter window. Audio without a sound window is silent throughout: its
// lead is its whole duration, its tail 0, so that a seam's gap counts a
// silent chunk once.
const (
	edgeWindow = 10 * time.Millisecond
	// edgeFloor is -50 dBFS as a mean square: 10^(-50/10).
	edgeFloor = 1e-5
)

// edgeMeter passes mono samples through, measuring the edges.
type edgeMeter struct {
	src    audio.SampleSource
	rate   int
	window int64 // frames per window

	frames    int64   // frames read
	sum       float64 // sum of squares of the current window
	count     int64   // frames in it
	firstLoud int64   // first frame of the first sound window, -1 before one
	lastLoud  int64   // frame after the last sound window
}

func newEdges(src audio.SampleSource, rate int) *edgeMeter {
	w := max(int64(rate)*int64(edgeWindow)/int64(time.Second), 1)
	return &edgeMeter{src: src, rate: rate, window: w, firstLoud: -1}
}

func (e *edgeMeter) Channels() int { return 1 }

func (e *edgeMeter) ReadSamples(dst []float64) (int, error) {
	n, err := e.src.ReadSamples(dst)
	for _, v := range dst[:n] {
		e.sum += v * v
		e.count++
		e.frames++
		if e.count == e.window {
			e.close()
		}
	}
	return n, err
}

// close ends the current window.
func (e *edgeMeter) close() {
	if e.count > 0 && e.sum/float64(e.count) > edgeFloor {
		if e.firstLoud < 0 {
			e.firstLoud = e.frames - e.count
		}
		e.lastLoud = e.frames
	}
	e.sum, e.count = 0, 0
}

// edges returns the lead and tail of everything read.
func (e *edgeMeter) edges() (lead, tail time.Duration) {
	e.close()
	if e.firstLoud < 0 {
		return audio.FramesDuration(e.frames, e.rate), 0
	}
	return audio.FramesDuration(e.firstLoud, e.rate), audio.FramesDuration(e.frames-e.lastLoud, e.rate)
}
