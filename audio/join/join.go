package join

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/voxform/voxform/audio"
)

// Joiner joins whole audio files of one container, read one at a time,
// into one file of that container. Duration before each Append is where
// that piece starts in the joined audio (for cue files).
type Joiner interface {
	Append(r io.Reader) error
	Duration() time.Duration
	Close() error
}

// NewJoiner returns the joiner for container c writing to w: for wav an
// audio.WAVJoiner (f, when given, is the format every piece must have);
// for raw, mulaw and alaw the pieces' bytes concatenated (rawJoiner; f is
// required for raw, as headerless PCM says nothing of its format, and
// defaults to G.711 at 8000 Hz mono for mulaw and alaw, speech-synthesis.md,
// Audio format reference); for mp3 their frames (mp3Joiner); for ogg one
// Ogg Opus stream (opusJoiner).
func NewJoiner(c audio.Container, w io.WriteSeeker, f *audio.Format) (Joiner, error) {
	switch c {
	case audio.ContainerWAV:
		return audio.NewWAVJoiner(w, f)
	case audio.ContainerMP3:
		return newMP3Joiner(w), nil
	case audio.ContainerOgg:
		return newOpusJoiner(w), nil
	case audio.ContainerMuLaw, audio.ContainerALaw:
		if f == nil {
			enc := audio.MuLaw
			if c == audio.ContainerALaw {
				enc = audio.ALaw
			}
			f = &audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: enc}
		}
		return newRawJoiner(w, *f)
	case audio.ContainerRaw:
		if f == nil {
			return nil, errors.New("join raw audio: the format is required")
		}
		return newRawJoiner(w, *f)
	}
	return nil, fmt.Errorf("join %s: %w", c, audio.ErrUnsupported)
}

// rawJoiner joins headerless audio (raw PCM, mu-law, A-law): the pieces'
// bytes, concatenated. Each piece must hold whole frames.
type rawJoiner struct {
	w   io.Writer
	f   audio.Format
	n   int64
	err error
}

// newRawJoiner returns a joiner of pieces in format f writing to w.
func newRawJoiner(w io.Writer, f audio.Format) (*rawJoiner, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("join raw audio: %w", err)
	}
	return &rawJoiner{w: w, f: f}, nil
}

// Append copies one piece. A piece that ends mid-frame is an error
// wrapping audio.ErrPartialFrame (it is written; the output is to be dropped).
func (j *rawJoiner) Append(r io.Reader) error {
	if j.err != nil {
		return j.err
	}
	n, err := io.Copy(j.w, r)
	j.n += n
	if err != nil {
		j.err = fmt.Errorf("join raw audio: %w", err)
		return j.err
	}
	if align := int64(j.f.BlockAlign()); n%align != 0 {
		j.err = fmt.Errorf("join raw audio: %w: a piece of %d bytes, frames of %d", audio.ErrPartialFrame, n, align)
	}
	return j.err
}

// Duration is the duration of the audio joined so far.
func (j *rawJoiner) Duration() time.Duration {
	return audio.FramesDuration(j.n/int64(j.f.BlockAlign()), j.f.SampleRate)
}

// Close reports an earlier error; it does not close the writer.
func (j *rawJoiner) Close() error { return j.err }
