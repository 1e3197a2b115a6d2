package loudness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/voxform/voxform/audio"
)

// The rendition is what the listening check sends to speech recognition:
// the audio of any file voxform writes, decoded as for measuring (the same
// decoders, so the same samples ffmpeg decodes), channels averaged into
// one, resampled with audio.Resampler and written as a 16-bit PCM WAV
// file. Speech recognition takes WAV at 8 to 44.1 kHz and refuses raw
// audio and mu-law (speech-recognition document, "Supported audio").
// It lives in this package because it reads the file through this
// package's decoders and measures its loudness in the same pass: one
// read of a chunk gives its check's audio, its loudness and its edges.

// Bounds of a rendition.
const (
	// maxRenderDuration bounds the audio rendered: at 48 kHz the
	// rendition stays under 2.1 GB, within a WAV file's 4 GiB, and the
	// longest audio voxform makes (a chapter) is far shorter.
	maxRenderDuration = 6 * time.Hour
	// minRenderRate and maxRenderRate bound the maxRate given to Render:
	// 8 kHz is the lowest rate speech recognition takes, and the loudness
	// meter's lowest.
	minRenderRate = 8000
	maxRenderRate = 48000
)

// Rendered is what Render wrote and measured.
type Rendered struct {
	// Seconds is the duration of the rendition: its frames over Rate.
	Seconds float64
	// Rate is the sample rate of the rendition in Hz: the source's,
	// at most Render's maxRate.
	Rate int
	// Lead and Tail are the silence at the start and at the end of the
	// audio: the time before the first and after the last 10 ms window
	// whose RMS is above -50 dBFS, measured on the channels' average at
	// the source's rate (edges.go). Audio that is silent throughout has
	// Lead its whole duration and Tail 0.
	Lead, Tail time.Duration
	// Loudness is the loudness of the source, as MeasureLoudnessReader
	// measures it (every channel, at the source's rate).
	Loudness Loudness
}

// Render writes the audio file in rs to w as a mono 16-bit little-endian
// PCM WAV file at the source's rate or maxRate (8000 to 48000 Hz),
// whichever is lower, and returns its duration, the silence at its ends
// and the source's loudness, all from one read of rs. With raw nil, rs is
// recognised as MeasureLoudnessReader recognises it (WAV in every encoding
// audio.ReadWAVHeader accepts, MP3, Ogg Opus); otherwise it is headerless
// audio in format *raw. Channels are averaged. Nothing is held beyond a
// few buffers; the WAV header is written first and its sizes filled in at
// the end, so w must seek. With w nil, nothing is written and the result
// is the same: the edges and loudness of audio whose rendition is not
// needed, at the cost of decoding alone.
//
// Audio longer than 6 hours is refused (from the header where it says
// so, else once decoding passes it), and so are a WAV file whose data
// ends before its header says, an MP3 file that ends a frame or more
// before its LAME tag says and an Ogg stream without its last page: cut
// between frames or pages, they decode without an error. Rendering stops
// with ctx's error when ctx is done. On an error, w holds a partial file
// for the caller to discard.
func Render(ctx context.Context, rs io.ReadSeeker, raw *audio.Format, maxRate int, w io.WriteSeeker) (Rendered, error) {
	return renderWithin(ctx, rs, raw, maxRate, w, maxRenderDuration)
}

// renderWithin is Render refusing audio longer than limit.
func renderWithin(ctx context.Context, rs io.ReadSeeker, raw *audio.Format, maxRate int, w io.WriteSeeker, limit time.Duration) (Rendered, error) {
	r, err := render(ctx, rs, raw, maxRate, w, limit)
	if err != nil {
		return Rendered{}, fmt.Errorf("render: %w", err)
	}
	return r, nil
}

func render(ctx context.Context, rs io.ReadSeeker, raw *audio.Format, maxRate int, w io.WriteSeeker, limit time.Duration) (Rendered, error) {
	if maxRate < minRenderRate || maxRate > maxRenderRate {
		return Rendered{}, fmt.Errorf("%w: rate %d Hz outside %d..%d", audio.ErrFormat, maxRate, minRenderRate, maxRenderRate)
	}
	src, rate, length, err := openRendered(rs, raw)
	if err != nil {
		return Rendered{}, err
	}
	if d := audio.FramesDuration(length, rate); d > limit {
		return Rendered{}, fmt.Errorf("the audio lasts %v, over the %v limit of a rendition", d.Round(time.Second), limit)
	}
	m, err := newLoudnessMeter(rate, src.Channels())
	if err != nil {
		return Rendered{}, err
	}
	defer m.release()
	in := &renderInput{ctx: ctx, src: src, m: m, limit: limit, rate: rate}
	e := newEdges(audio.Mono(in), rate)
	out := min(rate, maxRate)
	var frames int64
	if w != nil {
		frames, err = writeRendition(e, rate, out, w)
	} else {
		frames, err = drain(e, rate, out)
	}
	if err == nil {
		err = whole(src, in.frames, length, raw != nil)
	}
	if err != nil {
		return Rendered{}, err
	}
	lead, tail := e.edges()
	return Rendered{Seconds: float64(frames) / float64(out), Rate: out, Lead: lead, Tail: tail, Loudness: m.Loudness()}, nil
}

// openRendered opens the audio Render reads: headerless audio in format
// *raw, or a file whose container openSamples recognises. It returns the
// number of frames the source holds where the file says it before it is
// decoded (the size of raw audio, the data size of a WAV header), else -1.
func openRendered(rs io.ReadSeeker, raw *audio.Format) (audio.SampleSource, int, int64, error) {
	if raw != nil {
		if err := raw.Validate(); err != nil {
			return nil, 0, 0, err
		}
		size, err := rs.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, 0, 0, err
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return nil, 0, 0, err
		}
		s, err := audio.NewSampleReader(bufio.NewReaderSize(rs, 32<<10), *raw)
		return s, raw.SampleRate, size / int64(raw.BlockAlign()), err
	}
	length := int64(-1)
	if isWAV(rs) {
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return nil, 0, 0, err
		}
		// An error here is openSamples's too, which says it.
		if f, data, err := audio.ReadWAVHeader(rs); err == nil && data != audio.UnknownSize {
			length = data / int64(f.BlockAlign())
		}
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, 0, 0, err
	}
	src, rate, err := openSamples(rs)
	return src, rate, length, err
}

// whole says whether src, read to its end in frames frames, was all of
// its file: a WAV file holds the length frames its header declares, an
// MP3 file the frames of its LAME tag, an Ogg stream ends with its last
// page. Files cut short decode without an error where they were cut
// between frames or pages.
func whole(src audio.SampleSource, frames, length int64, raw bool) error {
	switch s := src.(type) {
	case *opusSource:
		if !s.ended() {
			return errors.New("truncated Ogg Opus file: the stream ends without its last page")
		}
	case *trimmed:
		if s.short() {
			return fmt.Errorf("truncated MP3 file: %d samples fewer than its LAME tag declares", s.keep)
		}
	default:
		if !raw && length >= 0 && frames < length {
			return fmt.Errorf("truncated WAV file: %d of the %d frames its header declares", frames, length)
		}
	}
	return nil
}

// isWAV reads the first 12 bytes of rs and says whether they are a WAV
// header's.
func isWAV(rs io.Reader) bool {
	var b [12]byte
	_, err := io.ReadFull(rs, b[:])
	return err == nil && audio.IsWAV(b[:])
}

// renderInput is the source as Render reads it: each piece read is
// measured, counted against the duration limit and ctx is checked.
type renderInput struct {
	ctx    context.Context
	src    audio.SampleSource
	m      *loudnessMeter
	limit  time.Duration
	rate   int
	frames int64
}

func (r *renderInput) Channels() int { return r.src.Channels() }

func (r *renderInput) ReadSamples(dst []float64) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := r.src.ReadSamples(dst)
	r.m.Write(dst[:n])
	r.frames += int64(n / r.src.Channels())
	if audio.FramesDuration(r.frames, r.rate) > r.limit {
		return 0, fmt.Errorf("the audio lasts over the %v limit of a rendition", r.limit)
	}
	return n, err
}

// drain reads mono samples at rate Hz to their end, for their edges and
// loudness, and returns the frames their rendition at out Hz would have:
// ceil(n*out/rate), as audio.Resampler makes.
func drain(src audio.SampleSource, rate, out int) (int64, error) {
	buf := make([]float64, renditionFrames)
	var n int64
	for {
		k, err := src.ReadSamples(buf)
		n += int64(k)
		if err == io.EOF {
			return (n*int64(out) + int64(rate) - 1) / int64(rate), nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// renditionFrames is how many frames writeRendition converts at a time.
const renditionFrames = 4096

// writeRendition resamples mono samples at rate Hz to out Hz and writes
// them to w as a 16-bit PCM WAV file; it returns the frames written.
func writeRendition(src audio.SampleSource, rate, out int, w io.WriteSeeker) (int64, error) {
	f := audio.Format{SampleRate: out, Channels: 1, BitsPerSample: 16, Encoding: audio.PCM}
	rs, err := audio.NewResampler(src, rate, out)
	if err != nil {
		return 0, err
	}
	ww, err := audio.NewWAVWriter(w, f)
	if err != nil {
		return 0, err
	}
	buf := make([]float64, renditionFrames)
	var b []byte
	var frames int64
	for {
		n, err := rs.ReadSamples(buf)
		b = audio.AppendSamples(b[:0], f, buf[:n])
		if _, werr := ww.Write(b); werr != nil {
			return frames, werr
		}
		frames += int64(n)
		if err == io.EOF {
			return frames, ww.Close()
		}
		if err != nil {
			return frames, err
		}
	}
}
