package master

import (
	"context"
	"fmt"
	"os"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/loudness"
)

// chain is the source as mastering reads it: decoded, mixed to the
// profile's channels and resampled to its rate. Each pass opens it anew.
type chain struct {
	f   *os.File
	src audio.SampleSource
	ctx context.Context
}

// openChain opens src (headerless in format *raw, or a file the loudness
// decoders recognise) as rate Hz audio of channels channels: channels are
// averaged to mono, then resampled, then a mono source is duplicated for
// a stereo profile.
func openChain(ctx context.Context, src string, raw *audio.Format, rate, channels int) (*chain, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	s, from, err := loudness.OpenSamples(f, raw)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if s.Channels() != channels {
		s = audio.Mono(s)
	}
	if from != rate {
		if s, err = audio.NewResampler(s, from, rate); err != nil {
			f.Close()
			return nil, err
		}
	}
	if s.Channels() != channels {
		s = &duplicate{src: s}
	}
	return &chain{f: f, src: s, ctx: ctx}, nil
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

func (c *chain) Close() error { return c.f.Close() }

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
