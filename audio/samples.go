package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// SampleSource yields interleaved float64 samples in [-1, 1].
type SampleSource interface {
	// ReadSamples fills dst with whole frames of interleaved samples and
	// returns the number of samples (a multiple of Channels). It returns
	// io.EOF, possibly with n > 0, at the end of the audio. dst must hold
	// at least one frame.
	ReadSamples(dst []float64) (n int, err error)
	// Channels is the number of samples per frame.
	Channels() int
}

// SampleReader decodes bytes in a Format into float64 samples.
type SampleReader struct {
	r   io.Reader
	f   Format
	buf []byte
	dec func([]byte) float64
}

// NewSampleReader returns a SampleSource reading audio in format f from r.
// A partial frame at the end of r is dropped.
func NewSampleReader(r io.Reader, f Format) (*SampleReader, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	return &SampleReader{r: r, f: f, dec: sampleDecoder(f)}, nil
}

// Channels implements SampleSource.
func (s *SampleReader) Channels() int { return s.f.Channels }

// Format returns the format the samples are decoded from.
func (s *SampleReader) Format() Format { return s.f }

// ReadSamples implements SampleSource.
func (s *SampleReader) ReadSamples(dst []float64) (int, error) {
	bps, ch := s.f.BytesPerSample(), s.f.Channels
	frames := len(dst) / ch
	if frames == 0 {
		return 0, errors.New("read samples: buffer smaller than one frame")
	}
	need := frames * ch * bps
	if cap(s.buf) < need {
		s.buf = make([]byte, need)
	}
	buf := s.buf[:need]
	n, err := io.ReadFull(s.r, buf)
	n -= n % (ch * bps)
	for i := 0; i < n/bps; i++ {
		dst[i] = s.dec(buf[i*bps : i*bps+bps])
	}
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return n / bps, io.EOF
	case err != nil:
		return n / bps, fmt.Errorf("read samples: %w", err)
	}
	return n / bps, nil
}

func sampleDecoder(f Format) func([]byte) float64 {
	le := binary.LittleEndian
	switch f.Encoding {
	case MuLaw:
		return func(b []byte) float64 { return float64(MuLawDecode(b[0])) / 32768 }
	case ALaw:
		return func(b []byte) float64 { return float64(ALawDecode(b[0])) / 32768 }
	case Float:
		if f.BitsPerSample == 64 {
			return func(b []byte) float64 { return clamp(math.Float64frombits(le.Uint64(b))) }
		}
		return func(b []byte) float64 { return clamp(float64(math.Float32frombits(le.Uint32(b)))) }
	}
	switch f.BitsPerSample {
	case 8:
		return func(b []byte) float64 { return (float64(b[0]) - 128) / 128 }
	case 16:
		return func(b []byte) float64 { return float64(int16(le.Uint16(b))) / 32768 }
	case 24:
		return func(b []byte) float64 {
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			return float64(v) / (1 << 23)
		}
	}
	return func(b []byte) float64 { return float64(int32(le.Uint32(b))) / (1 << 31) }
}

// clamp limits v to [-1, 1] and turns NaN into 0.
func clamp(v float64) float64 {
	switch {
	case v > 1:
		return 1
	case v < -1:
		return -1
	case v != v:
		return 0
	}
	return v
}

// SampleWriter encodes float64 samples into bytes of a Format.
type SampleWriter struct {
	w   io.Writer
	f   Format
	buf []byte
}

// NewSampleWriter returns a writer encoding samples in format f to w.
// Samples outside [-1, 1] are clipped; integer formats round to nearest.
func NewSampleWriter(w io.Writer, f Format) (*SampleWriter, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("write samples: %w", err)
	}
	return &SampleWriter{w: w, f: f}, nil
}

// Format returns the format the writer encodes to.
func (s *SampleWriter) Format() Format { return s.f }

// WriteSamples encodes and writes interleaved samples. Callers keep frames
// whole across calls; the writer itself does not buffer.
func (s *SampleWriter) WriteSamples(x []float64) error {
	s.buf = AppendSamples(s.buf[:0], s.f, x)
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("write samples: %w", err)
	}
	return nil
}

// AppendSamples appends samples x encoded in format f (which must be
// valid) to b.
func AppendSamples(b []byte, f Format, x []float64) []byte {
	le := binary.LittleEndian
	for _, v := range x {
		v = clamp(v)
		switch {
		case f.Encoding == MuLaw:
			b = append(b, MuLawEncode(toInt16(v)))
		case f.Encoding == ALaw:
			b = append(b, ALawEncode(toInt16(v)))
		case f.Encoding == Float && f.BitsPerSample == 64:
			b = le.AppendUint64(b, math.Float64bits(v))
		case f.Encoding == Float:
			b = le.AppendUint32(b, math.Float32bits(float32(v)))
		case f.BitsPerSample == 8:
			b = append(b, byte(quantize(v, 1<<7)+128))
		case f.BitsPerSample == 16:
			b = le.AppendUint16(b, uint16(toInt16(v)))
		case f.BitsPerSample == 24:
			q := uint32(quantize(v, 1<<23))
			b = append(b, byte(q), byte(q>>8), byte(q>>16))
		default:
			b = le.AppendUint32(b, uint32(quantize(v, 1<<31)))
		}
	}
	return b
}

// quantize maps v in [-1, 1] to an integer in [-scale, scale-1].
func quantize(v float64, scale int64) int64 {
	q := int64(math.Round(v * float64(scale)))
	if q > scale-1 {
		q = scale - 1
	}
	if q < -scale {
		q = -scale
	}
	return q
}

func toInt16(v float64) int16 { return int16(quantize(v, 1<<15)) }

// Mono averages the channels of src into one. A mono src is returned as is.
func Mono(src SampleSource) SampleSource {
	if src.Channels() == 1 {
		return src
	}
	return &downmix{src: src}
}

type downmix struct {
	src SampleSource
	buf []float64
}

func (d *downmix) Channels() int { return 1 }

func (d *downmix) ReadSamples(dst []float64) (int, error) {
	ch := d.src.Channels()
	if cap(d.buf) < len(dst)*ch {
		d.buf = make([]float64, len(dst)*ch)
	}
	n, err := d.src.ReadSamples(d.buf[:len(dst)*ch])
	frames := n / ch
	for i := 0; i < frames; i++ {
		sum := 0.0
		for c := 0; c < ch; c++ {
			sum += d.buf[i*ch+c]
		}
		dst[i] = sum / float64(ch)
	}
	return frames, err
}
