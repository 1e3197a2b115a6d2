package join

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/mp3"
)

// mp3Joiner joins whole MP3 files into one by their frames: each piece's
// tags (ID3v2, ID3v1, APE) and Xing/Info/VBRI header frames (LAME's
// included) are dropped and its audio frames written in order, so that
// the result is one MPEG audio stream whose duration is the sum of the
// pieces' (ffprobe counts whole frames, as Probe does). Frames need no
// re-encoding: an encoder starts each file with an empty bit reservoir.
//
// When the output is seekable, an Info frame (Xing, for pieces of mixed
// bitrates) leads the stream and is patched at Close with the frame and
// byte counts, as LAME writes one, so that players know the exact
// duration. Without it (a writer that cannot seek) players estimate the
// duration from the bitrate: exactly for a constant bitrate, which the
// service's fixed bitrate gives, 6% off for the VBR pieces of the tests.
// The Info frame carries no LAME extension, so the first piece's encoder
// delay and the last one's padding are played, as every piece's delay
// and padding between them are (a few tens of milliseconds between
// sentences).
//
// Every piece must have the MPEG version, layer, sample rate and channel
// count of the first. Bytes that are neither a frame nor a known tag are
// skipped as decoders skip them and counted by Skipped; a truncated last
// frame too.
type mp3Joiner struct {
	w      *bufio.Writer
	seeker io.Seeker // nil: no Info frame
	first  mp3.Header
	raw    [4]byte // first's header bytes
	known  bool
	infoAt int64 // offset of the Info frame
	info   []byte
	mixed  bool // bitrates differ
	frames int64
	bytes  int64
	skip   int64
	pieces int
	buf    []byte
	err    error
}

// newMP3Joiner returns a joiner writing to w, with an Info frame when w
// is an io.WriteSeeker that can seek.
func newMP3Joiner(w io.Writer) *mp3Joiner {
	j := &mp3Joiner{w: bufio.NewWriterSize(w, 64<<10)}
	if s, ok := w.(io.Seeker); ok {
		if at, err := s.Seek(0, io.SeekCurrent); err == nil {
			j.seeker, j.infoAt = s, at
		}
	}
	return j
}

// Duration is the duration of the frames joined so far.
func (j *mp3Joiner) Duration() time.Duration {
	if !j.known {
		return 0
	}
	return audio.FramesDuration(j.frames*int64(j.first.Samples), j.first.SampleRate)
}

// Skipped is the number of bytes of the pieces that were neither frames
// nor tags.
func (j *mp3Joiner) Skipped() int64 { return j.skip }

// Append adds the frames of one MP3 file read from r. An error leaves the
// output incomplete; the joiner refuses further pieces.
func (j *mp3Joiner) Append(r io.Reader) error {
	if j.err != nil {
		return j.err
	}
	j.pieces++
	if err := j.append(bufio.NewReaderSize(r, 64<<10)); err != nil {
		j.err = fmt.Errorf("join MP3 piece %d: %w", j.pieces, err)
	}
	return j.err
}

func (j *mp3Joiner) append(br *bufio.Reader) error {
	if err := skipMP3Tags(br); err != nil {
		return err
	}
	skipped, err := mp3.Sync(br, mp3.SearchLimit)
	if err != nil {
		return err
	}
	j.skip += int64(skipped)
	lost := false // after junk, a header counts only if the next one agrees
	for {
		b, err := br.Peek(4)
		if len(b) < 4 {
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			j.skip += int64(len(b))
			return nil
		}
		h, ok := mp3.ParseHeader(b)
		if ok && lost {
			ok = mp3.NextHeaderOK(br, h)
		}
		if !ok {
			if n, err := skipMP3Tag(br); err != nil || n > 0 {
				if err != nil {
					return err
				}
				continue
			}
			br.Discard(1)
			j.skip++
			lost = true
			continue
		}
		lost = false
		if err := j.check(h, b); err != nil {
			return err
		}
		if cap(j.buf) < h.Length {
			j.buf = make([]byte, h.Length)
		}
		frame := j.buf[:h.Length]
		if n, err := io.ReadFull(br, frame); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) { // a truncated last frame
				j.skip += int64(n)
				return nil
			}
			return err
		}
		_, _, xing := mp3.ReadXing(frame, h)
		if _, _, vbri := mp3.ReadVBRI(frame); xing || vbri {
			continue // a header frame, not audio
		}
		if err := j.write(frame); err != nil {
			return err
		}
	}
}

// check refuses a frame whose stream differs from the first piece's, and
// takes the first frame's as the stream's.
func (j *mp3Joiner) check(h mp3.Header, b []byte) error {
	if !j.known {
		j.first, j.known = h, true
		copy(j.raw[:], b)
		return j.writeInfo()
	}
	f := j.first
	if h.Version != f.Version || h.Layer != f.Layer || h.SampleRate != f.SampleRate || h.Channels != f.Channels {
		return fmt.Errorf("%w: %s, the first piece is %s", audio.ErrFormat, h, f)
	}
	j.mixed = j.mixed || h.Bitrate != f.Bitrate
	return nil
}

func (j *mp3Joiner) write(frame []byte) error {
	if _, err := j.w.Write(frame); err != nil {
		return err
	}
	j.frames++
	j.bytes += int64(len(frame))
	return nil
}

// xingFields is what the Info frame holds after its tag: flags, frames
// and bytes.
const xingFields = 12

// writeInfo writes the Info frame that Close patches: a silent frame of
// the stream's parameters (no CRC, the smallest bitrate that holds the
// tag at the first frame's or above).
func (j *mp3Joiner) writeInfo() error {
	if j.seeker == nil {
		return nil
	}
	hb := j.raw
	hb[1] |= 0x01        // no CRC
	hb[2] &= 0xF0 | 0x0C // keep bitrate and sample rate; no padding, no private bit
	hb[3] &= 0xC0        // keep the channel mode
	for bi := hb[2] >> 4; ; bi++ {
		if bi >= 15 {
			return fmt.Errorf("%w: no bitrate of %s holds an Info frame", audio.ErrFormat, j.first)
		}
		hb[2] = bi<<4 | hb[2]&0x0F
		h, ok := mp3.ParseHeader(hb[:])
		if ok && h.Length >= 4+h.SideInfoLen()+4+xingFields {
			j.info = make([]byte, h.Length)
			copy(j.info, hb[:])
			copy(j.info[4+h.SideInfoLen():], "Info")
			binary.BigEndian.PutUint32(j.info[4+h.SideInfoLen()+4:], 0x3) // frames and bytes
			_, err := j.w.Write(j.info)
			j.bytes += int64(len(j.info))
			return err
		}
	}
}

// Close flushes the output and, with an Info frame, patches its counts
// (and names it Xing when bitrates differ), leaving the writer at the end.
// It does not close the writer.
func (j *mp3Joiner) Close() error {
	if j.err != nil {
		return j.err
	}
	if !j.known {
		return errors.New("join MP3: no frames in any piece")
	}
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("join MP3: %w", err)
	}
	if j.info == nil {
		return nil
	}
	h, _ := mp3.ParseHeader(j.info)
	at := 4 + h.SideInfoLen()
	if j.mixed {
		copy(j.info[at:], "Xing")
	}
	binary.BigEndian.PutUint32(j.info[at+8:], uint32(j.frames))
	binary.BigEndian.PutUint32(j.info[at+12:], uint32(j.bytes))
	ws := j.seeker.(io.Writer)
	if _, err := j.seeker.Seek(j.infoAt, io.SeekStart); err != nil {
		return fmt.Errorf("join MP3: patch the Info frame: %w", err)
	}
	if _, err := ws.Write(j.info); err != nil {
		return fmt.Errorf("join MP3: patch the Info frame: %w", err)
	}
	if _, err := j.seeker.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("join MP3: patch the Info frame: %w", err)
	}
	return nil
}

// skipMP3Tags skips the tags at the start of a file.
func skipMP3Tags(br *bufio.Reader) error {
	for {
		n, err := skipMP3Tag(br)
		if err != nil || n == 0 {
			return err
		}
	}
}

// maxAPETag bounds the size an APE tag header may claim.
const maxAPETag = 16 << 20

// skipMP3Tag skips the tag that b (peeked at br) starts, if any, and
// returns its size: ID3v2 (with its footer), ID3v1 ("TAG", 128 bytes),
// APEv2 from its header or its footer.
func skipMP3Tag(br *bufio.Reader) (int, error) {
	b, _ := br.Peek(32)
	n := 0
	switch {
	case len(b) >= 10 && string(b[:3]) == "ID3" && b[6]|b[7]|b[8]|b[9] < 0x80:
		n = 10 + (int(b[6])<<21 | int(b[7])<<14 | int(b[8])<<7 | int(b[9]))
		if b[5]&0x10 != 0 { // a footer
			n += 10
		}
	case len(b) >= 3 && string(b[:3]) == "TAG":
		n = 128
	case len(b) >= 32 && string(b[:8]) == "APETAGEX":
		size := int(binary.LittleEndian.Uint32(b[12:16]))
		if size > maxAPETag {
			return 0, nil
		}
		n = 32
		if binary.LittleEndian.Uint32(b[20:24])&(1<<29) != 0 { // the header: items and footer follow
			n += size
		}
	default:
		return 0, nil
	}
	got, err := br.Discard(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return got, err
	}
	return max(got, 1), nil
}
