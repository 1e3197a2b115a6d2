package mp3

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxReservoir is the most main data a frame can take from the frames
// before it: main_data_begin has 9 bits (MPEG-1; 8 for LSF).
const maxReservoir = 511

// Decoder decodes a layer III stream frame by frame.
type Decoder struct {
	frames   *Frames
	first    Header
	channels int // of the output: the first frame's
	err      error

	si    sideInfo
	res   []byte // main data: the reservoir, then the current frame's
	sf    [2]scalefactors
	ix    [576]int32
	xr    [2][576]float32
	prev  [2][32][18]float32 // IMDCT overlap
	limit [2]int             // subbands of xr with lines, by channel
	syn   [2]synthesis
	pcm   []float32 // the last frame's output, interleaved
}

// NewDecoder returns a decoder of the layer III stream r, which starts
// at its first frame (after any ID3v2 tag and Xing/Info frame; see Sync).
// It reads the first frame's header to learn the stream's format; the
// output keeps that format, whatever later frames say.
func NewDecoder(r io.Reader) (*Decoder, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < MaxFrameLen+4 {
		br = bufio.NewReaderSize(r, 4<<10)
	}
	b, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("read MP3 header: %w", err)
	}
	h, ok := ParseHeader(b)
	if !ok {
		return nil, fmt.Errorf("%w: no MPEG audio frame header at the start", ErrCorrupt)
	}
	if h.Layer != 3 {
		return nil, fmt.Errorf("%w: MPEG layer %d audio (only layer III decodes)", ErrUnsupported, h.Layer)
	}
	d := &Decoder{frames: NewFrames(br), first: h, channels: h.Channels}
	d.res = make([]byte, 0, maxReservoir+MaxFrameLen+8)
	d.pcm = make([]float32, 0, 1152*2)
	return d, nil
}

// ErrUnsupported is wrapped by the error for a stream of another layer.
var ErrUnsupported = errors.New("unsupported MPEG audio")

// SampleRate is the stream's sample rate in Hz.
func (d *Decoder) SampleRate() int { return d.first.SampleRate }

// Channels is the number of output channels: 1 for a single-channel
// stream, 2 otherwise.
func (d *Decoder) Channels() int { return d.channels }

// Next decodes the next frame and returns its samples, interleaved by
// channel, in [-1, 1] for audio that does not clip (values beyond are
// kept: the caller clips). The slice is valid until the next call. At
// the end of the stream Next returns io.EOF; a later error is returned
// again by every call.
func (d *Decoder) Next() ([]float32, error) {
	if d.err != nil {
		return nil, d.err
	}
	pcm, err := d.next()
	if err != nil {
		d.err = err
		return nil, err
	}
	return pcm, nil
}

func (d *Decoder) next() ([]float32, error) {
	h, frame, err := d.frames.Next()
	if err != nil {
		return nil, err
	}
	if h.Layer != 3 {
		return nil, fmt.Errorf("%w: MPEG layer %d frame", ErrUnsupported, h.Layer)
	}
	at := 4
	if h.CRC {
		at += 2
	}
	if err := readSideInfo(&d.si, h, frame[min(at, len(frame)):]); err != nil {
		return nil, err
	}
	at += h.SideInfoLen()
	if at > len(frame) {
		return nil, fmt.Errorf("%w: frame of %d bytes shorter than its side information", ErrCorrupt, len(frame))
	}
	// The frame's main data starts main_data_begin bytes back in the
	// reservoir. If the reservoir holds less (the stream starts or
	// resumes here), the frame decodes as silence, as ffmpeg's does.
	avail := len(d.res)
	d.res = append(d.res, frame[at:]...)
	begin := avail - d.si.mainDataBegin
	ngr := 2
	if h.Version != 1 {
		ngr = 1
	}
	d.pcm = d.pcm[:ngr*576*d.channels]
	r := bitReader{buf: d.res, pos: 8 * begin}
	for gr := range ngr {
		if begin < 0 {
			d.silence()
		} else {
			d.granule(&r, h, gr)
		}
		d.output(h, gr)
	}
	// Keep the last bytes of main data for the next frames.
	if n := len(d.res); n > maxReservoir {
		copy(d.res, d.res[n-maxReservoir:])
		d.res = d.res[:maxReservoir]
	}
	return d.pcm, nil
}

// silence clears the spectra of granule gr, whose main data is lost:
// the filterbanks only release what they hold.
func (d *Decoder) silence() {
	d.xr = [2][576]float32{}
	d.limit = [2]int{}
}

// granule reads and requantises the main data of granule gr of every
// channel from r, undoes joint stereo and prepares the spectra for the
// IMDCT (reordering, alias reduction), setting d.limit.
func (d *Decoder) granule(r *bitReader, h Header, gr int) {
	bt := &bands[h.rateIndex]
	lsf := h.Version != 1
	var nz [2]int
	avail := 8 * len(d.res)
	for ch := range h.Channels {
		g := &d.si.gr[gr][ch]
		start := r.pos
		end := min(start+g.part23Len, avail)
		if lsf {
			readScalefactorsLSF(r, &d.sf[ch], g, ch == 1 && h.Mode == ModeJoint && h.ModeExt&1 != 0)
		} else {
			readScalefactorsMPEG1(r, &d.sf[ch], g, d.si.scfsi[ch], gr)
		}
		nz[ch] = readHuffman(r, end, g, &d.ix)
		requantize(&d.xr[ch], &d.ix, nz[ch], g, &d.sf[ch], bt, lsf)
		r.pos = start + g.part23Len
	}
	if h.Channels == 2 && h.Mode == ModeJoint {
		stereo(&d.xr, nz, h, &d.si.gr[gr][1], &d.sf[1], bt)
		// Either channel may now have lines up to the other's.
		nz[0] = max(nz[0], nz[1])
		nz[1] = nz[0]
	}
	for ch := range h.Channels {
		g := &d.si.gr[gr][ch]
		xr := &d.xr[ch]
		switch {
		case g.blockType == blockShort && g.mixed:
			reorder(xr, bt, 3)
			aliasReduce(xr, 2)
			d.limit[ch] = 32
		case g.blockType == blockShort:
			reorder(xr, bt, 0)
			d.limit[ch] = 32
		default:
			// Alias reduction spreads the last subband with lines into
			// the next one.
			n := min((nz[ch]+17)/18+1, 32)
			aliasReduce(xr, n)
			d.limit[ch] = n
		}
	}
}

// output runs the IMDCT and synthesis of granule gr and writes its PCM
// into d.pcm, converting a frame whose channels differ from the
// stream's first frame (mono to both channels, stereo to their mean).
func (d *Decoder) output(h Header, gr int) {
	var s [32]float32
	var mono [576]float32
	for ch := range h.Channels {
		xr := &d.xr[ch]
		hybrid(xr, &d.prev[ch], &d.si.gr[gr][ch], d.limit[ch])
		syn := &d.syn[ch]
		var buf [32]float32
		for t := range 18 {
			for sb := range 32 {
				s[sb] = xr[18*sb+t]
			}
			syn.step(&s, buf[:])
			at := gr*576 + 32*t
			switch {
			case d.channels == h.Channels:
				for j, v := range buf {
					d.pcm[(at+j)*d.channels+ch] = v
				}
			case d.channels == 1: // stereo frame in a mono stream
				for j, v := range buf {
					mono[32*t+j] += v / 2
				}
			default: // mono frame in a stereo stream
				for j, v := range buf {
					d.pcm[2*(at+j)], d.pcm[2*(at+j)+1] = v, v
				}
			}
		}
	}
	if d.channels == 1 && h.Channels == 2 {
		copy(d.pcm[gr*576:], mono[:])
	}
}
