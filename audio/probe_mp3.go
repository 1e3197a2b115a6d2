package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// Package mp3 owns the rules of MPEG audio framing, which probing,
// validating, joining and decoding share.

// mpegCodec names the codec of a stream for Info.Codec: mp1, mp2, mp3.
func mpegCodec(h mp3.Header) string { return fmt.Sprintf("mp%d", h.Layer) }

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
	skipped, err := mp3.Sync(br, mp3.SearchLimit)
	if err != nil {
		return Info{Container: ContainerMP3}, err
	}
	first, _ := br.Peek(4)
	h, _ := mp3.ParseHeader(first)
	info := Info{Container: ContainerMP3, Codec: mpegCodec(h), SampleRate: h.SampleRate, Channels: h.Channels, Bitrate: h.Bitrate}
	frame, _ := br.Peek(h.Length)
	frames, bytesTotal, tagged := readXing(frame, h)
	if !tagged {
		frames, bytesTotal, tagged = readVBRI(frame)
	}
	if frames == 0 {
		if tagged { // an info frame without a frame count: skip it and count
			br.Discard(h.Length)
		}
		frames, bytesTotal, _, err = scanMPEG(br)
		if err != nil {
			return info, err
		}
	}
	if bytesTotal <= 0 {
		bytesTotal = size - start - int64(skipped)
	}
	info.Duration = FramesDuration(frames*int64(h.Samples), h.SampleRate)
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(bytesTotal) * 8 / secs)
	}
	return info, nil
}

// readXing reads a Xing or Info header in the first frame.
func readXing(frame []byte, h mp3.Header) (frames, size int64, ok bool) {
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

// readVBRI reads a Fraunhofer VBRI header, 32 bytes after the frame header.
func readVBRI(frame []byte) (frames, size int64, ok bool) {
	if len(frame) < 36+18 || string(frame[36:40]) != "VBRI" {
		return 0, 0, false
	}
	size = int64(binary.BigEndian.Uint32(frame[36+10:]))
	frames = int64(binary.BigEndian.Uint32(frame[36+14:]))
	return frames, size, true
}

// scanMPEG counts the frames from the current position to the end, by the
// rules of mp3.Frames (resynchronising over junk, stopping at trailing
// tags). junk counts the bytes skipped and a truncated last frame.
func scanMPEG(br *bufio.Reader) (frames, size, junk int64, err error) {
	f := mp3.NewFrames(br)
	for {
		h, _, err := f.Next()
		switch {
		case err == nil:
			frames++
			size += int64(h.Length)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return frames, size, f.Junk, nil
		default:
			return 0, 0, 0, fmt.Errorf("scan MP3 frames: %w", err)
		}
	}
}
