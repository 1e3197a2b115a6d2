package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// mpegHeader is a parsed MPEG audio frame header.
type mpegHeader struct {
	version    int // 1, 2, or 25 for MPEG 2.5
	layer      int // 1, 2, 3
	bitrate    int // bits per second
	sampleRate int
	channels   int
	samples    int // per frame
	length     int // frame length in bytes, header included
}

var (
	mpegRates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
	// kbit/s by [row][index-1]: MPEG1 L1, L2, L3; MPEG2/2.5 L1, L2/L3.
	mpegBitrates = [5][14]int{
		{32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		{32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	}
)

// parseMPEGHeader parses the 4-byte frame header at the start of b.
// Free-format and reserved values are refused.
func parseMPEGHeader(b []byte) (mpegHeader, bool) {
	var h mpegHeader
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return h, false
	}
	vbits, lbits := (b[1]>>3)&3, (b[1]>>1)&3
	bi, si := int(b[2]>>4), int((b[2]>>2)&3)
	if vbits == 1 || lbits == 0 || bi == 0 || bi == 15 || si == 3 || b[3]&3 == 2 {
		return h, false
	}
	h.layer = 4 - int(lbits)
	row := 0
	switch vbits {
	case 3:
		h.version, h.sampleRate = 1, mpegRates[0][si]
		row = h.layer - 1
	case 2:
		h.version, h.sampleRate = 2, mpegRates[1][si]
	default:
		h.version, h.sampleRate = 25, mpegRates[2][si]
	}
	if h.version != 1 {
		row = 4
		if h.layer == 1 {
			row = 3
		}
	}
	h.bitrate = mpegBitrates[row][bi-1] * 1000
	h.channels = 2
	if b[3]>>6 == 3 {
		h.channels = 1
	}
	pad := int(b[2]>>1) & 1
	switch {
	case h.layer == 1:
		h.samples = 384
		h.length = (12*h.bitrate/h.sampleRate + pad) * 4
	case h.layer == 3 && h.version != 1:
		h.samples = 576
		h.length = 72*h.bitrate/h.sampleRate + pad
	default:
		h.samples = 1152
		h.length = 144*h.bitrate/h.sampleRate + pad
	}
	return h, true
}

func (h mpegHeader) codec() string { return fmt.Sprintf("mp%d", h.layer) }

// sideInfoLen is the size of a layer III frame's side information, after
// which a Xing/Info header sits.
func (h mpegHeader) sideInfoLen() int {
	switch {
	case h.version == 1 && h.channels == 2:
		return 32
	case h.version == 1, h.channels == 2:
		return 17
	}
	return 9
}

// mpegSearch is how far past the tags the first frame may start.
const mpegSearch = 64 << 10

// skipID3 returns the offset after any ID3v2 tags at the start of rs.
func skipID3(rs io.ReadSeeker) (int64, error) {
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

func probeMPEG(rs io.ReadSeeker, size int64) (Info, error) {
	start, err := skipID3(rs)
	if err != nil {
		return Info{Container: ContainerMP3}, fmt.Errorf("skip ID3 tag: %w", err)
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return Info{Container: ContainerMP3}, fmt.Errorf("skip ID3 tag: %w", err)
	}
	br := bufio.NewReaderSize(rs, 16<<10)
	if start > 0 {
		head, _ := br.Peek(8)
		switch {
		case bytes.HasPrefix(head, []byte("fLaC")):
			return probeFLAC(br)
		case isADTS(head):
			return probeADTS(br, size-start)
		}
	}
	skipped, err := syncMPEG(br, mpegSearch)
	if err != nil {
		return Info{Container: ContainerMP3}, err
	}
	first, _ := br.Peek(4)
	h, _ := parseMPEGHeader(first)
	info := Info{Container: ContainerMP3, Codec: h.codec(), SampleRate: h.sampleRate, Channels: h.channels, Bitrate: h.bitrate}
	frame, _ := br.Peek(h.length)
	frames, bytesTotal, tagged := readXing(frame, h)
	if !tagged {
		frames, bytesTotal, tagged = readVBRI(frame)
	}
	if frames == 0 {
		if tagged { // an info frame without a frame count: skip it and count
			br.Discard(h.length)
		}
		frames, bytesTotal, _, err = scanMPEG(br, h)
		if err != nil {
			return info, err
		}
	}
	if bytesTotal <= 0 {
		bytesTotal = size - start - int64(skipped)
	}
	info.Duration = FramesDuration(frames*int64(h.samples), h.sampleRate)
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(bytesTotal) * 8 / secs)
	}
	return info, nil
}

// syncMPEG discards bytes until br is at a frame header followed by
// another valid header (or the end), searching at most limit bytes.
func syncMPEG(br *bufio.Reader, limit int) (int, error) {
	for skipped := 0; skipped < limit; skipped++ {
		b, err := br.Peek(4)
		if err != nil {
			break
		}
		if h, ok := parseMPEGHeader(b); ok && nextHeaderOK(br, h) {
			return skipped, nil
		}
		br.Discard(1)
	}
	return 0, fmt.Errorf("not an MP3 file: no MPEG audio frame in the first %d bytes after the tags", limit)
}

// nextHeaderOK reports whether the frame after h (which br is at) starts
// with a compatible header, or the data ends there.
func nextHeaderOK(br *bufio.Reader, h mpegHeader) bool {
	b, err := br.Peek(h.length + 4)
	if err != nil {
		return len(b) <= h.length+3 && len(b) >= h.length // frame ends at or near EOF
	}
	n, ok := parseMPEGHeader(b[h.length:])
	return ok && n.version == h.version && n.layer == h.layer && n.sampleRate == h.sampleRate
}

// readXing reads a Xing or Info header in the first frame.
func readXing(frame []byte, h mpegHeader) (frames, size int64, ok bool) {
	at := 4 + h.sideInfoLen()
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

// readVBRI reads a Fraunhofer VBRI header, 32 bytes after the frame header.
func readVBRI(frame []byte) (frames, size int64, ok bool) {
	if len(frame) < 36+18 || string(frame[36:40]) != "VBRI" {
		return 0, 0, false
	}
	size = int64(binary.BigEndian.Uint32(frame[36+10:]))
	frames = int64(binary.BigEndian.Uint32(frame[36+14:]))
	return frames, size, true
}

// scanMPEG counts the frames from the current position to the end,
// resynchronising over junk and stopping at trailing tags. junk counts the
// bytes skipped and a truncated last frame.
func scanMPEG(br *bufio.Reader, first mpegHeader) (frames, size, junk int64, err error) {
	lost := false
	for {
		b, err := br.Peek(4)
		if len(b) < 4 {
			if err != nil && !errors.Is(err, io.EOF) {
				return 0, 0, 0, fmt.Errorf("scan MP3 frames: %w", err)
			}
			return frames, size, junk + int64(len(b)), nil
		}
		h, ok := parseMPEGHeader(b)
		if ok && lost { // after junk, trust a header only if the next one agrees
			ok = nextHeaderOK(br, h)
		}
		if !ok || h.sampleRate != first.sampleRate || h.layer != first.layer {
			if bytes.HasPrefix(b, []byte("TAG")) || bytes.HasPrefix(b, []byte("APET")) || bytes.HasPrefix(b, []byte("LYRI")) {
				return frames, size, junk, nil
			}
			br.Discard(1)
			junk++
			lost = true
			continue
		}
		lost = false
		n, err := br.Discard(h.length)
		if n < h.length { // truncated last frame
			if err != nil && !errors.Is(err, io.EOF) {
				return 0, 0, 0, fmt.Errorf("scan MP3 frames: %w", err)
			}
			return frames, size, junk + int64(n), nil
		}
		frames++
		size += int64(h.length)
	}
}
