package audio

import (
	"encoding/binary"
	"fmt"
	"io"
)

// probeFLAC reads the STREAMINFO block that follows the "fLaC" marker at
// the current position of r.
func probeFLAC(r io.Reader) (Info, error) {
	info := Info{Container: ContainerFLAC, Codec: "flac"}
	var b [4 + 4 + 34]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return info, fmt.Errorf("not a FLAC file: header is truncated")
	}
	if string(b[0:4]) != "fLaC" {
		return info, fmt.Errorf("not a FLAC file: no fLaC marker")
	}
	if b[4]&0x7F != 0 {
		return info, fmt.Errorf("not a FLAC file: first metadata block is type %d, not STREAMINFO", b[4]&0x7F)
	}
	if n := int(b[5])<<16 | int(b[6])<<8 | int(b[7]); n < 34 {
		return info, fmt.Errorf("not a FLAC file: STREAMINFO block is %d bytes, need 34", n)
	}
	si := b[8:]
	// Bits 80..: 20 bits sample rate, 3 bits channels-1, 5 bits bits-1, 36 bits total samples.
	v := binary.BigEndian.Uint64(si[10:18])
	rate := int(v >> 44)
	info.Channels = int(v>>41&7) + 1
	info.BitsPerSample = int(v>>36&31) + 1
	total := int64(v & (1<<36 - 1))
	if rate == 0 || rate > MaxSampleRate {
		return info, fmt.Errorf("not a FLAC file: STREAMINFO sample rate %d Hz", rate)
	}
	info.SampleRate = rate
	// A total of 0 means unknown; the duration then stays 0.
	info.Duration = FramesDuration(total, rate)
	return info, nil
}
