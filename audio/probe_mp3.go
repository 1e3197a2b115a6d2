package audio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// Package mp3 owns the rules of MPEG audio framing, which probing,
// validating, joining and decoding share.

// mpegCodec names the codec of a stream for Info.Codec: mp1, mp2, mp3.
func mpegCodec(h mp3.Header) string { return fmt.Sprintf("mp%d", h.Layer) }

func probeMPEG(rs io.ReadSeeker, size int64) (Info, error) {
	start, err := mp3.SkipID3(rs)
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
	frames, bytesTotal, tagged := mp3.ReadXing(frame, h)
	if !tagged {
		frames, bytesTotal, tagged = mp3.ReadVBRI(frame)
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
