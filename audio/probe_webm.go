package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"
)

// Matroska/WebM element IDs probing reads (marker bits included).
const (
	ebmlSegment     = 0x18538067
	ebmlInfo        = 0x1549A966
	ebmlTracks      = 0x1654AE6B
	ebmlTrackEntry  = 0xAE
	ebmlAudio       = 0xE1
	ebmlCluster     = 0x1F43B675
	ebmlBlockGroup  = 0xA0
	ebmlTimecode    = 0xE7
	ebmlSimpleBlock = 0xA3
	ebmlBlock       = 0xA1
	ebmlScale       = 0x2AD7B1
	ebmlDuration    = 0x4489
	ebmlTrackType   = 0x83
	ebmlCodecID     = 0x86
	ebmlRate        = 0xB5
	ebmlChannels    = 0x9F
	ebmlBitDepth    = 0x6264
)

// ebmlContainers are entered rather than skipped: their children are read
// in the same flat loop, which also copes with unknown-size clusters.
var ebmlContainers = map[uint32]bool{ebmlSegment: true, ebmlInfo: true, ebmlTracks: true,
	ebmlTrackEntry: true, ebmlAudio: true, ebmlCluster: true, ebmlBlockGroup: true}

var webmCodecs = map[string]string{"A_OPUS": "opus", "A_VORBIS": "vorbis", "A_AAC": "aac", "A_FLAC": "flac",
	"A_MPEG/L3": "mp3", "A_PCM/INT/LIT": "pcm", "A_PCM/FLOAT/IEEE": "float"}

// ebmlReader reads EBML elements forward, seeking over large bodies.
type ebmlReader struct {
	rs  io.ReadSeeker
	br  *bufio.Reader
	pos int64
}

func (e *ebmlReader) vint(keepMarker bool) (uint64, int, error) {
	first, err := e.br.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	n := bits.LeadingZeros8(first) + 1
	if n > 8 {
		return 0, 0, fmt.Errorf("not a WebM file: bad variable-length integer at offset %d", e.pos)
	}
	v := uint64(first)
	if !keepMarker {
		v &= 0xFF >> n
	}
	for i := 1; i < n; i++ {
		b, err := e.br.ReadByte()
		if err != nil {
			return 0, 0, io.ErrUnexpectedEOF
		}
		v = v<<8 | uint64(b)
	}
	e.pos += int64(n)
	return v, n, nil
}

// element reads an element header; size is -1 when unknown.
func (e *ebmlReader) element() (id uint32, size int64, err error) {
	raw, n, err := e.vint(true)
	if err != nil {
		return 0, 0, err
	}
	if n > 4 {
		return 0, 0, fmt.Errorf("not a WebM file: element ID of %d bytes at offset %d", n, e.pos-int64(n))
	}
	v, n, err := e.vint(false)
	if err != nil {
		return 0, 0, err
	}
	size = int64(v)
	if v == 1<<(7*uint(n))-1 || v > math.MaxInt64/2 {
		size = -1
	}
	return uint32(raw), size, nil
}

func (e *ebmlReader) read(n int64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(e.br, b); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	e.pos += n
	return b, nil
}

func (e *ebmlReader) skip(n int64) error {
	if n <= int64(e.br.Buffered()) {
		e.br.Discard(int(n))
		e.pos += n
		return nil
	}
	e.pos += n
	if _, err := e.rs.Seek(e.pos, io.SeekStart); err != nil {
		return err
	}
	e.br.Reset(e.rs)
	return nil
}

// webmTrack is what probing reads from a TrackEntry.
type webmTrack struct {
	typ      uint64
	codec    string
	rate     float64
	channels uint64
	bits     uint64
}

// webmProbe accumulates what the element loop learns.
type webmProbe struct {
	scale      uint64  // nanoseconds per timecode tick
	duration   float64 // in ticks; 0 when absent
	tracks     []webmTrack
	cluster    int64 // current cluster timecode
	last, prev int64 // the two latest block timecodes seen
	blocks     int
}

// probeWebM reads the segment information and the first audio track, and
// when the header gives no duration (live recordings), the block times.
func probeWebM(rs io.ReadSeeker, size int64) (Info, error) {
	info := Info{Container: ContainerWebM}
	e := &ebmlReader{rs: rs, br: bufio.NewReaderSize(rs, 64<<10)}
	id, n, err := e.element()
	if err != nil || id != 0x1A45DFA3 || n < 0 {
		return info, fmt.Errorf("not a WebM file: no EBML header")
	}
	if err := e.skip(n); err != nil {
		return info, err
	}
	p := &webmProbe{scale: 1000000}
	if err := p.walk(e); err != nil {
		return info, err
	}
	var audio *webmTrack
	for i := range p.tracks {
		if p.tracks[i].typ == 2 {
			audio = &p.tracks[i]
			break
		}
	}
	if audio == nil {
		return info, fmt.Errorf("not an audio file: WebM without an audio track")
	}
	info.Codec = webmCodecs[audio.codec]
	if info.Codec == "" {
		info.Codec = audio.codec
	}
	info.SampleRate, info.Channels, info.BitsPerSample = int(audio.rate), int(audio.channels), int(audio.bits)
	ticks := p.duration
	if ticks == 0 && p.blocks > 0 {
		ticks = float64(p.last + (p.last - p.prev)) // the last block lasts as long as the one before
	}
	if ns := ticks * float64(p.scale); ns > 0 && ns < math.MaxInt64 {
		info.Duration = time.Duration(ns)
	}
	if secs := info.Duration.Seconds(); secs > 0 {
		info.Bitrate = int(float64(size) * 8 / secs)
	}
	return info, nil
}

// walk reads elements to the end, or to the first cluster once the
// duration and tracks are known.
func (p *webmProbe) walk(e *ebmlReader) error {
	for {
		id, size, err := e.element()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // the end, or a truncated last element
		}
		if err != nil {
			return err
		}
		if id == ebmlCluster && p.duration > 0 && len(p.tracks) > 0 {
			return nil
		}
		if id == ebmlTrackEntry {
			p.tracks = append(p.tracks, webmTrack{channels: 1})
		}
		if ebmlContainers[id] {
			continue
		}
		if size < 0 {
			return fmt.Errorf("not a WebM file: element 0x%X of unknown size at offset %d", id, e.pos)
		}
		if err := p.leaf(e, id, size); err != nil {
			return err
		}
	}
}

func (p *webmProbe) leaf(e *ebmlReader, id uint32, size int64) error {
	want := int64(0)
	switch id {
	case ebmlScale, ebmlDuration, ebmlTrackType, ebmlCodecID, ebmlRate, ebmlChannels, ebmlBitDepth, ebmlTimecode:
		want = min(size, 64)
	case ebmlSimpleBlock, ebmlBlock:
		want = min(size, 4)
	}
	if want == 0 {
		return e.skip(size)
	}
	b, err := e.read(want)
	if err != nil {
		return nil // truncated: stop quietly at the end
	}
	if err := e.skip(size - want); err != nil {
		return err
	}
	var track *webmTrack
	if len(p.tracks) > 0 {
		track = &p.tracks[len(p.tracks)-1]
	}
	switch {
	case id == ebmlScale:
		p.scale = ebmlUint(b)
	case id == ebmlDuration:
		p.duration = ebmlFloat(b)
	case id == ebmlTimecode:
		p.cluster = int64(ebmlUint(b))
	case id == ebmlSimpleBlock || id == ebmlBlock:
		p.block(b)
	case track == nil:
	case id == ebmlTrackType:
		track.typ = ebmlUint(b)
	case id == ebmlCodecID:
		track.codec = printable(b)
	case id == ebmlRate:
		track.rate = ebmlFloat(b)
	case id == ebmlChannels:
		track.channels = ebmlUint(b)
	case id == ebmlBitDepth:
		track.bits = ebmlUint(b)
	}
	return nil
}

// block records the time of a block: its cluster's timecode plus the
// signed 16-bit offset after the track number.
func (p *webmProbe) block(b []byte) {
	if len(b) == 0 {
		return
	}
	n := bits.LeadingZeros8(b[0]) + 1
	if n+2 > len(b) {
		return
	}
	t := p.cluster + int64(int16(binary.BigEndian.Uint16(b[n:n+2])))
	if p.blocks == 0 || t >= p.last {
		p.prev, p.last = p.last, t
		if p.blocks == 0 {
			p.prev = t
		}
	}
	p.blocks++
}

func ebmlUint(b []byte) uint64 {
	var v uint64
	for _, c := range b[:min(len(b), 8)] {
		v = v<<8 | uint64(c)
	}
	return v
}

func ebmlFloat(b []byte) float64 {
	switch len(b) {
	case 4:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case 8:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	}
	return 0
}
