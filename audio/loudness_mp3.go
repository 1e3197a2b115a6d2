package audio

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/voxform/voxform/audio/internal/mp3"
)

// MP3 is decoded with Decode (package mp3, every MPEG version of layer
// III), with one correction so that the samples measured are the ones
// ffmpeg measures: the encoder delay and padding a LAME tag records are
// cut, as ffmpeg's decoder does (gapless playback): the delay plus the
// decoder's own 529 samples at the start, the padding at the end. Left
// in, they shift every gating block by tens of milliseconds, which moves
// the integrated loudness of short speech by more than 0.1 LU.

// mp3DecoderDelay is the delay of an MP3 synthesis filterbank, in
// samples, which ffmpeg adds to the encoder delay it skips.
const mp3DecoderDelay = 529

// mp3Gapless is what a LAME (or ffmpeg "Lavf"/"Lavc") tag in the Info
// frame says about the stream.
type mp3Gapless struct {
	frames     int64 // audio frames after the Info frame, 0 if unknown
	start, end int64 // encoder delay and padding, in samples
}

func measureMP3(ctx context.Context, rs io.ReadSeeker) (Loudness, error) {
	h, gap, err := readMP3Head(rs)
	if err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	d, err := Decode(rs)
	if err != nil {
		return Loudness{}, fmt.Errorf("measure loudness: %w", err)
	}
	src := d.Samples
	if gap != nil {
		keep := int64(-1)
		if gap.frames > 0 {
			keep = max(gap.frames*int64(h.Samples)-gap.start-gap.end, 0)
		}
		src = &trimmed{src: src, skip: gap.start + mp3DecoderDelay, keep: keep}
	}
	return MeasureLoudnessSamples(ctx, src, d.Format.SampleRate)
}

// readMP3Head finds the first MPEG audio frame after any ID3v2 tags and
// reads the LAME tag in it, if any.
func readMP3Head(rs io.ReadSeeker) (mp3.Header, *mp3Gapless, error) {
	start, err := skipID3(rs)
	if err != nil {
		return mp3.Header{}, nil, err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return mp3.Header{}, nil, err
	}
	br := bufio.NewReaderSize(rs, 4<<10)
	if _, err := mp3.Sync(br, mp3.SearchLimit); err != nil {
		return mp3.Header{}, nil, err
	}
	b, _ := br.Peek(4)
	h, _ := mp3.ParseHeader(b)
	frame, _ := br.Peek(h.Length)
	return h, readLAMETag(frame, h), nil
}

// readLAMETag reads the encoder delay and padding from the LAME tag that
// follows the Xing/Info header of the first frame, accepting the encoder
// names ffmpeg accepts (mp3dec.c: "LAME", "Lavf", "Lavc").
func readLAMETag(frame []byte, h mp3.Header) *mp3Gapless {
	at := 4 + h.SideInfoLen()
	if len(frame) < at+8 || (string(frame[at:at+4]) != "Xing" && string(frame[at:at+4]) != "Info") {
		return nil
	}
	var g mp3Gapless
	flags := binary.BigEndian.Uint32(frame[at+4:])
	p := at + 8
	if flags&1 != 0 && len(frame) >= p+4 {
		g.frames = int64(binary.BigEndian.Uint32(frame[p:]))
	}
	for bit, size := range []int{4, 4, 100, 4} { // frames, bytes, TOC, quality
		if flags&(1<<bit) != 0 {
			p += size
		}
	}
	// Encoder version (9), revision (1), low-pass (1), ReplayGain (8),
	// flags (1), bitrate (1), then 12 bits of delay and 12 of padding.
	if len(frame) < p+24 {
		return nil
	}
	switch string(frame[p : p+4]) {
	case "LAME", "Lavf", "Lavc":
	default:
		return nil
	}
	v := uint32(frame[p+21])<<16 | uint32(frame[p+22])<<8 | uint32(frame[p+23])
	g.start, g.end = int64(v>>12), int64(v&0xFFF)
	return &g
}

// trimmed drops the first skip frames of src and ends after keep more
// (keep < 0: at the end of src).
type trimmed struct {
	src  SampleSource
	skip int64
	keep int64
}

func (t *trimmed) Channels() int { return t.src.Channels() }

func (t *trimmed) ReadSamples(dst []float64) (int, error) {
	ch := t.src.Channels()
	for {
		if t.keep == 0 {
			return 0, io.EOF
		}
		want := len(dst) / ch
		if t.keep > 0 {
			want = int(min(int64(want), t.keep))
		}
		n, err := t.src.ReadSamples(dst[:want*ch])
		frames := int64(n / ch)
		if t.skip > 0 {
			drop := min(t.skip, frames)
			t.skip -= drop
			copy(dst, dst[drop*int64(ch):n])
			frames -= drop
			n = int(frames) * ch
		}
		if t.keep > 0 {
			t.keep -= frames
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}
