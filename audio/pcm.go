package audio

import (
	"fmt"
	"io"
)

// realtimeFrameBytes is the size of one binary frame of realtime
// recognition audio: 512 samples of 16-bit mono PCM (speech-recognition
// document, Realtime transcription and Limits).
const realtimeFrameBytes = 1024

// encoder is an io.Reader producing the bytes of a SampleSource encoded
// in a Format, pulling samples as it is read.
type encoder struct {
	src  SampleSource
	f    Format
	in   []float64
	out  []byte
	pos  int
	err  error
	done bool
}

// newEncoder returns a reader of src encoded in format f. f.Channels must
// equal src.Channels(); use Mono and NewResampler first to change them.
func newEncoder(src SampleSource, f Format) (*encoder, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("encode samples: %w", err)
	}
	if f.Channels != src.Channels() {
		return nil, fmt.Errorf("encode samples: %w: %d channels in, %d out", ErrFormat, src.Channels(), f.Channels)
	}
	return &encoder{src: src, f: f, in: make([]float64, 4096*f.Channels)}, nil
}

// Read implements io.Reader.
func (e *encoder) Read(p []byte) (int, error) {
	for e.pos == len(e.out) {
		if e.done {
			return 0, e.err
		}
		n, err := e.src.ReadSamples(e.in)
		e.out = AppendSamples(e.out[:0], e.f, e.in[:n])
		e.pos = 0
		if err != nil {
			e.done = true
			e.err = err
		}
	}
	n := copy(p, e.out[e.pos:])
	e.pos += n
	return n, nil
}

// toPCM16Mono returns the decoded audio as 16-bit signed little-endian
// mono PCM at rate Hz, as realtime recognition takes it (rate 16000 or
// 8000): channels averaged, resampled with NewResampler, streamed.
func toPCM16Mono(d *Decoded, rate int) (io.Reader, error) {
	out := Format{SampleRate: rate, Channels: 1, BitsPerSample: 16, Encoding: PCM}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("convert to PCM: %w", err)
	}
	r, err := NewResampler(Mono(d.Samples), d.Format.SampleRate, rate)
	if err != nil {
		return nil, fmt.Errorf("convert to PCM: %w", err)
	}
	return newEncoder(r, out)
}

// frameReader cuts a byte stream into frames of a fixed size.
type frameReader struct {
	r    io.Reader
	size int
	buf  []byte
	done bool
}

// newFrameReader returns a frameReader cutting r into size-byte frames.
func newFrameReader(r io.Reader, size int) *frameReader {
	if size < 1 {
		size = realtimeFrameBytes
	}
	return &frameReader{r: r, size: size, buf: make([]byte, size)}
}

// Next returns the next frame, valid until the following call. Every frame
// is exactly the frame size: the last one is padded with zero bytes
// (silence in signed PCM). After the last frame Next returns io.EOF.
func (f *frameReader) Next() ([]byte, error) {
	if f.done {
		return nil, io.EOF
	}
	n, err := io.ReadFull(f.r, f.buf)
	switch {
	case err == io.EOF:
		f.done = true
		return nil, io.EOF
	case err == io.ErrUnexpectedEOF:
		f.done = true
		clear(f.buf[n:])
		return f.buf, nil
	case err != nil:
		return nil, fmt.Errorf("read audio frame: %w", err)
	}
	return f.buf, nil
}
