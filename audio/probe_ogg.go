package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio/ogg"
)

// oggPage is what probing needs of the last page of a stream.
type oggPage struct {
	granule int64
	eos     bool  // last page of its logical stream
	end     int64 // file offset just past the page
}

// readOggPage reads the first page of the Ogg file in r and what its
// first packet says. A page whose CRC does not match is refused, unless
// its packet names a codec voxform does not support: that is said first,
// as nothing more would be read.
func readOggPage(r io.Reader) (ogg.Page, oggStream, error) {
	first, err := ogg.NewReader(r).Next()
	switch {
	case errors.Is(err, ogg.ErrDamaged):
		if st, herr := parseOggHead(first.Body); errors.Is(herr, ErrUnsupported) {
			return first, st, herr
		}
		return first, oggStream{}, fmt.Errorf("damaged Ogg file: %w", err)
	case errors.Is(err, ogg.ErrTruncated), err == io.EOF:
		return first, oggStream{}, errors.New("not an Ogg file: first page is truncated")
	case err != nil:
		return first, oggStream{}, errors.New("not an Ogg file: first page is malformed")
	}
	st, err := parseOggHead(first.Body)
	return first, st, err
}

// oggStream is what the first packet of a logical stream says.
type oggStream struct {
	codec    string
	rate     int // granule positions count samples at this rate
	outRate  int // the rate decoders produce (Opus: 48000)
	channels int
	preSkip  int64
}

// OggCodec names the codec whose Ogg mapping starts a logical stream
// with first, the stream's first packet, as Info.Codec does: "opus",
// "vorbis", "flac", "speex"; "" with the error for a packet no codec
// voxform knows starts with.
func OggCodec(first []byte) (string, error) {
	st, err := parseOggHead(first)
	return st.codec, err
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
// doubles up to oggTailMax (a page is at most ogg.MaxPageSize bytes).
const (
	oggTail    = 64 << 10
	oggTailMax = 1 << 20
)

func probeOgg(rs io.ReadSeeker, size int64) (Info, error) {
	info := Info{Container: ContainerOgg}
	first, st, err := readOggPage(rs)
	info.Codec, info.SampleRate, info.Channels = st.codec, st.outRate, st.channels
	if err != nil {
		return info, err
	}
	last, err := lastPage(rs, size, first.Serial)
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
// a granule position, reading backwards from the end of the file. A
// capture pattern whose page's CRC does not match is not taken for a
// page: it may be bytes of a packet, or a damaged page (which Validate
// then reports as bytes after the last page).
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
			p, ok := ogg.Parse(buf[i:])
			if ok && p.Serial == serial && p.Granule != ogg.NoGranule && p.CheckCRC() == nil {
				end := start + int64(i) + int64(p.Size())
				return oggPage{granule: p.Granule, eos: p.Flags&ogg.EOS != 0, end: end}, nil
			}
		}
		if start == 0 || window >= oggTailMax {
			return oggPage{}, fmt.Errorf("not an Ogg file: no complete page with a granule position in the last %d bytes", size-start)
		}
	}
}
