package loudness

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/pion/opus"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/ogg"
)

// Ogg Opus (RFC 7845) is decoded with github.com/pion/opus (v0.1.0), a
// pure-Go decoder of all three Opus modes (SILK, CELT, hybrid) whose
// conformance tests run the RFC 6716 and RFC 8251 test vectors. Pages are
// read one at a time and each packet is decoded and measured as it
// completes, at 48 kHz as every Opus decoder outputs. As ffmpeg does:
//
//   - the header's pre-skip is dropped from the start and its output gain
//     applied;
//   - on the last page (end of stream), decoding stops at the page's
//     granule position, which cuts the encoder's padding;
//   - only the first logical stream is read; pages of others are skipped.
//
// Zero-length packets (lost ones) are skipped, not concealed. Pages are
// read with package ogg and a page whose CRC does not match ends the
// measurement with an error: ffmpeg's demuxer drops such a page, so a
// figure measured over it would not be ffmpeg's. Channel mapping family 0 (mono and stereo) is decoded;
// the multistream families (more than two channels) give a
// *NoDecoderError.

// Bounds that keep a hostile file from growing buffers: a page body is
// at most 255*255 bytes by construction, and a packet continued across
// pages may not pass maxOpusPacket (Opus packets are under 64 KB).
const (
	maxOpusPacket = 256 << 10
	opusRate      = 48000
	opusMaxFrames = opusRate * 120 / 1000 // the longest packet, 120 ms
)

// opusHead is the identification header of an Ogg Opus stream.
type opusHead struct {
	channels int
	preSkip  int64
	gain     float64 // linear
	family   byte
}

func parseOpusHead(pkt []byte) (opusHead, error) {
	if len(pkt) < 19 || !bytes.HasPrefix(pkt, []byte("OpusHead")) {
		return opusHead{}, errors.New("not an Ogg Opus file: no OpusHead packet")
	}
	if pkt[8]>>4 != 0 {
		return opusHead{}, fmt.Errorf("%w: Ogg Opus version %d", audio.ErrUnsupported, pkt[8])
	}
	h := opusHead{
		channels: int(pkt[9]),
		preSkip:  int64(binary.LittleEndian.Uint16(pkt[10:12])),
		gain:     math.Pow(10, float64(int16(binary.LittleEndian.Uint16(pkt[16:18])))/(20*256)),
		family:   pkt[18],
	}
	if h.channels == 0 {
		return opusHead{}, errors.New("not an Ogg Opus file: 0 channels")
	}
	return h, nil
}

// oggReader reads the packets of the first logical stream of an Ogg file.
type oggReader struct {
	r     *bufio.Reader
	pages *ogg.Reader // reading r, made on the first page
	// checkCRC refuses pages whose CRC does not match. measureOgg sets
	// it; unset, the reader assembles packets from pages built by hand.
	checkCRC bool
	serial   uint32
	first    bool
	pkt      []byte // the start of a packet continued on the next page
	// Of the page last read:
	granule int64
	eos     bool
	pending [][]byte // its complete packets not yet returned, pointing into the page
}

// page reads the next page of the stream, queueing its complete packets.
func (o *oggReader) page() error {
	if o.pages == nil {
		o.pages = ogg.NewReader(o.r)
		o.pages.AcceptBadCRC = !o.checkCRC
	}
	for {
		pg, err := o.pages.Next()
		if err != nil {
			return err
		}
		if !o.first {
			o.serial, o.first = pg.Serial, true
		} else if pg.Serial != o.serial {
			continue
		}
		if pg.Flags&ogg.Continued == 0 {
			o.pkt = nil // a packet left open by the previous page is lost
		}
		o.granule, o.eos = pg.Granule, pg.Flags&ogg.EOS != 0
		o.pending = o.pending[:0]
		start, at := 0, 0 // the current packet's bytes on this page, so far
		for _, s := range pg.Segments {
			at += int(s)
			if s == 255 {
				continue
			}
			if len(o.pkt) == 0 { // on this page only: no copy
				o.pending = append(o.pending, pg.Body[start:at])
			} else {
				o.pending = append(o.pending, append(o.pkt, pg.Body[start:at]...))
				o.pkt = nil
			}
			start = at
		}
		if len(o.pkt)+at-start > maxOpusPacket {
			return fmt.Errorf("Ogg packet longer than %d bytes", maxOpusPacket)
		}
		o.pkt = append(o.pkt, pg.Body[start:at]...) // continued on the next page
		return nil
	}
}

// packet returns the next packet, reading pages as needed.
func (o *oggReader) packet() ([]byte, error) {
	for len(o.pending) == 0 {
		if err := o.page(); err != nil {
			return nil, err
		}
	}
	p := o.pending[0]
	o.pending = o.pending[1:]
	return p, nil
}

// openOgg reads the headers of the Ogg Opus file in r and returns its
// audio as samples at opusRate (see opusSource).
func openOgg(r io.Reader) (*opusSource, error) {
	o := &oggReader{r: bufio.NewReaderSize(r, 64<<10), checkCRC: true}
	head, err := o.packet()
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte("OpusHead")) {
		codec, err := audio.OggCodec(head)
		if codec == "" {
			return nil, err
		}
		return nil, &NoDecoderError{Container: audio.ContainerOgg, Codec: codec}
	}
	h, err := parseOpusHead(head)
	if err != nil {
		return nil, err
	}
	if h.family != 0 || h.channels > 2 {
		return nil, &NoDecoderError{Container: audio.ContainerOgg, Codec: fmt.Sprintf("opus, %d channels in mapping family %d", h.channels, h.family)}
	}
	if _, err := o.packet(); err != nil { // OpusTags
		return nil, fmt.Errorf("Ogg Opus comment header: %w", err)
	}
	dec, err := opus.NewDecoderWithOutput(opusRate, h.channels)
	if err != nil {
		return nil, fmt.Errorf("decode Opus: %w", err)
	}
	return &opusSource{o: o, h: h, dec: dec, pcm: make([]float32, opusMaxFrames*h.channels)}, nil
}

// opusSource yields the audio packets of an Ogg Opus stream, decoded one
// at a time, with the pre-skip dropped, the output gain applied (samples
// may pass full scale by the gain, as ffmpeg's float decoding leaves
// them) and the last page cut at its granule position.
type opusSource struct {
	o    *oggReader
	h    opusHead
	dec  opus.Decoder
	pcm  []float32 // the last packet decoded
	rest []float32 // what is left of it to return
	pos  int64     // frames decoded, pre-skip included
	n    int       // packets read
	err  error
}

// Channels implements audio.SampleSource.
func (s *opusSource) Channels() int { return s.h.channels }

// ReadSamples implements audio.SampleSource.
func (s *opusSource) ReadSamples(dst []float64) (int, error) {
	for len(s.rest) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.err = s.next()
	}
	n := min(len(dst), len(s.rest))
	n -= n % s.h.channels
	if n == 0 {
		return 0, errors.New("decode Opus: buffer smaller than one frame")
	}
	for i, v := range s.rest[:n] {
		dst[i] = float64(v) * s.h.gain
	}
	s.rest = s.rest[n:]
	return n, nil
}

// next decodes the next packet into rest; io.EOF at the end of the stream.
func (s *opusSource) next() error {
	pkt, err := s.o.packet()
	if err != nil {
		return err
	}
	s.n++
	if len(pkt) == 0 {
		return nil // a lost packet (RFC 7845 section 3): nothing to decode
	}
	frames, err := decodeOpusPacket(&s.dec, pkt, s.pcm)
	if err != nil {
		return fmt.Errorf("decode Opus packet %d: %w", s.n-1, err)
	}
	from, to := max(s.h.preSkip-s.pos, 0), int64(frames)
	if s.o.eos && s.o.granule >= 0 {
		to = min(to, max(s.o.granule-s.pos, 0)) // the last page ends at its granule
	}
	s.pos += int64(frames)
	if from < to {
		s.rest = s.pcm[from*int64(s.h.channels) : to*int64(s.h.channels)]
	}
	return nil
}

// ended reports whether the stream's last page read was its end of stream:
// a file cut at a page boundary decodes without an error, but lacks it.
func (s *opusSource) ended() bool { return s.o.eos }

// decodeOpusPacket decodes one packet, turning a panic of the decoder on
// corrupt input into an error.
func decodeOpusPacket(dec *opus.Decoder, pkt []byte, pcm []float32) (frames int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt Opus data: %v", r)
		}
	}()
	return dec.DecodeToFloat32(pkt, pcm)
}
