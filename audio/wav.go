package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// WAV format tags (the wFormatTag field of the fmt chunk).
const (
	wavTagPCM        = 0x0001
	wavTagFloat      = 0x0003
	wavTagALaw       = 0x0006
	wavTagMuLaw      = 0x0007
	wavTagExtensible = 0xFFFE
)

// UnknownSize is the dataBytes ReadWAVHeader returns for a streaming header
// whose data size was never filled in (0xFFFFFFFF, or 0 with an unpatched
// RIFF size): the data runs to the end of the stream.
const UnknownSize int64 = -1

// maxWAVData is the largest data chunk a RIFF file can describe.
const maxWAVData = 0xFFFFFFFF - 64

// maxFmtChunk bounds the fmt chunk read into memory; real ones are 16 to 40 bytes.
const maxFmtChunk = 4096

// errNotWAV is wrapped by every error saying input is not a WAV file.
var errNotWAV = errors.New("not a WAV file")

// WAVHeaderSize is the size of the header WriteWAVHeader writes for f:
// 44 bytes for PCM, 58 for float, mu-law and A-law (an 18-byte fmt chunk
// and the fact chunk those formats require).
func WAVHeaderSize(f Format) int {
	if f.Encoding == PCM {
		return 44
	}
	return 58
}

// WriteWAVHeader writes a canonical RIFF/WAVE header for dataBytes bytes of
// audio in format f. An odd dataBytes is allowed; the writer of the data
// then owes one pad byte, which the RIFF size already counts.
func WriteWAVHeader(w io.Writer, f Format, dataBytes int64) error {
	hdr, err := wavHeader(f, dataBytes)
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("write WAV header: %w", err)
	}
	return nil
}

func wavHeader(f Format, dataBytes int64) ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("write WAV header: %w", err)
	}
	if dataBytes < 0 || dataBytes > maxWAVData {
		return nil, fmt.Errorf("write WAV header: data size %d outside 0..%d", dataBytes, int64(maxWAVData))
	}
	size := WAVHeaderSize(f)
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	riff := int64(size-8) + dataBytes + dataBytes&1
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(riff))
	b = append(b, "WAVE"...)
	b = append(b, "fmt "...)
	tag := uint16(wavTagPCM)
	switch f.Encoding {
	case Float:
		tag = wavTagFloat
	case MuLaw:
		tag = wavTagMuLaw
	case ALaw:
		tag = wavTagALaw
	}
	fmtSize := uint32(16)
	if f.Encoding != PCM {
		fmtSize = 18
	}
	b = le.AppendUint32(b, fmtSize)
	b = le.AppendUint16(b, tag)
	b = le.AppendUint16(b, uint16(f.Channels))
	b = le.AppendUint32(b, uint32(f.SampleRate))
	b = le.AppendUint32(b, uint32(f.ByteRate()))
	b = le.AppendUint16(b, uint16(f.BlockAlign()))
	b = le.AppendUint16(b, uint16(f.BitsPerSample))
	if f.Encoding != PCM {
		b = le.AppendUint16(b, 0) // cbSize
		b = append(b, "fact"...)
		b = le.AppendUint32(b, 4)
		b = le.AppendUint32(b, uint32(dataBytes/int64(f.BlockAlign())))
	}
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(dataBytes))
	return b, nil
}

// WAVWriter writes a WAV file whose length is not known in advance. It
// writes a header at the current position of the underlying WriteSeeker,
// passes audio through, and on Close seeks back to fill in the sizes.
type WAVWriter struct {
	ws     io.WriteSeeker
	f      Format
	start  int64
	n      int64
	err    error
	closed bool
}

// NewWAVWriter writes a provisional header to ws and returns a writer for
// the audio data in format f.
func NewWAVWriter(ws io.WriteSeeker, f Format) (*WAVWriter, error) {
	start, err := ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("start WAV file: %w", err)
	}
	if err := WriteWAVHeader(ws, f, 0); err != nil {
		return nil, err
	}
	return &WAVWriter{ws: ws, f: f, start: start}, nil
}

// Format returns the format the writer was created with.
func (w *WAVWriter) Format() Format { return w.f }

// Write appends audio data. Writes past the RIFF size limit (4 GiB) fail.
func (w *WAVWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, errors.New("write WAV data: writer closed")
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.n+int64(len(p)) > maxWAVData {
		w.err = fmt.Errorf("write WAV data: file would exceed the 4 GiB RIFF limit")
		return 0, w.err
	}
	n, err := w.ws.Write(p)
	w.n += int64(n)
	if err != nil {
		w.err = fmt.Errorf("write WAV data: %w", err)
		return n, w.err
	}
	return n, nil
}

// DataBytes is the number of audio bytes written so far.
func (w *WAVWriter) DataBytes() int64 { return w.n }

// Close writes the pad byte an odd data length needs, patches the RIFF,
// fact and data sizes, and leaves the WriteSeeker at the end of the file.
// It does not close the underlying WriteSeeker.
func (w *WAVWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if w.n&1 == 1 {
		if _, err := w.ws.Write([]byte{0}); err != nil {
			w.err = fmt.Errorf("write WAV pad byte: %w", err)
			return w.err
		}
	}
	w.err = w.patch()
	return w.err
}

func (w *WAVWriter) patch() error {
	hdr, err := wavHeader(w.f, w.n)
	if err != nil {
		return err
	}
	end, err := w.ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("finish WAV file: %w", err)
	}
	if _, err := w.ws.Seek(w.start, io.SeekStart); err != nil {
		return fmt.Errorf("finish WAV file: %w", err)
	}
	if _, err := w.ws.Write(hdr); err != nil {
		return fmt.Errorf("finish WAV file: %w", err)
	}
	if _, err := w.ws.Seek(end, io.SeekStart); err != nil {
		return fmt.Errorf("finish WAV file: %w", err)
	}
	return nil
}

// IsWAV reports whether b starts with a RIFF/WAVE header ("RIFF", a size,
// "WAVE"). It needs the first 12 bytes.
func IsWAV(b []byte) bool {
	return len(b) >= 12 && bytes.Equal(b[0:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WAVE"))
}
