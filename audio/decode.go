package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// Decoded is audio opened for reading as samples.
type Decoded struct {
	// Container is where the audio came from.
	Container Container
	// Format is the format of the decoded samples: the file's own format
	// for WAV and raw audio; for MP3, 16-bit PCM at the stream's rate in
	// 2 channels (the MP3 decoder always yields stereo).
	Format Format
	// Samples yields the audio, read from the source as it goes.
	Samples SampleSource
}

// Decode opens r for reading as samples. It decodes WAV in every encoding
// ReadWAVHeader accepts and MPEG-1 and MPEG-2 layer III (MP3 at 16 to 48
// kHz); other containers, and MPEG 2.5 (8 to 12 kHz MP3), give an error
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
	return DecodeRaw(data, h.format, ContainerWAV)
}

// DecodeRaw reads headerless audio in format f from r; c names the
// container for the caller's records (ContainerRaw, ContainerMuLaw, ...).
func DecodeRaw(r io.Reader, f Format, c Container) (*Decoded, error) {
	s, err := NewSampleReader(bufio.NewReaderSize(r, 32<<10), f)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return &Decoded{Container: c, Format: f, Samples: s}, nil
}

// decodeMP3 finds the first audio frame itself (skipping ID3v2 tags and a
// Xing/Info/VBRI frame, which holds no audio) and hands the stream from
// there to go-mp3, without letting it seek: given a Seeker it would read
// the whole file up front to index the frames.
func decodeMP3(rs io.ReadSeeker) (*Decoded, error) {
	start, err := skipID3(rs)
	if err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	br := bufio.NewReaderSize(rs, 64<<10)
	if _, err := syncMPEG(br, mpegSearch); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	first, _ := br.Peek(4)
	h, _ := parseMPEGHeader(first)
	if h.layer != 3 {
		return nil, fmt.Errorf("decode: %w: MPEG layer %d audio", ErrUnsupported, h.layer)
	}
	if h.version == 25 {
		return nil, fmt.Errorf("decode: %w: MPEG 2.5 layer III (%d Hz)", ErrUnsupported, h.sampleRate)
	}
	frame, _ := br.Peek(h.length)
	_, _, xing := readXing(frame, h)
	_, _, vbri := readVBRI(frame)
	if xing || vbri {
		br.Discard(h.length)
	}
	var dec *mp3.Decoder
	err = safely(func() error {
		var err error
		dec, err = mp3.NewDecoder(&tagStopper{r: br})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	f := Format{SampleRate: dec.SampleRate(), Channels: 2, BitsPerSample: 16, Encoding: PCM}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	s, err := NewSampleReader(&safeReader{r: dec}, f)
	if err != nil {
		return nil, fmt.Errorf("decode MP3: %w", err)
	}
	return &Decoded{Container: ContainerMP3, Format: f, Samples: s}, nil
}

// tagStopper ends an MP3 stream at a trailing ID3v1 or APE tag, which the
// frame decoder would otherwise try to read as audio.
type tagStopper struct {
	r   *bufio.Reader
	end bool
}

func (t *tagStopper) Read(p []byte) (int, error) {
	if t.end {
		return 0, io.EOF
	}
	// Hand out at most up to the next possible tag start.
	b, _ := t.r.Peek(t.r.Buffered())
	if len(b) == 0 {
		if _, err := t.r.Peek(1); err != nil {
			return 0, err
		}
		b, _ = t.r.Peek(t.r.Buffered())
	}
	for i := 0; i+3 <= len(b) && i < len(p); i++ {
		if s := string(b[i : i+3]); s == "TAG" || s == "APE" {
			if i == 0 {
				if rest, _ := t.r.Peek(8); string(rest[:3]) == "TAG" && t.tailTag() || string(rest) == "APETAGEX" {
					t.end = true
					return 0, io.EOF
				}
				break
			}
			p = p[:i]
			break
		}
	}
	return t.r.Read(p)
}

// tailTag reports whether a "TAG" at the reader is an ID3v1 tag at the end
// of the stream (exactly 128 bytes remain).
func (t *tagStopper) tailTag() bool {
	b, err := t.r.Peek(129)
	return len(b) == 128 && err != nil
}

// safeReader turns a panic inside the MP3 decoder (corrupt input) into an
// error.
type safeReader struct {
	r   io.Reader
	err error
}

func (s *safeReader) Read(p []byte) (n int, err error) {
	if s.err != nil {
		return 0, s.err
	}
	err = safely(func() error {
		var rerr error
		n, rerr = s.r.Read(p)
		return rerr
	})
	if err != nil && err != io.EOF {
		s.err = fmt.Errorf("decode MP3: %w", err)
		return n, s.err
	}
	return n, err
}

// errCorrupt is returned when the MP3 decoder fails on corrupt input.
var errCorrupt = errors.New("corrupt MP3 data")

func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errCorrupt, r)
		}
	}()
	return f()
}
