package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
)

// findTool finds ffmpeg once per process: the outside encoder of the
// delivery profiles and packages that need one.
var findTool = sync.OnceValues(encode.Find)

// ffmpeg is encode.Tool as master.Encoder.
type ffmpeg struct{ *encode.Tool }

// Probe is encode.Tool.Probe in master's terms.
func (f ffmpeg) Probe(ctx context.Context, path string) (master.Stream, error) {
	s, err := f.Tool.Probe(ctx, path)
	if err != nil {
		return master.Stream{}, err
	}
	return master.Stream{Container: s.Container, Codec: s.Codec, SampleRate: s.SampleRate, Channels: s.Channels,
		Bitrate: s.Bitrate, CBR: s.BitrateMode == deliver.CBR}, nil
}

// findEncoder is the outside encoder (nil and why when there is none).
func findEncoder() (master.Encoder, error) {
	t, err := findTool()
	if err != nil {
		return nil, err
	}
	return ffmpeg{t}, nil
}

// encoderIdentity is the plan's planner.EncoderFunc: the identity of the
// mastering and encoder of p, or why p cannot be delivered here: no
// ffmpeg, no encoder for its codec in it, or an encoding it cannot make
// exactly.
func encoderIdentity(p *deliver.Profile) (string, error) {
	if !p.NeedsEncoder() {
		return master.Identity(p, nil), nil
	}
	t, err := findTool()
	if err != nil {
		return "", fmt.Errorf("needs ffmpeg to encode %s: %w", p.Encoding.Codec, err)
	}
	if err := t.Supports(p.Encoding.Codec); err != nil {
		return "", err // it names the codec, ffmpeg and the encoder missing
	}
	if err := encode.CheckEncoding(p.Encoding); err != nil {
		return "", err // it names the codec; ffmpeg is here
	}
	return master.Identity(p, ffmpeg{t}), nil
}

// lazyFFmpeg is ffmpeg for apply and pull, its version read on first use: an
// apply that masters and packages nothing never runs it (ffmpeg
// -version took a quarter of a second of CPU and a second of wall time
// here, a quarter of a millisecond of each synthesis of an apply of
// 1,000). It stands for ffmpeg only where ffmpeg is on PATH (see
// encoderOnPath), so that without one apply and pull have no encoder, as
// before.
type lazyFFmpeg struct{}

// encoderOnPath is the encoder and book maker of apply and pull: nil
// when ffmpeg is not on PATH.
func encoderOnPath() *lazyFFmpeg {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return nil
	}
	return &lazyFFmpeg{}
}

// Encode is encode.Tool.Encode.
func (*lazyFFmpeg) Encode(ctx context.Context, wavIn string, e deliver.Encoding, out string) error {
	t, err := findTool()
	if err != nil {
		return err
	}
	return t.Encode(ctx, wavIn, e, out)
}

// Decode is encode.Tool.Decode.
func (*lazyFFmpeg) Decode(ctx context.Context, in string, w io.Writer) error {
	t, err := findTool()
	if err != nil {
		return err
	}
	return t.Decode(ctx, in, w)
}

// Probe is ffmpeg.Probe.
func (*lazyFFmpeg) Probe(ctx context.Context, path string) (master.Stream, error) {
	t, err := findTool()
	if err != nil {
		return master.Stream{}, err
	}
	return ffmpeg{t}.Probe(ctx, path)
}

// Identity is encode.Tool.Identity, or what master.Identity says of no
// encoder when ffmpeg's version cannot be read.
func (*lazyFFmpeg) Identity(e deliver.Encoding) string {
	t, err := findTool()
	if err != nil {
		return "no encoder"
	}
	return t.Identity(e)
}

// M4B is encode.Tool.M4B.
func (*lazyFFmpeg) M4B(ctx context.Context, wavIn string, b encode.Book, bitrate int, out string) error {
	t, err := findTool()
	if err != nil {
		return err
	}
	return t.M4B(ctx, wavIn, b, bitrate, out)
}

// MP3Book is encode.Tool.MP3Book.
func (*lazyFFmpeg) MP3Book(ctx context.Context, wavIn string, b encode.Book, bitrate int, out string) error {
	t, err := findTool()
	if err != nil {
		return err
	}
	return t.MP3Book(ctx, wavIn, b, bitrate, out)
}
