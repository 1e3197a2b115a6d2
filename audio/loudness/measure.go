package loudness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/voxform/voxform/audio"
)

// NoDecoderError says the loudness of audio voxform recognises cannot be
// measured because voxform has no decoder for it.
type NoDecoderError struct {
	Container audio.Container
	Codec     string // "vorbis", "opus, 6 channels in mapping family 1", ...; "" when the container says it all
}

func (e *NoDecoderError) Error() string {
	if e.Codec == "" {
		return fmt.Sprintf("cannot measure %s audio: no decoder", e.Container)
	}
	return fmt.Sprintf("cannot measure %s audio (%s): no decoder", e.Container, e.Codec)
}

// Unwrap makes the error match audio.ErrUnsupported.
func (e *NoDecoderError) Unwrap() error { return audio.ErrUnsupported }

// measureFrames is how many frames are read and measured at a time.
const measureFrames = 4096

// measureLoudnessSamples measures the loudness of src, audio at rate Hz,
// reading it to the end (or until ctx is done).
func measureLoudnessSamples(ctx context.Context, src audio.SampleSource, rate int) (Loudness, error) {
	m, err := newLoudnessMeter(rate, src.Channels())
	if err != nil {
		return Loudness{}, err
	}
	defer m.release()
	buf := getFrames(measureFrames * src.Channels())
	defer frames.Put(&buf)
	for {
		if err := ctx.Err(); err != nil {
			return Loudness{}, fmt.Errorf("measure loudness: %w", err)
		}
		n, err := src.ReadSamples(buf)
		m.Write(buf[:n])
		if err == io.EOF {
			return m.Loudness(), nil
		}
		if err != nil {
			return Loudness{}, fmt.Errorf("measure loudness: %w", err)
		}
	}
}

// frames holds the buffers measureLoudnessSamples reads into, for the
// next measurement.
var frames sync.Pool

// getFrames returns a buffer of n samples.
func getFrames(n int) []float64 {
	if b, ok := frames.Get().(*[]float64); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]float64, n)
}

// readers are the buffered readers of measureLoudness, reused.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// measureLoudness measures headerless audio in format f read from r: raw
// PCM, float, mu-law or A-law as audio.NewSampleReader reads it. A partial frame
// at the end is ignored.
func measureLoudness(ctx context.Context, r io.Reader, f audio.Format) (Loudness, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	s, err := audio.NewSampleReader(br, f)
	if err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	return measureLoudnessSamples(ctx, s, f.SampleRate)
}

// MeasureLoudnessFile measures the audio file at path. With raw nil the
// container is recognised from the file (WAV, MP3, Ogg Opus, see
// MeasureLoudnessReader); otherwise the file is headerless audio in
// format *raw (voxform's raw, mulaw and alaw containers).
func MeasureLoudnessFile(ctx context.Context, path string, raw *audio.Format) (Loudness, error) {
	f, err := os.Open(path)
	if err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	defer f.Close()
	var l Loudness
	if raw != nil {
		l, err = measureLoudness(ctx, f, *raw)
	} else {
		l, err = MeasureLoudnessReader(ctx, f)
	}
	if err != nil {
		return Loudness{}, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// MeasureLoudnessReader measures the audio file in rs, recognising its
// container: WAV in every encoding audio.ReadWAVHeader accepts, MP3 (MPEG-1,
// MPEG-2 and MPEG 2.5 layer III, as audio.Decode) and Ogg Opus. It reads the
// file once, a buffer at a time. Audio it recognises but cannot decode
// (Ogg Vorbis, FLAC, ...) gives a *NoDecoderError.
func MeasureLoudnessReader(ctx context.Context, rs io.ReadSeeker) (Loudness, error) {
	src, rate, err := openSamples(rs)
	var nd *NoDecoderError
	switch {
	case errors.As(err, &nd):
		return Loudness{}, err
	case err != nil:
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	return measureLoudnessSamples(ctx, src, rate)
}

// openSamples recognises the container of the audio file in rs and
// returns its samples, decoded as ffmpeg decodes them (see mp3.go and
// ogg.go), and their rate. It is the one decoder of this package, shared
// by measuring and rendering.
func openSamples(rs io.ReadSeeker) (audio.SampleSource, int, error) {
	head := make([]byte, audio.SniffLen)
	n, err := io.ReadFull(rs, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, 0, err
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	switch c := audio.Sniff(head[:n]); c {
	case audio.ContainerWAV:
		d, err := audio.Decode(rs)
		if err != nil {
			return nil, 0, err
		}
		return d.Samples, d.Format.SampleRate, nil
	case audio.ContainerMP3:
		return openMP3(rs)
	case audio.ContainerOgg:
		s, err := openOgg(rs)
		if err != nil {
			return nil, 0, err
		}
		return s, opusRate, nil
	case audio.ContainerUnknown:
		return nil, 0, fmt.Errorf("%w: unrecognised audio (voxform decodes wav, mp3 and ogg opus)", audio.ErrUnsupported)
	default:
		return nil, 0, &NoDecoderError{Container: c}
	}
}
