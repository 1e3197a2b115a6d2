package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"
)

// Joiner joins whole audio files of one container, read one at a time,
// into one file of that container. Duration before each Append is where
// that piece starts in the joined audio (for cue files).
type Joiner interface {
	Append(r io.Reader) error
	Duration() time.Duration
	Close() error
}

// NewJoiner returns the joiner for container c writing to w: WAVJoiner
// for wav (f, when given, is the format every piece must have); RawJoiner
// for raw (f required: headerless PCM says nothing of its format), mulaw
// and alaw (f defaults to G.711 at 8000 Hz mono, speech-synthesis.md,
// Audio format reference); MP3Joiner for mp3; OpusJoiner for ogg.
func NewJoiner(c Container, w io.WriteSeeker, f *Format) (Joiner, error) {
	switch c {
	case ContainerWAV:
		return NewWAVJoiner(w, f)
	case ContainerMP3:
		return NewMP3Joiner(w), nil
	case ContainerOgg:
		return NewOpusJoiner(w), nil
	case ContainerMuLaw, ContainerALaw:
		if f == nil {
			enc := MuLaw
			if c == ContainerALaw {
				enc = ALaw
			}
			f = &Format{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: enc}
		}
		return NewRawJoiner(w, *f)
	case ContainerRaw:
		if f == nil {
			return nil, errors.New("join raw audio: the format is required")
		}
		return NewRawJoiner(w, *f)
	}
	return nil, fmt.Errorf("join %s: %w", c, ErrUnsupported)
}

// RawJoiner joins headerless audio (raw PCM, mu-law, A-law): the pieces'
// bytes, concatenated. Each piece must hold whole frames.
type RawJoiner struct {
	w   io.Writer
	f   Format
	n   int64
	err error
}

// NewRawJoiner returns a joiner of pieces in format f writing to w.
func NewRawJoiner(w io.Writer, f Format) (*RawJoiner, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("join raw audio: %w", err)
	}
	return &RawJoiner{w: w, f: f}, nil
}

// Append copies one piece. A piece that ends mid-frame is an error
// wrapping ErrPartialFrame (it is written; the output is to be dropped).
func (j *RawJoiner) Append(r io.Reader) error {
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
		j.err = fmt.Errorf("join raw audio: %w: a piece of %d bytes, frames of %d", ErrPartialFrame, n, align)
	}
	return j.err
}

// Duration is the duration of the audio joined so far.
func (j *RawJoiner) Duration() time.Duration {
	return FramesDuration(j.n/int64(j.f.BlockAlign()), j.f.SampleRate)
}

// Close reports an earlier error; it does not close the writer.
func (j *RawJoiner) Close() error { return j.err }

// Duration is the duration of the audio joined so far.
func (j *WAVJoiner) Duration() time.Duration {
	if !j.known {
		return 0
	}
	return FramesDuration(j.DataBytes()/int64(j.f.BlockAlign()), j.f.SampleRate)
}

// maxTrailer bounds what Append reads past a piece's declared data to
// tell trailing chunks (a LIST) from audio that the size left out.
const maxTrailer = 1 << 20

// Append adds one piece read from r, as Add does, without holding it: a
// WAV file (its data up to the declared size, or to the end for a
// streaming header; bytes past the declared size are audio unless they
// are well-formed chunks within 1 MiB), or raw audio in the joined format.
func (j *WAVJoiner) Append(r io.Reader) error {
	if j.err != nil {
		return j.err
	}
	j.pieces++
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(12)
	if !IsWAV(head) {
		if !j.known && len(head) > 0 {
			return fmt.Errorf("join WAV piece %d: raw audio before any WAV header, and no format given", j.pieces)
		}
		return j.copy(br, -1)
	}
	h, err := readWAVHeader(br)
	if err != nil {
		return fmt.Errorf("join WAV piece %d: %w", j.pieces, err)
	}
	if j.known && h.format != j.f {
		return fmt.Errorf("join WAV piece %d: %w: format %s differs from %s", j.pieces, ErrFormat, h.format, j.f)
	}
	if !j.known {
		if err := j.start(h.format); err != nil {
			return err
		}
	}
	if err := j.copy(br, h.dataBytes); err != nil {
		return err
	}
	if h.dataBytes < 0 {
		return nil
	}
	// Past the declared size: trailing chunks, or audio the size left out.
	rest, err := io.ReadAll(io.LimitReader(br, maxTrailer+1))
	if err != nil {
		j.err = fmt.Errorf("join WAV piece %d: %w", j.pieces, err)
		return j.err
	}
	if len(rest) <= maxTrailer && isChunkList(rest[min(int(h.dataBytes&1), len(rest)):]) {
		return nil
	}
	if len(rest) > 0 {
		if err := j.write(rest); err != nil {
			return err
		}
	}
	return j.copy(br, -1)
}

// copy passes n bytes of r (all of it when n < 0) to write.
func (j *WAVJoiner) copy(r io.Reader, n int64) error {
	if n >= 0 {
		r = io.LimitReader(r, n)
	}
	buf := make([]byte, 32<<10)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			if werr := j.write(buf[:k]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			j.err = fmt.Errorf("join WAV piece %d: %w", j.pieces, err)
			return j.err
		}
	}
}
