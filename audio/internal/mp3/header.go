package mp3

import (
	"bufio"
	"fmt"
)

// Header is a parsed MPEG audio frame header.
type Header struct {
	Version    int // 1, 2, or 25 for MPEG 2.5
	Layer      int // 1, 2, 3
	Bitrate    int // bits per second
	SampleRate int // Hz
	Channels   int // 1 (single channel) or 2
	Samples    int // per channel per frame
	Length     int // frame length in bytes, header included

	Mode    int  // 0 stereo, 1 joint stereo, 2 dual channel, 3 single channel
	ModeExt int  // layer III joint stereo: bit 1 MS stereo, bit 0 intensity stereo
	CRC     bool // a 16-bit CRC follows the header

	rateIndex int // 0 to 8: 44.1, 48, 32, 22.05, 24, 16, 11.025, 12, 8 kHz
}

// Modes of Header.Mode.
const (
	ModeStereo = 0
	ModeJoint  = 1
	ModeDual   = 2
	ModeMono   = 3
)

var (
	sampleRates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
	// kbit/s by [row][index-1]: MPEG-1 layer I, II, III; MPEG-2 and 2.5
	// layer I, layers II and III (ISO/IEC 11172-3 2.4.2.3, 13818-3 2.4.2.3).
	bitrates = [5][14]int{
		{32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		{32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	}
)

// ParseHeader parses the 4-byte frame header at the start of b.
// Free-format and reserved values are refused.
func ParseHeader(b []byte) (Header, bool) {
	var h Header
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return h, false
	}
	vbits, lbits := (b[1]>>3)&3, (b[1]>>1)&3
	bi, si := int(b[2]>>4), int((b[2]>>2)&3)
	if vbits == 1 || lbits == 0 || bi == 0 || bi == 15 || si == 3 || b[3]&3 == 2 {
		return h, false
	}
	h.Layer = 4 - int(lbits)
	row := 0
	switch vbits {
	case 3:
		h.Version, h.rateIndex = 1, si
		row = h.Layer - 1
	case 2:
		h.Version, h.rateIndex = 2, 3+si
	default:
		h.Version, h.rateIndex = 25, 6+si
	}
	h.SampleRate = sampleRates[h.rateIndex/3][si]
	if h.Version != 1 {
		row = 4
		if h.Layer == 1 {
			row = 3
		}
	}
	h.Bitrate = bitrates[row][bi-1] * 1000
	h.CRC = b[1]&1 == 0
	h.Mode, h.ModeExt = int(b[3]>>6), int(b[3]>>4)&3
	h.Channels = 2
	if h.Mode == ModeMono {
		h.Channels = 1
	}
	pad := int(b[2]>>1) & 1
	switch {
	case h.Layer == 1:
		h.Samples = 384
		h.Length = (12*h.Bitrate/h.SampleRate + pad) * 4
	case h.Layer == 3 && h.Version != 1:
		h.Samples = 576
		h.Length = 72*h.Bitrate/h.SampleRate + pad
	default:
		h.Samples = 1152
		h.Length = 144*h.Bitrate/h.SampleRate + pad
	}
	return h, true
}

// SideInfoLen is the size of a layer III frame's side information, which
// follows the header (and its CRC, if any); a Xing/Info header sits
// right after it.
func (h Header) SideInfoLen() int {
	switch {
	case h.Version == 1 && h.Channels == 2:
		return 32
	case h.Version == 1, h.Channels == 2:
		return 17
	}
	return 9
}

// String describes the stream the header belongs to.
func (h Header) String() string {
	v := fmt.Sprintf("MPEG-%d", h.Version)
	if h.Version == 25 {
		v = "MPEG-2.5"
	}
	return fmt.Sprintf("%s layer %d, %d Hz, %d channels", v, h.Layer, h.SampleRate, h.Channels)
}

// sameStream reports whether a frame with header n can follow one with
// header h in one stream.
func (h Header) sameStream(n Header) bool {
	return n.Version == h.Version && n.Layer == h.Layer && n.SampleRate == h.SampleRate
}

// SearchLimit is how far past the tags Sync looks for the first frame.
const SearchLimit = 64 << 10

// Sync discards bytes until br is at a frame header followed by another
// valid header of the same stream (or the end), searching at most limit
// bytes, and returns how many it discarded. br must buffer at least a
// frame and 4 bytes (MaxFrameLen + 4).
func Sync(br *bufio.Reader, limit int) (int, error) {
	for skipped := 0; skipped < limit; skipped++ {
		b, err := br.Peek(4)
		if err != nil {
			break
		}
		if h, ok := ParseHeader(b); ok && NextHeaderOK(br, h) {
			return skipped, nil
		}
		br.Discard(1)
	}
	return 0, fmt.Errorf("not an MP3 file: no MPEG audio frame in the first %d bytes after the tags", limit)
}

// MaxFrameLen is the longest frame ParseHeader accepts: MPEG-1 layer I
// at 448 kbit/s and 32 kHz, padded.
const MaxFrameLen = (12*448000/32000 + 1) * 4

// NextHeaderOK reports whether the frame after h (which br is at) starts
// with a header of the same stream, or the data ends there.
func NextHeaderOK(br *bufio.Reader, h Header) bool {
	b, err := br.Peek(h.Length + 4)
	if err != nil {
		return len(b) <= h.Length+3 && len(b) >= h.Length // frame ends at or near EOF
	}
	n, ok := ParseHeader(b[h.Length:])
	return ok && h.sameStream(n)
}
