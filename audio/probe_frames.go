package audio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// adtsRates are the sampling frequencies by ADTS sampling_frequency_index.
var adtsRates = [13]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

// adtsHeader parses the ADTS header at the start of b: rate, channels,
// frame length (header included) and samples in the frame.
func adtsHeader(b []byte) (rate, channels, length, samples int, ok bool) {
	if !isADTS(b) {
		return 0, 0, 0, 0, false
	}
	rate = adtsRates[(b[2]>>2)&0x0F]
	channels = int(b[2]&1)<<2 | int(b[3]>>6)
	if channels == 7 {
		channels = 8
	}
	length = int(b[3]&3)<<11 | int(b[4])<<3 | int(b[5]>>5)
	samples = 1024 * (int(b[6]&3) + 1)
	if length < 7 {
		return 0, 0, 0, 0, false
	}
	return rate, channels, length, samples, true
}

// probeADTS counts the frames of an AAC ADTS stream at the reader.
func probeADTS(br *bufio.Reader, size int64) (Info, error) {
	info := Info{Container: ContainerAAC, Codec: "aac"}
	var frames, samples, bytesTotal int64
	for {
		b, err := br.Peek(7)
		if len(b) < 7 {
			if err != nil && !errors.Is(err, io.EOF) {
				return info, fmt.Errorf("scan AAC frames: %w", err)
			}
			break
		}
		rate, ch, length, n, ok := adtsHeader(b)
		if !ok || info.SampleRate != 0 && rate != info.SampleRate {
			if frames == 0 {
				return info, fmt.Errorf("not an AAC file: no ADTS frame header at the start")
			}
			break // trailing tag or junk
		}
		if frames == 0 {
			info.SampleRate, info.Channels = rate, ch
		}
		if got, _ := br.Discard(length); got < length {
			break // truncated last frame
		}
		frames++
		samples += int64(n)
		bytesTotal += int64(length)
	}
	info.Duration = FramesDuration(samples, info.SampleRate)
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(bytesTotal) * 8 / secs)
	}
	return info, nil
}

// AMR storage format (RFC 4867 section 5): a magic line, then frames of
// 20 ms, each a ToC byte whose frame type gives the size.
var (
	amrNBMagic = []byte("#!AMR\n")
	amrWBMagic = []byte("#!AMR-WB\n")
	// Frame sizes including the ToC byte, by frame type.
	amrNBSizes = [16]int{13, 14, 16, 18, 20, 21, 27, 32, 6, 1, 1, 1, 1, 1, 1, 1}
	amrWBSizes = [16]int{18, 24, 33, 37, 41, 47, 51, 59, 61, 6, 1, 1, 1, 1, 1, 1}
)

// probeAMR counts the frames of a single-channel AMR-NB or AMR-WB file.
func probeAMR(rs io.Reader) (Info, error) {
	info := Info{Container: ContainerAMR, Channels: 1}
	br := bufio.NewReaderSize(rs, 64<<10)
	head, _ := br.Peek(len(amrWBMagic))
	sizes := amrNBSizes
	switch {
	case bytes.HasPrefix(head, amrWBMagic):
		info.Codec, info.SampleRate, sizes = "amr_wb", 16000, amrWBSizes
		br.Discard(len(amrWBMagic))
	case bytes.HasPrefix(head, amrNBMagic):
		info.Codec, info.SampleRate = "amr_nb", 8000
		br.Discard(len(amrNBMagic))
	default:
		return info, fmt.Errorf("not an AMR file: no single-channel #!AMR or #!AMR-WB magic line")
	}
	var frames, bytesTotal int64
	for {
		toc, err := br.ReadByte()
		if err != nil {
			break
		}
		n := sizes[(toc>>3)&0x0F]
		if got, _ := br.Discard(n - 1); got < n-1 {
			break // truncated last frame
		}
		frames++
		bytesTotal += int64(n)
	}
	info.Duration = FramesDuration(frames*160, 8000) // 20 ms per frame
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(bytesTotal) * 8 / secs)
	}
	return info, nil
}
