package audio

import (
	"bufio"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// Decoded is audio opened for reading as samples.
type Decoded struct {
	// Container is where the audio came from.
	Container Container
	// Format is the format of the decoded samples: the file's own format
	// for WAV and raw audio; for MP3, 32-bit float at the stream's rate in
	// the stream's channels (1 for a single-channel stream, else 2).
	Format Format
	// Samples yields the audio, read from the source as it goes.
	Samples SampleSource
}

// Decode opens r for reading as samples. It decodes WAV in every encoding
// ReadWAVHeader accepts and MPEG-1, MPEG-2 and MPEG 2.5 layer III (MP3 at
// 8 to 48 kHz); other containers, and MPEG layers I and II, give an error
// wrapping ErrUnsupported. Nothing is read ahead beyond a buffer.
func Decode(r io.ReadSeeker) (*Decoded, error) {
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	switch c := Sniff(head[:n]); c {
	case ContainerWAV:
		return decodeWAV(r)
	case ContainerMP3:
		return decodeMP3(r)
	default:
		return nil, fmt.Errorf("decode: %w: %s audio (voxform decodes wav and mp3)", ErrUnsupported, c)
	}
}

func decodeWAV(r io.Reader) (*Decoded, error) {
	h, err := readWAVHeader(r)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var data io.Reader = r
	if h.dataBytes > 0 { // 0 and UnknownSize: to the end, as in probeWAV
		data = io.LimitReader(r, h.dataBytes)
	}
	return decodeRaw(data, h.format, ContainerWAV)
}

// decodeRaw reads headerless audio in format f from r; c names the
// container for the caller's records (ContainerRaw, ContainerMuLaw, ...).
func decodeRaw(r io.Reader, f Format, c Container) (*Decoded, error) {
	s, err := NewSampleReader(bufio.NewReaderSize(r, 32<<10), f)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return &Decoded{Container: c, Format: f, Samples: s}, nil
}

// decodeMP3 finds the first audio frame itself (skipping ID3v2 tags and a
// Xing/Info/VBRI frame, which holds no audio) and decodes the stream from
// there, frame by frame.
func decodeMP3(rs io.ReadSeeker) (*Decoded, error) {
	start, err := mp3.SkipID3(rs)
	if err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	br := bufio.NewReaderSize(rs, 64<<10)
	if _, err := mp3.Sync(br, mp3.SearchLimit); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	first, _ := br.Peek(4)
	h, _ := mp3.ParseHeader(first)
	if h.Layer != 3 {
		return nil, fmt.Errorf("decode: %w: MPEG layer %d audio", ErrUnsupported, h.Layer)
	}
	frame, _ := br.Peek(h.Length)
	_, _, xing := mp3.ReadXing(frame, h)
	_, _, vbri := mp3.ReadVBRI(frame)
	if xing || vbri {
		br.Discard(h.Length)
	}
	dec, err := mp3.NewDecoder(br)
	if err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	f := Format{SampleRate: dec.SampleRate(), Channels: dec.Channels(), BitsPerSample: 32, Encoding: Float}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	return &Decoded{Container: ContainerMP3, Format: f, Samples: &mp3Source{dec: dec}}, nil
}

// mp3Source yields the samples of an MP3 decoder, a frame at a time,
// clipped to [-1, 1].
type mp3Source struct {
	dec *mp3.Decoder
	pcm []float32 // what is left of the last decoded frame
	err error
}

// Channels implements SampleSource.
func (s *mp3Source) Channels() int { return s.dec.Channels() }

// ReadSamples implements SampleSource.
func (s *mp3Source) ReadSamples(dst []float64) (int, error) {
	for len(s.pcm) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.pcm, s.err = s.dec.Next()
		if s.err != nil && s.err != io.EOF {
			s.err = fmt.Errorf("decode MP3: %w", s.err)
		}
	}
	n := min(len(dst), len(s.pcm))
	n -= n % s.dec.Channels()
	for i, v := range s.pcm[:n] {
		dst[i] = clamp(float64(v))
	}
	s.pcm = s.pcm[n:]
	return n, nil
}
