package master

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// chain is the source as mastering reads it: decoded, mixed to the
// profile's channels and resampled to its rate. The analysis opens it
// from the source, and keeps what it read when decoding or resampling
// cost something (kept); the later passes read that instead.
type chain struct {
	c   io.Closer
	src audio.SampleSource
	ctx context.Context
}

// openSource opens src (headerless in format *raw, or a file the loudness
// decoders recognise) as rate Hz audio: averaged to mono when its
// channels are not the profile's, then resampled. costly says whether
// reading it does more than convert PCM samples: it resamples, or
// decodes a compressed format.
func openSource(src string, raw *audio.Format, rate, channels int) (*os.File, audio.SampleSource, bool, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, false, err
	}
	s, from, err := loudness.OpenSamples(f, raw)
	if err != nil {
		f.Close()
		return nil, nil, false, fmt.Errorf("%s: %w", src, err)
	}
	_, pcm := s.(*audio.SampleReader)
	if s.Channels() != channels {
		s = audio.Mono(s)
	}
	if from != rate {
		if s, err = audio.NewResampler(s, from, rate); err != nil {
			f.Close()
			return nil, nil, false, err
		}
	}
	return f, s, !pcm || from != rate, nil
}

// newChain reads s, closing c (if not nil) with it; a mono source is duplicated for a
// stereo profile.
func newChain(ctx context.Context, c io.Closer, s audio.SampleSource, channels int) *chain {
	if s.Channels() != channels {
		s = &duplicate{src: s}
	}
	return &chain{c: c, src: s, ctx: ctx}
}

// Channels is the profile's channel count.
func (c *chain) Channels() int { return c.src.Channels() }

// ReadSamples reads the next samples, stopping when the context is done.
func (c *chain) ReadSamples(dst []float64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.src.ReadSamples(dst)
}

// Close closes the source file (a kept file stays open for the next
// pass).
func (c *chain) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// duplicate makes a mono source two identical channels.
type duplicate struct {
	src audio.SampleSource
	buf []float64
}

func (d *duplicate) Channels() int { return 2 }

func (d *duplicate) ReadSamples(dst []float64) (int, error) {
	n := len(dst) / 2
	if cap(d.buf) < n {
		d.buf = make([]float64, n)
	}
	k, err := d.src.ReadSamples(d.buf[:n])
	for i, v := range d.buf[:k] {
		dst[2*i], dst[2*i+1] = v, v
	}
	return 2 * k, err
}
