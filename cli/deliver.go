package cli

import (
	"context"
	"fmt"
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
	if err == nil {
		err = t.Supports(p.Encoding.Codec)
	}
	if err == nil {
		err = encode.CheckEncoding(p.Encoding)
	}
	if err != nil {
		return "", fmt.Errorf("needs ffmpeg to encode %s: %w", p.Encoding.Codec, err)
	}
	return master.Identity(p, ffmpeg{t}), nil
}
