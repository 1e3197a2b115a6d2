package cli

import (
	"errors"
	"fmt"

	"github.com/voxform/voxform/audio/master"
	"github.com/voxform/voxform/deliver"
)

// findEncoder is the outside encoder of delivery profiles (ffmpeg), or
// why there is none.
func findEncoder() (master.Encoder, error) {
	return nil, errors.New("ffmpeg: not found")
}

// encoderIdentity is the plan's planner.EncoderFunc: the identity of the
// mastering and encoder of p, or why p cannot be delivered here.
func encoderIdentity(p *deliver.Profile) (string, error) {
	if !p.NeedsEncoder() {
		return master.Identity(p, nil), nil
	}
	enc, err := findEncoder()
	if err != nil {
		return "", fmt.Errorf("needs an encoder for %s: %w", p.Encoding.Codec, err)
	}
	return master.Identity(p, enc), nil
}
