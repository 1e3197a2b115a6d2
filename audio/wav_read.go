package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// wavHeaderInfo is everything ReadWAVHeader learns, for callers in this
// package that need more than the Format.
type wavHeaderInfo struct {
	format    Format
	tag       uint16 // format tag after resolving WAVE_FORMAT_EXTENSIBLE
	dataBytes int64  // UnknownSize for streaming headers
	riffSize  uint32
	offset    int64 // bytes consumed up to the first data byte
}

// ReadWAVHeader reads a RIFF/WAVE header from r and leaves r at the first
// byte of audio data. It skips chunks it does not need (LIST, fact, cue,
// odd-sized chunks with their pad byte), understands
// WAVE_FORMAT_EXTENSIBLE and the PCM, float, mu-law and A-law format tags,
// and returns dataBytes == UnknownSize for streaming headers whose sizes
// were left as 0xFFFFFFFF or 0. The declared size may exceed what follows;
// readers should stop at EOF either way.
func ReadWAVHeader(r io.Reader) (f Format, dataBytes int64, err error) {
	h, err := readWAVHeader(r)
	if err != nil {
		return Format{}, 0, err
	}
	return h.format, h.dataBytes, nil
}

func readWAVHeader(r io.Reader) (wavHeaderInfo, error) {
	var h wavHeaderInfo
	var riff [12]byte
	if n, err := io.ReadFull(r, riff[:]); err != nil {
		return h, fmt.Errorf("%w: header is %d bytes, need 12", errNotWAV, n)
	}
	if !IsWAV(riff[:]) {
		return h, fmt.Errorf("%w: no RIFF/WAVE signature (starts with %q)", errNotWAV, printable(riff[:]))
	}
	h.riffSize = binary.LittleEndian.Uint32(riff[4:8])
	h.offset = 12
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if !haveFmt {
				return h, fmt.Errorf("%w: no fmt chunk before offset %d", errNotWAV, h.offset)
			}
			return h, fmt.Errorf("%w: no data chunk before offset %d", errNotWAV, h.offset)
		}
		id := string(ch[0:4])
		size := binary.LittleEndian.Uint32(ch[4:8])
		h.offset += 8
		switch id {
		case "fmt ":
			if err := h.readFmt(r, size); err != nil {
				return h, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return h, fmt.Errorf("%w: data chunk at offset %d before the fmt chunk", errNotWAV, h.offset-8)
			}
			h.dataBytes = int64(size)
			if size == 0xFFFFFFFF || size == 0 && (h.riffSize == 0 || h.riffSize == 0xFFFFFFFF) {
				h.dataBytes = UnknownSize
			}
			return h, nil
		default:
			if err := skipChunk(r, int64(size)+int64(size&1)); err != nil {
				return h, fmt.Errorf("%w: chunk %q at offset %d: %v", errNotWAV, printable(ch[0:4]), h.offset-8, err)
			}
			h.offset += int64(size) + int64(size&1)
		}
	}
}

func (h *wavHeaderInfo) readFmt(r io.Reader, size uint32) error {
	at := h.offset - 8
	if size < 16 || size > maxFmtChunk {
		return fmt.Errorf("%w: fmt chunk at offset %d has size %d", errNotWAV, at, size)
	}
	b := make([]byte, int(size)+int(size&1))
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("%w: fmt chunk at offset %d is truncated", errNotWAV, at)
	}
	h.offset += int64(len(b))
	le := binary.LittleEndian
	tag := le.Uint16(b[0:2])
	channels := int(le.Uint16(b[2:4]))
	rate := le.Uint32(b[4:8])
	blockAlign := int(le.Uint16(b[12:14]))
	bits := int(le.Uint16(b[14:16]))
	if tag == wavTagExtensible {
		if size < 40 {
			return fmt.Errorf("%w: WAVE_FORMAT_EXTENSIBLE fmt chunk at offset %d has size %d, need 40", errNotWAV, at, size)
		}
		tag = le.Uint16(b[24:26]) // first two bytes of the SubFormat GUID
	}
	h.tag = tag
	f := Format{Channels: channels, BitsPerSample: bits}
	if rate <= MaxSampleRate {
		f.SampleRate = int(rate)
	}
	switch tag {
	case wavTagPCM:
		f.Encoding = PCM
		// Containers such as 20 bits in 3 bytes: read by the container width.
		if channels > 0 && blockAlign%channels == 0 && blockAlign/channels*8 > bits && bits > 0 {
			f.BitsPerSample = blockAlign / channels * 8
		}
	case wavTagFloat:
		f.Encoding = Float
	case wavTagMuLaw:
		f.Encoding = MuLaw
	case wavTagALaw:
		f.Encoding = ALaw
	default:
		return fmt.Errorf("read WAV header: %w: format tag 0x%04X", ErrFormat, tag)
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("read WAV header: %w", err)
	}
	if blockAlign != f.BlockAlign() {
		return fmt.Errorf("read WAV header: %w: block align %d, expected %d for %s", ErrFormat, blockAlign, f.BlockAlign(), f)
	}
	h.format = f
	return nil
}

// skipChunk discards n bytes, seeking when r can.
func skipChunk(r io.Reader, n int64) error {
	if n == 0 {
		return nil
	}
	got, err := io.CopyN(io.Discard, r, n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("truncated: %d of %d bytes", got, n)
		}
		return err
	}
	return nil
}

// printable returns b with bytes outside printable ASCII replaced by '.',
// for error messages about garbage input.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7E {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}
