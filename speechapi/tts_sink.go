package speechapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
)

// checkWAVSize compares a whole WAV body's length with the data size its
// header declares (when the header is complete in head and the size is
// known).
func checkWAVSize(head []byte, n int64) error {
	_, declared, err := audio.ReadWAVHeader(bytes.NewReader(head))
	if err != nil || declared == audio.UnknownSize {
		return nil // a header longer than head (extra chunks): nothing to compare
	}
	_, data, err := audio.ParseWAV(head)
	if err != nil {
		return nil
	}
	offset := int64(len(head) - len(data))
	if got := n - offset; got != declared && got != declared+declared&1 {
		return &IncompleteError{What: "wav audio", Reason: fmt.Sprintf("header declares %d data bytes, body has %d", declared, got)}
	}
	return nil
}

// streamSink assembles the audio pieces of an SSE stream into the
// caller's writer. WAV pieces are joined RIFF-aware (the live service sends
// each chunk as a whole WAV file): with an io.WriteSeeker by
// audio.WAVJoiner; with a plain writer only when the stream carries one
// header, on its first piece, that declares the size of the whole audio.
// Other containers are concatenated.
type streamSink struct {
	cfg      contract.Format
	w        io.Writer
	joiner   *audio.WAVJoiner
	written  int64
	pieces   int
	head     []byte
	declared int64 // WAV: data bytes the first header declares for the whole stream
	offset   int64 // pass-through WAV: header length
	data     int64 // joined WAV: data bytes added so far
}

func newStreamSink(cfg contract.Format, w io.Writer) (*streamSink, error) {
	s := &streamSink{cfg: cfg, w: w, declared: -1}
	if ws, ok := w.(io.WriteSeeker); ok && cfg.Container == ContainerWAV {
		j, err := audio.NewWAVJoiner(ws, nil)
		if err != nil {
			return nil, err
		}
		s.joiner = j
	}
	return s, nil
}

// add appends one decoded piece.
func (s *streamSink) add(piece []byte) error {
	s.pieces++
	if s.joiner != nil {
		return s.join(piece)
	}
	if s.cfg.Container == ContainerWAV {
		if err := s.passWAV(piece); err != nil {
			return err
		}
	}
	if len(s.head) < 64 {
		s.head = append(s.head, piece[:min(len(piece), 64-len(s.head))]...)
	}
	n, err := s.w.Write(piece)
	s.written += int64(n)
	if err != nil {
		return fmt.Errorf("write audio: %w", err)
	}
	return nil
}

// join adds a piece to the WAV joiner. When the first piece's header
// declares the size of the whole stream (the documented form: one file cut
// into chunks), data beyond it (the RIFF pad byte) is not audio.
func (s *streamSink) join(piece []byte) error {
	if audio.IsWAV(piece) {
		_, data, err := audio.ParseWAV(piece)
		if err != nil {
			return fmt.Errorf("wav piece %d: %w", s.pieces, err)
		}
		if s.pieces == 1 {
			if _, declared, err := audio.ReadWAVHeader(bytes.NewReader(piece)); err == nil && declared > int64(len(data)) {
				s.declared = declared
			}
		}
		s.data += int64(len(data))
		return s.joiner.Add(piece)
	}
	if s.declared >= 0 {
		piece = piece[:max(0, min(int64(len(piece)), s.declared-s.data))]
	}
	s.data += int64(len(piece))
	return s.joiner.Add(piece)
}

// errNeedSeeker explains why a plain writer cannot take the stream.
var errNeedSeeker = errors.New("the stream sends WAV pieces with their own headers; joining them needs an io.WriteSeeker such as *os.File")

// passWAV checks a WAV piece for pass-through writing.
func (s *streamSink) passWAV(piece []byte) error {
	if s.pieces > 1 {
		if audio.IsWAV(piece) {
			return errNeedSeeker
		}
		return nil
	}
	if !audio.IsWAV(piece) {
		return fmt.Errorf("first wav piece has no RIFF header")
	}
	_, declared, err := audio.ReadWAVHeader(bytes.NewReader(piece))
	if err != nil {
		return fmt.Errorf("first wav piece: %w", err)
	}
	if declared == audio.UnknownSize || declared == 0 {
		return errNeedSeeker
	}
	_, data, err := audio.ParseWAV(piece)
	if err != nil {
		return fmt.Errorf("first wav piece: %w", err)
	}
	s.declared, s.offset = declared, int64(len(piece)-len(data))
	return nil
}

// finish completes the file and checks it.
func (s *streamSink) finish() error {
	if s.joiner != nil {
		if err := s.joiner.Close(); err != nil {
			return err
		}
		if s.declared >= 0 && s.data < s.declared {
			return &IncompleteError{What: "audio stream", Reason: fmt.Sprintf("wav header declares %d data bytes, the chunks carried %d", s.declared, s.data)}
		}
		f, _ := s.joiner.Format()
		if err := checkPCMFormat(s.cfg, f); err != nil {
			return err
		}
		if s.joiner.DataBytes() == 0 {
			return &IncompleteError{What: "audio stream", Reason: "no audio data"}
		}
		return nil
	}
	if s.written == 0 {
		return &IncompleteError{What: "audio stream", Reason: "no audio data"}
	}
	if err := checkMagic(s.cfg.Container, s.head); err != nil {
		return err
	}
	if s.cfg.Container == ContainerWAV {
		if got := s.written - s.offset; got != s.declared && got != s.declared+s.declared&1 {
			return &IncompleteError{What: "audio stream", Reason: fmt.Sprintf("wav header declares %d data bytes, the chunks carried %d", s.declared, got)}
		}
		return nil
	}
	if s.cfg.Container != ContainerMP3 && s.cfg.Container != ContainerOGG {
		if fb := int64(s.cfg.FrameBytes()); s.written%fb != 0 {
			return &IncompleteError{What: "audio stream", Reason: fmt.Sprintf("%d bytes is not a whole number of %d-byte frames", s.written, fb)}
		}
	}
	return nil
}

// bytesWritten is what reached the caller's writer (header included).
func (s *streamSink) bytesWritten() int64 {
	if s.joiner != nil {
		f, _ := s.joiner.Format()
		n := s.joiner.DataBytes()
		return int64(audio.WAVHeaderSize(f)) + n + n&1
	}
	return s.written
}

// checkPCMFormat compares the format the service sent with the request.
func checkPCMFormat(cfg contract.Format, f audio.Format) error {
	if f.SampleRate != cfg.SampleRate || f.Channels != cfg.NumChannels || f.BitsPerSample != 8*cfg.SampleWidth {
		return fmt.Errorf("service sent %d Hz, %d channels, %d bits; requested %d Hz, %d channels, %d bits",
			f.SampleRate, f.Channels, f.BitsPerSample, cfg.SampleRate, cfg.NumChannels, 8*cfg.SampleWidth)
	}
	return nil
}
