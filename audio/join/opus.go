package join

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/ogg"
)

// opusJoiner joins whole Ogg Opus files into one Ogg Opus file of one
// logical stream (RFC 7845): the first piece's ID header (OpusHead) and
// comment header (OpusTags) are kept and the others' dropped, after
// checking that their channel count, input sample rate, output gain and
// channel mapping are the first's; every page gets the first piece's
// serial number, the next sequence number and a new CRC; only the first
// page is BOS and only the last is EOS.
//
// Granule positions are rewritten to count the samples of the joined
// stream, at 48 kHz, from its start: a page of a later piece is at the
// samples of every packet before that piece plus its own position. A
// stream trims only at its start (the first piece's pre-skip) and its end
// (the last page's granule position, RFC 7845 section 4.4), so the
// samples that the pieces' own pre-skips and end trims would drop are
// kept: each later piece's priming samples (its pre-skip, some 6.5 ms)
// and each earlier piece's end padding (less than one packet, at most 20
// ms for the usual packets) are played, between sentences. To keep the
// joined stream as long as the pieces together, within one packet, the
// joiner counts those extra samples and, whenever they add up to a whole
// packet, drops the first audio packet of the next piece (its priming,
// and the start of the silence a synthesis begins with): the decoder
// goes on from the previous piece's state, as after a lost packet, at a
// pause between sentences. Duration says where each piece starts.
//
// Pieces are read page by page (package ogg: a page whose checksum does
// not match is refused); the joiner holds one page (the last, whose EOS
// flag waits for Close).
type opusJoiner struct {
	w      *bufio.Writer
	head   []byte // the first piece's OpusHead
	serial uint32
	seq    uint32
	base   int64 // samples of the pieces appended, all packets counted
	// held is the last page read, written when the next one comes (or at
	// Close, with EOS and its end trim); heldBuf holds its bytes.
	held        ogg.Page
	heldBuf     []byte
	holding     bool
	out         []byte // the page being written
	heldFull    int64  // held's granule position, every packet counted
	heldTrimmed int64  // held's granule position with its piece's end trim
	final       int64  // after Close: the last granule position
	pieces      int
	err         error
	// excess is how many samples the joined stream plays beyond the
	// pieces' own durations and has not dropped yet: the pre-skips of
	// later pieces and the end trims of earlier ones.
	excess int64
}

// newOpusJoiner returns a joiner writing to w.
func newOpusJoiner(w io.Writer) *opusJoiner {
	return &opusJoiner{w: bufio.NewWriterSize(w, 64<<10), final: -1}
}

// Duration is where the next piece starts in the decoded audio (after
// Close: the decoded duration of the whole).
func (j *opusJoiner) Duration() time.Duration {
	if j.head == nil {
		return 0
	}
	end := j.base
	if j.final >= 0 {
		end = j.final
	}
	return audio.FramesDuration(max(end-opusPreSkip(j.head), 0), 48000)
}

func opusPreSkip(head []byte) int64 { return int64(binary.LittleEndian.Uint16(head[10:12])) }

// Append adds one Ogg Opus file read from r. An error leaves the output
// incomplete; the joiner refuses further pieces.
func (j *opusJoiner) Append(r io.Reader) error {
	if j.err != nil {
		return j.err
	}
	j.pieces++
	if err := j.append(ogg.NewReader(bufio.NewReaderSize(r, 64<<10))); err != nil {
		j.err = fmt.Errorf("join Ogg Opus piece %d: %w", j.pieces, err)
	}
	return j.err
}

// opusPiece is what Append knows of the piece it reads.
type opusPiece struct {
	preSkip  int64 // its OpusHead's
	dropped  int64 // samples of its packets the joiner dropped
	audio    bool  // its first audio page was seen
	serial   uint32
	seq      uint32  // the next page's expected sequence number
	packets  int     // packets completed
	samples  int64   // samples of the audio packets completed
	open     bool    // a packet continues on the next page
	openLen  int     // its bytes so far
	openHead [8]byte // its first bytes
}

func (j *opusJoiner) append(pages *ogg.Reader) error {
	var p opusPiece
	for n := 0; ; n++ {
		page, err := pages.Next()
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return errors.New("empty: no Ogg page")
			}
			break
		}
		if err != nil {
			return err // positioned by the reader
		}
		if err := j.page(&p, page, n); err != nil {
			return fmt.Errorf("page %d: %w", n, err)
		}
	}
	switch {
	case p.packets < 2:
		return errors.New("the stream ends before its headers")
	case p.open:
		return errors.New("the stream ends inside a packet")
	}
	j.base += p.samples
	return nil
}

// page takes the n-th page of a piece.
func (j *opusJoiner) page(p *opusPiece, page ogg.Page, n int) error {
	flags, granule, serial, seq := page.Flags, page.Granule, page.Serial, page.Seq
	switch {
	case n == 0 && flags&ogg.BOS == 0:
		return errors.New("the first page is not the start of a stream")
	case n == 0:
		p.serial, p.seq = serial, seq
	case flags&ogg.BOS != 0:
		return errors.New("a second stream starts (chained or multiplexed Ogg is not supported)")
	case serial != p.serial:
		return fmt.Errorf("a page of stream %08x inside stream %08x (multiplexed Ogg is not supported)", serial, p.serial)
	case seq != p.seq:
		return fmt.Errorf("page sequence number %d, want %d: a page is missing", seq, p.seq)
	}
	p.seq++
	headers := p.packets < 2
	if !headers && !p.audio {
		var err error
		if page, err = j.dropPrimed(p, page); err != nil {
			return err
		}
	}
	completed, err := j.packets(p, page)
	if err != nil {
		return err
	}
	if headers {
		// Header pages hold no audio (RFC 7845 section 3: the first audio
		// page starts a new packet); the first piece's are kept.
		if p.packets > 2 || p.packets == 2 && p.open {
			return errors.New("an audio packet shares a page with the headers")
		}
		if j.pieces > 1 {
			return nil
		}
		if n == 0 {
			j.serial = serial
		}
		return j.hold(page, 0, 0)
	}
	if granule == ogg.NoGranule {
		return j.hold(page, ogg.NoGranule, ogg.NoGranule)
	}
	full := j.base + p.samples
	trimmed := full
	// The piece's own granule position is less than its samples only on
	// its last page, by its end trim (at most that page's packets).
	if trim := p.samples + p.dropped - granule; trim > 0 && trim <= completed {
		trimmed = full - trim
	}
	return j.hold(page, full, trimmed)
}

// dropPrimed drops, from the first audio page of a later piece, its first
// packets while the samples played beyond the pieces' durations make up
// a whole one (see opusJoiner), and counts this piece's pre-skip and the
// previous piece's end trim into them first. A packet that does not end
// on the page, or the page's last packet, is kept.
func (j *opusJoiner) dropPrimed(p *opusPiece, page ogg.Page) (ogg.Page, error) {
	p.audio = true
	if j.pieces == 1 || page.Flags&ogg.Continued != 0 {
		return page, nil
	}
	if j.holding && j.heldFull != ogg.NoGranule && j.heldTrimmed != ogg.NoGranule {
		j.excess += j.heldFull - j.heldTrimmed // the previous piece's end trim, played
	}
	j.excess += p.preSkip
	for {
		end, size := -1, 0
		for i, l := range page.Segments {
			size += int(l)
			if l < 255 {
				end = i
				break
			}
		}
		if end < 0 || end == len(page.Segments)-1 { // continues, or the page's only packet
			return page, nil
		}
		var toc [8]byte
		copy(toc[:], page.Body[:min(size, 8)])
		samples, err := opusPacketSamples(toc, size)
		if err != nil {
			return ogg.Page{}, fmt.Errorf("packet %d: %w", p.packets, err)
		}
		if samples == 0 || j.excess < samples {
			return page, nil
		}
		page.Segments, page.Body = page.Segments[end+1:], page.Body[size:]
		j.excess -= samples
		p.dropped += samples
	}
}

// packets reads the lacing of a page: it checks the continuation flag,
// checks the headers (OpusHead against the first piece's) and counts the
// samples of the audio packets that end on the page, which it returns.
func (j *opusJoiner) packets(p *opusPiece, page ogg.Page) (int64, error) {
	nseg, lacing, body := len(page.Segments), page.Segments, page.Body
	if continued := page.Flags&ogg.Continued != 0; continued != p.open {
		return 0, fmt.Errorf("continuation flag %v, but a packet is open: %v", continued, p.open)
	}
	var completed int64
	at, start := 0, 0 // start: of the current packet's part on this page
	for _, l := range lacing {
		at += int(l)
		if l == 255 {
			continue
		}
		split := p.open // the packet began on an earlier page
		if !split {
			p.openHead = [8]byte{}
			copy(p.openHead[:], body[start:at])
		}
		switch p.packets {
		case 0:
			if err := j.checkHead(body[start:at], split); err != nil {
				return 0, err
			}
			p.preSkip = opusPreSkip(body[start:at])
		case 1:
			if !bytes.HasPrefix(p.openHead[:], []byte("OpusTags")) {
				return 0, errors.New("the second packet is not OpusTags")
			}
		default:
			s, err := opusPacketSamples(p.openHead, p.openLen+at-start)
			if err != nil {
				return 0, fmt.Errorf("packet %d: %w", p.packets, err)
			}
			completed += s
		}
		p.packets++
		p.open, p.openLen = false, 0
		start = at
	}
	if nseg > 0 && lacing[nseg-1] == 255 { // a packet continues on the next page
		if !p.open {
			p.openHead = [8]byte{}
			copy(p.openHead[:], body[start:])
		}
		p.open = true
		p.openLen += len(body) - start
	}
	p.samples += completed
	return completed, nil
}

// checkHead checks an OpusHead packet: the first piece's is kept, a
// later piece's must match it where the joined stream depends on it.
func (j *opusJoiner) checkHead(pkt []byte, split bool) error {
	if split || len(pkt) < 19 || !bytes.HasPrefix(pkt, []byte("OpusHead")) {
		return errors.New("the first packet is not an OpusHead")
	}
	if pkt[8]>>4 != 0 {
		return fmt.Errorf("%w: Ogg Opus version %d", audio.ErrUnsupported, pkt[8])
	}
	if j.head == nil {
		j.head = bytes.Clone(pkt)
		return nil
	}
	f, h := j.head, pkt
	le := binary.LittleEndian
	switch {
	case h[9] != f[9]:
		return fmt.Errorf("%w: %d channels, the first piece has %d", audio.ErrFormat, h[9], f[9])
	case le.Uint32(h[12:16]) != le.Uint32(f[12:16]):
		return fmt.Errorf("%w: input sample rate %d Hz, the first piece's is %d Hz", audio.ErrFormat, le.Uint32(h[12:16]), le.Uint32(f[12:16]))
	case le.Uint16(h[16:18]) != le.Uint16(f[16:18]):
		return fmt.Errorf("%w: output gain %d, the first piece's is %d", audio.ErrFormat, int16(le.Uint16(h[16:18])), int16(le.Uint16(f[16:18])))
	case !bytes.Equal(h[18:], f[18:]):
		return fmt.Errorf("%w: channel mapping differs from the first piece's", audio.ErrFormat)
	}
	return nil
}

// opusFrameSamples are the samples at 48 kHz of one frame by TOC
// configuration (RFC 6716 section 3.1): SILK 10, 20, 40, 60 ms; hybrid
// 10, 20 ms; CELT 2.5, 5, 10, 20 ms.
var opusFrameSamples = [32]int64{
	480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 1920, 2880,
	480, 960, 480, 960,
	120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
}

// opusPacketSamples returns the samples at 48 kHz of a packet of n bytes
// whose first two bytes are toc (RFC 6716 section 3.2).
func opusPacketSamples(toc [8]byte, n int) (int64, error) {
	if n == 0 {
		return 0, nil // a lost or DTX packet (RFC 7845 section 5.1 allows none; decoders treat it as lost)
	}
	fs := opusFrameSamples[toc[0]>>3]
	switch toc[0] & 3 {
	case 0:
		return fs, nil
	case 1, 2:
		return 2 * fs, nil
	}
	if n < 2 || toc[1]&0x3F == 0 {
		return 0, errors.New("code 3 packet without a frame count")
	}
	s := int64(toc[1]&0x3F) * fs
	if s > 5760 { // 120 ms
		return 0, fmt.Errorf("packet of %d samples, over 120 ms", s)
	}
	return s, nil
}

// hold writes the page held so far and holds page, with its granule
// positions (every packet counted, and with the end trim of its piece).
func (j *opusJoiner) hold(page ogg.Page, full, trimmed int64) error {
	if j.holding {
		if err := j.writeHeld(j.heldFull, false); err != nil {
			return err
		}
	}
	// The page's bytes are the reader's until its next page: keep a copy.
	j.heldBuf = append(append(j.heldBuf[:0], page.Segments...), page.Body...)
	page.Segments, page.Body = j.heldBuf[:len(page.Segments)], j.heldBuf[len(page.Segments):]
	j.held, j.holding = page, true
	j.heldFull, j.heldTrimmed = full, trimmed
	return nil
}

// writeHeld writes the held page as a page of the joined stream.
func (j *opusJoiner) writeHeld(granule int64, last bool) error {
	pg := &j.held
	pg.Flags &^= ogg.BOS | ogg.EOS
	if j.seq == 0 {
		pg.Flags |= ogg.BOS
	}
	if last {
		pg.Flags |= ogg.EOS
	}
	pg.Granule, pg.Serial, pg.Seq = granule, j.serial, j.seq
	j.seq++
	j.out = ogg.Append(j.out[:0], pg)
	_, err := j.w.Write(j.out)
	return err
}

// Close writes the last page, with EOS and the last piece's end trim,
// and flushes the output. It does not close the writer.
func (j *opusJoiner) Close() error {
	if j.err != nil {
		return j.err
	}
	if !j.holding {
		return errors.New("join Ogg Opus: no pieces")
	}
	j.final = j.heldTrimmed
	if j.final == ogg.NoGranule {
		j.final = j.base
	}
	if err := j.writeHeld(j.heldTrimmed, true); err != nil {
		return fmt.Errorf("join Ogg Opus: %w", err)
	}
	j.holding = false
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("join Ogg Opus: %w", err)
	}
	return nil
}
