// Package master is a placeholder for the mastering package while it is built; replaced on merge.
package master

import (
	"context"
	"errors"
	"io"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/deliver"
)

// Version is the mastering's version.
const Version = 1

// Stream is what Probe finds.
type Stream struct {
	Container, Codec string
	SampleRate       int
	Channels         int
	Bitrate          int
	CBR              bool
}

// Encoder encodes and decodes what Go does not.
type Encoder interface {
	Encode(ctx context.Context, wavIn string, e deliver.Encoding, out string) error
	Decode(ctx context.Context, in string, w io.Writer) error
	Probe(ctx context.Context, path string) (Stream, error)
}

// Result is what Master made.
type Result struct {
	Measured deliver.Measured
	Results  []deliver.Result
	SHA256   string
	Size     int64
	Seconds  float64
}

// Master masters src to p at out.
func Master(ctx context.Context, src string, raw *audio.Format, p *deliver.Profile, enc Encoder, tmpDir, out string) (Result, error) {
	return Result{}, errors.New("master: not built")
}

// Identity is the identity of p's encoding.
func Identity(p *deliver.Profile, enc Encoder) string { return "voxform master 1" }

// Measure measures a delivered file.
func Measure(ctx context.Context, path string, enc Encoder) (deliver.Measured, error) {
	return deliver.Measured{}, errors.New("master: not built")
}
