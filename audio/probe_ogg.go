package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// oggPage is the part of an Ogg page header probing needs.
type oggPage struct {
	granule int64
	serial  uint32
	eos     bool  // last page of its logical stream
	end     int64 // file offset just past the page (set by lastPage)
	size    int   // header plus body
	body    []byte
}

const (
	oggHeaderLen = 27
	oggNoGranule = -1 // granule position of a page on which no packet ends
)

// parseOggPage parses the page at the start of b; body is set only when
// the whole page lies within b.
func parseOggPage(b []byte) (oggPage, bool) {
	var p oggPage
	if len(b) < oggHeaderLen || string(b[0:4]) != "OggS" || b[4] != 0 {
		return p, false
	}
	nseg := int(b[26])
	if len(b) < oggHeaderLen+nseg {
		return p, false
	}
	bodyLen := 0
	for _, s := range b[oggHeaderLen : oggHeaderLen+nseg] {
		bodyLen += int(s)
	}
	p.eos = b[5]&0x04 != 0
	p.granule = int64(binary.LittleEndian.Uint64(b[6:14]))
	p.serial = binary.LittleEndian.Uint32(b[14:18])
	p.size = oggHeaderLen + nseg + bodyLen
	if len(b) >= p.size {
		p.body = b[oggHeaderLen+nseg : p.size]
	}
	return p, true
}

// readOggPage reads the page at the current position of r.
func readOggPage(r io.Reader) (oggPage, error) {
	head := make([]byte, oggHeaderLen, oggHeaderLen+255)
	if _, err := io.ReadFull(r, head); err != nil {
		return oggPage{}, fmt.Errorf("not an Ogg file: first page is truncated")
	}
	head = head[:oggHeaderLen+int(head[26])]
	if _, err := io.ReadFull(r, head[oggHeaderLen:]); err != nil {
		return oggPage{}, fmt.Errorf("not an Ogg file: first page is truncated")
	}
	p, ok := parseOggPage(head)
	if !ok {
		return oggPage{}, fmt.Errorf("not an Ogg file: first page is malformed")
	}
	body := make([]byte, p.size-len(head))
	if _, err := io.ReadFull(r, body); err != nil {
		return oggPage{}, fmt.Errorf("not an Ogg file: first page is truncated")
	}
	p.body = body
	return p, nil
}

// oggStream is what the first packet of a logical stream says.
type oggStream struct {
	codec    string
	rate     int // granule positions count samples at this rate
	outRate  int // the rate decoders produce (Opus: 48000)
	channels int
	preSkip  int64
}

func parseOggHead(pkt []byte) (oggStream, error) {
	switch {
	case bytes.HasPrefix(pkt, []byte("OpusHead")) && len(pkt) >= 19:
		s := oggStream{codec: "opus", rate: 48000, outRate: 48000, channels: int(pkt[9])}
		s.preSkip = int64(binary.LittleEndian.Uint16(pkt[10:12]))
		return s, nil
	case bytes.HasPrefix(pkt, []byte("\x01vorbis")) && len(pkt) >= 30:
		rate := int(binary.LittleEndian.Uint32(pkt[12:16]))
		if rate <= 0 || rate > MaxSampleRate {
			return oggStream{}, fmt.Errorf("not an Ogg file: Vorbis sample rate %d Hz", rate)
		}
		return oggStream{codec: "vorbis", rate: rate, outRate: rate, channels: int(pkt[11])}, nil
	case bytes.HasPrefix(pkt, []byte("\x7fFLAC")):
		return oggStream{codec: "flac"}, fmt.Errorf("%w: FLAC in Ogg", ErrUnsupported)
	case bytes.HasPrefix(pkt, []byte("Speex   ")):
		return oggStream{codec: "speex"}, fmt.Errorf("%w: Speex in Ogg", ErrUnsupported)
	}
	return oggStream{}, fmt.Errorf("not an Ogg file: first packet is neither OpusHead nor Vorbis identification (starts with %q)", printable(pkt[:min(len(pkt), 8)]))
}

// oggTail is the first window searched backwards for the last page; it
// doubles up to oggTailMax (a page is at most 65307 bytes).
const (
	oggTail    = 64 << 10
	oggTailMax = 1 << 20
)

func probeOgg(rs io.ReadSeeker, size int64) (Info, error) {
	info := Info{Container: ContainerOgg}
	first, err := readOggPage(rs)
	if err != nil {
		return info, err
	}
	st, err := parseOggHead(first.body)
	info.Codec, info.SampleRate, info.Channels = st.codec, st.outRate, st.channels
	if err != nil {
		return info, err
	}
	last, err := lastPage(rs, size, first.serial)
	granule := last.granule
	if err != nil {
		return info, err
	}
	samples := granule - st.preSkip
	info.Duration = FramesDuration(samples, st.rate)
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(size) * 8 / secs)
	}
	return info, nil
}

// lastPage finds the last complete page of the stream serial that carries
// a granule position, reading backwards from the end of the file.
func lastPage(rs io.ReadSeeker, size int64, serial uint32) (oggPage, error) {
	for window := int64(oggTail); ; window *= 2 {
		start := max(size-window, 0)
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return oggPage{}, fmt.Errorf("read last Ogg page: %w", err)
		}
		buf := make([]byte, size-start)
		if _, err := io.ReadFull(rs, buf); err != nil {
			return oggPage{}, fmt.Errorf("read last Ogg page: %w", err)
		}
		for i := bytes.LastIndex(buf, []byte("OggS")); i >= 0; i = bytes.LastIndex(buf[:i], []byte("OggS")) {
			p, ok := parseOggPage(buf[i:])
			if ok && p.body != nil && p.serial == serial && p.granule != oggNoGranule {
				p.body = nil
				p.end = start + int64(i) + int64(p.size)
				return p, nil
			}
		}
		if start == 0 || window >= oggTailMax {
			return oggPage{}, fmt.Errorf("not an Ogg file: no complete page with a granule position in the last %d bytes", size-start)
		}
	}
}
