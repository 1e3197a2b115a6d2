package mp3

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Frames walks the frames of one MPEG audio stream. It resynchronises
// over junk between frames, trusting a header found after junk only if
// the next header agrees; a frame of another stream (version, layer or
// rate differs from the first frame's) counts as junk. The stream ends at
// the end of the data or at a trailing ID3v1, APE or Lyrics3 tag.
type Frames struct {
	br    *bufio.Reader
	first Header
	known bool
	lost  bool // the last byte discarded was junk
	// Junk counts the bytes skipped between and after the frames,
	// including a truncated last frame.
	Junk int64
}

// NewFrames returns a Frames reading br, which must buffer at least
// MaxFrameLen + 4 bytes.
func NewFrames(br *bufio.Reader) *Frames {
	return &Frames{br: br}
}

// Next returns the next frame, header included, and its parsed header.
// The frame is valid until the next call. At the end of the stream it
// returns io.EOF; a truncated last frame gives io.ErrUnexpectedEOF (after
// it, io.EOF).
func (f *Frames) Next() (Header, []byte, error) {
	for {
		b, err := f.br.Peek(4)
		if len(b) < 4 {
			if err != nil && !errors.Is(err, io.EOF) {
				return Header{}, nil, fmt.Errorf("read MP3 frame: %w", err)
			}
			f.Junk += int64(len(b))
			f.br.Discard(len(b))
			return Header{}, nil, io.EOF
		}
		h, ok := ParseHeader(b)
		if ok && f.lost {
			ok = NextHeaderOK(f.br, h)
		}
		if ok && f.known && !f.first.sameStream(h) {
			ok = false
		}
		if !ok {
			if bytes.HasPrefix(b, []byte("TAG")) || bytes.HasPrefix(b, []byte("APET")) || bytes.HasPrefix(b, []byte("LYRI")) {
				return Header{}, nil, io.EOF
			}
			f.br.Discard(1)
			f.Junk++
			f.lost = true
			continue
		}
		f.lost = false
		frame, err := f.br.Peek(h.Length)
		if len(frame) < h.Length {
			if err != nil && !errors.Is(err, io.EOF) {
				return Header{}, nil, fmt.Errorf("read MP3 frame: %w", err)
			}
			f.Junk += int64(len(frame))
			f.br.Discard(len(frame))
			return Header{}, nil, fmt.Errorf("read MP3 frame: %d of %d bytes: %w", len(frame), h.Length, io.ErrUnexpectedEOF)
		}
		if !f.known {
			f.first, f.known = h, true
		}
		f.br.Discard(h.Length) // frame stays valid: Discard within the buffer reads nothing
		return h, frame, nil
	}
}
