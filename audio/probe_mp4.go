package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// mp4Box is one ISO base media box: its type and where its body lies.
type mp4Box struct {
	typ        string
	start, end int64 // body
}

// mp4Walk calls fn for each box between start and end, in order.
func mp4Walk(rs io.ReadSeeker, start, end int64, fn func(mp4Box) error) error {
	for pos := start; pos+8 <= end; {
		var h [16]byte
		if _, err := rs.Seek(pos, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(rs, h[:8]); err != nil {
			return fmt.Errorf("not an MP4 file: box header at offset %d is truncated", pos)
		}
		size := int64(binary.BigEndian.Uint32(h[:4]))
		b := mp4Box{typ: printable(h[4:8]), start: pos + 8}
		switch size {
		case 0: // to the end of the enclosing box
			size = end - pos
		case 1:
			if _, err := io.ReadFull(rs, h[8:16]); err != nil {
				return fmt.Errorf("not an MP4 file: box header at offset %d is truncated", pos)
			}
			size = int64(binary.BigEndian.Uint64(h[8:16]))
			b.start += 8
		}
		if size < b.start-pos || size > end-pos {
			return fmt.Errorf("not an MP4 file: %q box at offset %d has size %d, beyond its parent", b.typ, pos, size)
		}
		b.end = pos + size
		if err := fn(b); err != nil {
			return err
		}
		pos = b.end
	}
	return nil
}

// mp4Body reads up to limit bytes of a box body.
func mp4Body(rs io.ReadSeeker, b mp4Box, limit int64) ([]byte, error) {
	n := min(b.end-b.start, limit)
	if _, err := rs.Seek(b.start, io.SeekStart); err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(rs, buf); err != nil {
		return nil, fmt.Errorf("not an MP4 file: %q box is truncated", b.typ)
	}
	return buf, nil
}

// mp4Track is what probing reads from one trak box.
type mp4Track struct {
	handler   string
	timescale uint32
	duration  uint64
	codec     string
	channels  int
	rate      int
	bits      int
}

var mp4Codecs = map[string]string{"mp4a": "aac", "alac": "alac", "Opus": "opus", "fLaC": "flac",
	"samr": "amr_nb", "sawb": "amr_wb", "ac-3": "ac3", ".mp3": "mp3", "ulaw": "mulaw", "alaw": "alaw"}

// mp4Probe accumulates what the box walk learns.
type mp4Probe struct {
	rs         io.ReadSeeker
	movieScale uint32
	movieDur   uint64
	sound      *mp4Track
	depth      int
}

// probeM4A reads the movie header and the first sound track of an ISO
// base media file (m4a, mp4), seeking over media data.
func probeM4A(rs io.ReadSeeker, size int64) (Info, error) {
	info := Info{Container: ContainerM4A}
	p := &mp4Probe{rs: rs}
	if err := mp4Walk(rs, 0, size, func(b mp4Box) error { return p.box(b, nil) }); err != nil {
		return info, err
	}
	s := p.sound
	if s == nil {
		return info, fmt.Errorf("not an audio file: MP4 without a sound track")
	}
	info.Codec, info.Channels, info.SampleRate = s.codec, s.channels, s.rate
	if info.SampleRate == 0 { // rates over 65535 do not fit the sample entry
		info.SampleRate = int(s.timescale)
	}
	// The movie duration follows the edit list, which trims the encoder
	// priming samples the media duration still counts.
	switch {
	case p.movieScale > 0 && p.movieDur > 0:
		info.Duration = mp4Duration(p.movieDur, p.movieScale)
	case s.timescale > 0:
		info.Duration = mp4Duration(s.duration, s.timescale)
	}
	if info.Duration == 0 {
		return info, fmt.Errorf("%w: MP4 without a duration (fragmented?)", ErrUnsupported)
	}
	info.Bitrate = int(float64(size) * 8 / info.Duration.Seconds())
	return info, nil
}

// box handles one box; t is the track being read, if any.
func (p *mp4Probe) box(b mp4Box, t *mp4Track) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 8 {
		return fmt.Errorf("not an MP4 file: boxes nested too deep at offset %d", b.start)
	}
	switch b.typ {
	case "moov", "mdia", "minf", "stbl":
		return mp4Walk(p.rs, b.start, b.end, func(c mp4Box) error { return p.box(c, t) })
	case "trak":
		nt := &mp4Track{}
		if err := mp4Walk(p.rs, b.start, b.end, func(c mp4Box) error { return p.box(c, nt) }); err != nil {
			return err
		}
		if nt.handler == "soun" && p.sound == nil {
			p.sound = nt
		}
	case "mvhd", "mdhd":
		body, err := mp4Body(p.rs, b, 32)
		if err != nil {
			return err
		}
		scale, dur, ok := mp4Times(body)
		if !ok {
			return fmt.Errorf("not an MP4 file: %q box is too short", b.typ)
		}
		if b.typ == "mvhd" {
			p.movieScale, p.movieDur = scale, dur
		} else if t != nil {
			t.timescale, t.duration = scale, dur
		}
	case "hdlr":
		if body, err := mp4Body(p.rs, b, 12); err == nil && len(body) == 12 && t != nil {
			t.handler = string(body[8:12])
		}
	case "stsd":
		if body, err := mp4Body(p.rs, b, 512); err == nil && len(body) >= 44 && t != nil {
			t.sampleEntry(body[8:])
		}
	}
	return nil
}

// mp4Times reads timescale and duration from an mvhd or mdhd body.
func mp4Times(b []byte) (scale uint32, dur uint64, ok bool) {
	if len(b) < 20 {
		return 0, 0, false
	}
	if b[0] == 1 {
		if len(b) < 32 {
			return 0, 0, false
		}
		return binary.BigEndian.Uint32(b[20:24]), binary.BigEndian.Uint64(b[24:32]), true
	}
	d := uint64(binary.BigEndian.Uint32(b[16:20]))
	if d == 0xFFFFFFFF {
		d = 0
	}
	return binary.BigEndian.Uint32(b[12:16]), d, true
}

func mp4Duration(d uint64, scale uint32) time.Duration {
	if d > 1<<62 {
		return 0
	}
	return FramesDuration(int64(d), int(scale))
}

// sampleEntry reads the first sample entry of an stsd box: the codec, and
// channels and rate from the AudioSampleEntry, corrected for AAC by the
// AudioSpecificConfig in its esds box (the entry itself says 2 channels).
func (t *mp4Track) sampleEntry(e []byte) {
	t.codec = mp4Codecs[string(e[4:8])]
	if t.codec == "" {
		t.codec = printable(e[4:8])
	}
	t.channels = int(binary.BigEndian.Uint16(e[24:26]))
	t.bits = int(binary.BigEndian.Uint16(e[26:28]))
	t.rate = int(binary.BigEndian.Uint16(e[32:34]))
	if t.codec != "aac" || len(e) < 36+8 {
		return
	}
	child := e[36:]
	size := int(binary.BigEndian.Uint32(child[0:4]))
	if string(child[4:8]) != "esds" || size > len(child) || size < 12 {
		return
	}
	if rate, ch, ok := aacConfig(child[12:size]); ok {
		t.rate, t.channels = rate, ch
	}
}

// aacConfig finds the AudioSpecificConfig in an ES descriptor and reads
// its sampling frequency index and channel configuration.
func aacConfig(d []byte) (rate, channels int, ok bool) {
	for len(d) >= 2 {
		tag, body, ok := mp4Descriptor(d)
		if !ok {
			return 0, 0, false
		}
		switch tag {
		case 0x03: // ES_Descriptor: ES_ID, flags, optional fields
			if d, ok = esChildren(body); !ok {
				return 0, 0, false
			}
		case 0x04: // DecoderConfigDescriptor: 13 bytes before its children
			if len(body) < 13 {
				return 0, 0, false
			}
			d = body[13:]
		case 0x05: // DecoderSpecificInfo: the AudioSpecificConfig
			if len(body) < 2 || body[0]>>3 == 31 { // escaped object types: not read
				return 0, 0, false
			}
			fi := int(body[0]&0x07)<<1 | int(body[1]>>7)
			ch := int(body[1]>>3) & 0x0F
			if fi >= len(adtsRates) || ch == 0 || ch > 7 {
				return 0, 0, false
			}
			if ch == 7 {
				ch = 8
			}
			return adtsRates[fi], ch, true
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// mp4Descriptor splits an MPEG-4 descriptor into its tag and the rest
// (its body and whatever follows; bodies nest, so the rest is kept).
func mp4Descriptor(d []byte) (tag byte, rest []byte, ok bool) {
	i := 1
	for ; i < len(d) && i <= 4; i++ {
		if d[i]&0x80 == 0 {
			break
		}
	}
	i++
	if i > len(d) {
		return 0, nil, false
	}
	return d[0], d[i:], true
}

// esChildren skips the fixed and optional fields of an ES_Descriptor.
func esChildren(body []byte) ([]byte, bool) {
	if len(body) < 3 {
		return nil, false
	}
	flags, skip := body[2], 3
	if flags&0x80 != 0 {
		skip += 2
	}
	if flags&0x40 != 0 && len(body) > skip {
		skip += 1 + int(body[skip])
	}
	if flags&0x20 != 0 {
		skip += 2
	}
	if skip > len(body) {
		return nil, false
	}
	return body[skip:], true
}
