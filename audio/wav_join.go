package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrPartialFrame is returned by WAVJoiner.Close when the pieces ended in
// the middle of a frame; the incomplete frame is left out of the file.
var ErrPartialFrame = errors.New("audio ends with a partial frame")

// ParseWAV splits a whole WAV file held in memory into its format and its
// audio data. It trusts the length of b over the declared data size, which
// streaming senders leave at 0 or 0xFFFFFFFF or get wrong, except that
// well-formed chunks after the declared data (a trailing LIST, say) are
// not taken for audio. A header-only file gives empty data.
func ParseWAV(b []byte) (Format, []byte, error) {
	h, err := readWAVHeader(bytes.NewReader(b))
	if err != nil {
		return Format{}, nil, err
	}
	data := b[h.offset:]
	if h.dataBytes >= 0 && h.dataBytes < int64(len(data)) {
		if isChunkList(data[h.dataBytes+h.dataBytes&1:]) {
			data = data[:h.dataBytes]
		}
	}
	return h.format, data, nil
}

// isChunkList reports whether b is a sequence of RIFF chunks with
// printable identifiers that exactly fills b (pad bytes included).
func isChunkList(b []byte) bool {
	for len(b) > 0 {
		if len(b) < 8 || printable(b[:4]) != string(b[:4]) {
			return false
		}
		n := int64(binary.LittleEndian.Uint32(b[4:8]))
		n += n & 1
		if n > int64(len(b)-8) {
			return n-1 == int64(len(b)-8) // a last chunk may omit its pad byte
		}
		b = b[8+n:]
	}
	return true
}

// WAVJoiner concatenates pieces of audio into one WAV file. Each piece is
// either raw audio in the joined format or a whole WAV file with its own
// header (possibly a header with no data), as the streaming synthesis
// service sends them. Every WAV piece must have the same format. Pieces may
// split frames; the joiner carries the remainder to the next piece.
type WAVJoiner struct {
	ws     io.WriteSeeker
	f      Format
	known  bool
	w      *WAVWriter
	carry  []byte
	pieces int
	err    error
}

// NewWAVJoiner returns a joiner writing to ws. With f nil the format comes
// from the first WAV piece, and a raw piece before it is an error; with f
// set, every WAV piece must match it.
func NewWAVJoiner(ws io.WriteSeeker, f *Format) (*WAVJoiner, error) {
	j := &WAVJoiner{ws: ws}
	if f != nil {
		if err := j.start(*f); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (j *WAVJoiner) start(f Format) error {
	w, err := NewWAVWriter(j.ws, f)
	if err != nil {
		return fmt.Errorf("join WAV: %w", err)
	}
	j.w, j.f, j.known = w, f, true
	return nil
}

// Format returns the joined format, once a WAV piece or the caller gave it.
func (j *WAVJoiner) Format() (Format, bool) { return j.f, j.known }

// DataBytes is the number of audio bytes written so far.
func (j *WAVJoiner) DataBytes() int64 {
	if j.w == nil {
		return 0
	}
	return j.w.DataBytes()
}

// Add appends one piece. A piece that is rejected (a bad header, a format
// that differs from the first) changes nothing and the joiner stays usable.
func (j *WAVJoiner) Add(piece []byte) error {
	if j.err != nil {
		return j.err
	}
	j.pieces++
	data := piece
	if IsWAV(piece) {
		f, d, err := ParseWAV(piece)
		if err != nil {
			return fmt.Errorf("join WAV piece %d: %w", j.pieces, err)
		}
		if j.known && f != j.f {
			return fmt.Errorf("join WAV piece %d: %w: format %s differs from %s", j.pieces, ErrFormat, f, j.f)
		}
		if !j.known {
			if err := j.start(f); err != nil {
				return err
			}
		}
		data = d
	} else if !j.known && len(piece) > 0 {
		return fmt.Errorf("join WAV piece %d: raw audio before any WAV header, and no format given", j.pieces)
	}
	if len(data) == 0 {
		return nil
	}
	return j.write(data)
}

// write passes whole frames to the WAV writer and keeps the remainder.
func (j *WAVJoiner) write(data []byte) error {
	align := j.f.BlockAlign()
	if len(j.carry) > 0 {
		need := align - len(j.carry)
		if len(data) < need {
			j.carry = append(j.carry, data...)
			return nil
		}
		j.carry = append(j.carry, data[:need]...)
		data = data[need:]
		if _, err := j.w.Write(j.carry); err != nil {
			j.err = fmt.Errorf("join WAV: %w", err)
			return j.err
		}
		j.carry = j.carry[:0]
	}
	whole := len(data) - len(data)%align
	if _, err := j.w.Write(data[:whole]); err != nil {
		j.err = fmt.Errorf("join WAV: %w", err)
		return j.err
	}
	j.carry = append(j.carry, data[whole:]...)
	return nil
}

// Close patches the sizes so that the output is one valid WAV file. It
// returns an error wrapping ErrPartialFrame (after finishing the file
// without it) when the audio ended mid-frame, and an error when no format
// was ever known. It does not close the underlying WriteSeeker.
func (j *WAVJoiner) Close() error {
	if j.w == nil {
		return errors.New("join WAV: no WAV piece and no format given: nothing written")
	}
	if err := j.w.Close(); err != nil {
		return fmt.Errorf("join WAV: %w", err)
	}
	if j.err != nil {
		return j.err
	}
	if len(j.carry) > 0 {
		return fmt.Errorf("join WAV: %w: %d of %d bytes dropped", ErrPartialFrame, len(j.carry), j.f.BlockAlign())
	}
	return nil
}

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
