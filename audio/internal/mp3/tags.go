package mp3

import (
	"bufio"
	"encoding/binary"
	"io"
)

// What precedes and leads the audio frames of a file: ID3v2 tags before
// the first frame, and a first frame that holds no audio but a Xing/Info
// or VBRI header (with, after Xing/Info, the LAME tag of gapless
// playback). Probing, validating, decoding, measuring and joining read
// them alike.

// SkipID3 returns the offset after any ID3v2 tags at the start of rs.
func SkipID3(rs io.ReadSeeker) (int64, error) {
	var off int64
	for {
		var h [10]byte
		if _, err := rs.Seek(off, io.SeekStart); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(rs, h[:]); err != nil || string(h[:3]) != "ID3" {
			return off, nil
		}
		size := int64(h[6]&0x7F)<<21 | int64(h[7]&0x7F)<<14 | int64(h[8]&0x7F)<<7 | int64(h[9]&0x7F)
		off += 10 + size
		if h[5]&0x10 != 0 {
			off += 10
		}
	}
}

// ReadXing reads a Xing or Info header in the first frame.
func ReadXing(frame []byte, h Header) (frames, size int64, ok bool) {
	at := 4 + h.SideInfoLen()
	if len(frame) < at+8 || (string(frame[at:at+4]) != "Xing" && string(frame[at:at+4]) != "Info") {
		return 0, 0, false
	}
	flags := binary.BigEndian.Uint32(frame[at+4:])
	p := at + 8
	if flags&1 != 0 && len(frame) >= p+4 {
		frames = int64(binary.BigEndian.Uint32(frame[p:]))
		p += 4
	}
	if flags&2 != 0 && len(frame) >= p+4 {
		size = int64(binary.BigEndian.Uint32(frame[p:]))
	}
	return frames, size, true
}

// ReadVBRI reads a Fraunhofer VBRI header, 32 bytes after the frame header.
func ReadVBRI(frame []byte) (frames, size int64, ok bool) {
	if len(frame) < 36+18 || string(frame[36:40]) != "VBRI" {
		return 0, 0, false
	}
	size = int64(binary.BigEndian.Uint32(frame[36+10:]))
	frames = int64(binary.BigEndian.Uint32(frame[36+14:]))
	return frames, size, true
}

// DecoderDelay is the delay of an MP3 synthesis filterbank, in samples,
// which ffmpeg adds to the encoder delay it skips.
const DecoderDelay = 529

// Gapless is what a LAME (or ffmpeg "Lavf"/"Lavc") tag in the Info frame
// says about the stream.
type Gapless struct {
	Frames     int64 // audio frames after the Info frame, 0 if unknown
	Start, End int64 // encoder delay and padding, in samples
}

// ReadGapless finds the first MPEG audio frame after any ID3v2 tags and
// reads the LAME tag in it, if any (nil without one).
func ReadGapless(rs io.ReadSeeker) (Header, *Gapless, error) {
	start, err := SkipID3(rs)
	if err != nil {
		return Header{}, nil, err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return Header{}, nil, err
	}
	br := bufio.NewReaderSize(rs, 4<<10)
	if _, err := Sync(br, SearchLimit); err != nil {
		return Header{}, nil, err
	}
	b, _ := br.Peek(4)
	h, _ := ParseHeader(b)
	frame, _ := br.Peek(h.Length)
	return h, readLAMETag(frame, h), nil
}

// readLAMETag reads the encoder delay and padding from the LAME tag that
// follows the Xing/Info header of the first frame, accepting the encoder
// names ffmpeg accepts (mp3dec.c: "LAME", "Lavf", "Lavc").
func readLAMETag(frame []byte, h Header) *Gapless {
	at := 4 + h.SideInfoLen()
	if len(frame) < at+8 || (string(frame[at:at+4]) != "Xing" && string(frame[at:at+4]) != "Info") {
		return nil
	}
	var g Gapless
	flags := binary.BigEndian.Uint32(frame[at+4:])
	p := at + 8
	if flags&1 != 0 && len(frame) >= p+4 {
		g.Frames = int64(binary.BigEndian.Uint32(frame[p:]))
	}
	for bit, size := range []int{4, 4, 100, 4} { // frames, bytes, TOC, quality
		if flags&(1<<bit) != 0 {
			p += size
		}
	}
	// Encoder version (9), revision (1), low-pass (1), ReplayGain (8),
	// flags (1), bitrate (1), then 12 bits of delay and 12 of padding.
	if len(frame) < p+24 {
		return nil
	}
	switch string(frame[p : p+4]) {
	case "LAME", "Lavf", "Lavc":
	default:
		return nil
	}
	v := uint32(frame[p+21])<<16 | uint32(frame[p+22])<<8 | uint32(frame[p+23])
	g.Start, g.End = int64(v>>12), int64(v&0xFFF)
	return &g
}
