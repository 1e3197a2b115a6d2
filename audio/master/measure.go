package master

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/mp3"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/deliver"
)

// What Measure measures, as deliver defines each figure and ffmpeg's
// filters measure it (the tests compare them):
//   - Integrated and TruePeak: audio/loudness's meter (BS.1770-4, ffmpeg's
//     ebur128 with peak=true).
//   - RMS: every sample of every channel, unweighted (astats' "RMS level
//     dB" of the Overall section); SamplePeak: the largest |sample|
//     (astats' "Peak level dB").
//   - NoiseFloor: the RMS of the quietest 500 ms window, windows every
//     100 ms from the start (a file shorter than 500 ms: the whole file);
//     digital silence is -Inf, which passes any ceiling.
//   - Head and Tail: audio/loudness's edge rule on the channels' mean.
//   - MP3: CBR when every audio frame (the Xing/Info frame aside) has the
//     same bit rate; the bit rate is that rate, else the average.
//   - MP4 and the bit rate of Ogg: the Encoder's Probe (for Ogg, where it
//     gives none or there is no Encoder: VBR, the file's bytes over its
//     duration); MP4's audio is decoded by the Encoder into a temporary
//     WAV file.
const (
	floorWindowMs = 500
	floorHopMs    = 100
)

// Measure measures the delivered file at path for deliver.Check. enc is
// needed for MP4 (and gives the bit rate of Ogg Opus); it may be nil
// otherwise.
func Measure(ctx context.Context, path string, enc Encoder) (deliver.Measured, error) {
	m, err := measure(ctx, path, enc)
	if err != nil {
		return deliver.Measured{}, fmt.Errorf("measure %s: %w", path, err)
	}
	return m, nil
}

func measure(ctx context.Context, path string, enc Encoder) (deliver.Measured, error) {
	f, err := os.Open(path)
	if err != nil {
		return deliver.Measured{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return deliver.Measured{}, err
	}
	c, err := sniff(f)
	if err != nil {
		return deliver.Measured{}, err
	}
	m := deliver.Measured{Bytes: st.Size()}
	switch c {
	case audio.ContainerWAV:
		err = wavStream(f, &m)
	case audio.ContainerMP3:
		err = mp3Stream(f, &m)
	case audio.ContainerOgg:
		m.Container, m.Codec = deliver.ContainerOgg, deliver.CodecOpus
	case audio.ContainerM4A:
		return measureDecoded(ctx, path, enc, m)
	default:
		return m, fmt.Errorf("%w: cannot measure %s audio", audio.ErrUnsupported, c)
	}
	if err != nil {
		return m, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return m, err
	}
	if err := measureLevels(ctx, f, &m); err != nil {
		return m, err
	}
	if m.Container == deliver.ContainerOgg {
		err = probeRate(ctx, path, enc, &m)
	}
	return m, err
}

// sniff recognises the container of the file in rs and rewinds it.
func sniff(rs io.ReadSeeker) (audio.Container, error) {
	head := make([]byte, audio.SniffLen)
	n, _ := io.ReadFull(rs, head)
	_, err := rs.Seek(0, io.SeekStart)
	return audio.Sniff(head[:n]), err
}

// probeRate takes the bit rate of an Ogg Opus file from the Encoder's
// Probe, or else its average over the file.
func probeRate(ctx context.Context, path string, enc Encoder, m *deliver.Measured) error {
	m.BitrateMode = deliver.VBR
	if m.Seconds > 0 {
		m.Bitrate = int(math.Round(float64(m.Bytes) * 8 / m.Seconds))
	}
	if enc == nil {
		return nil
	}
	s, err := enc.Probe(ctx, path)
	if err != nil {
		return err
	}
	if s.Bitrate > 0 {
		m.Bitrate, m.BitrateMode = s.Bitrate, mode(s.CBR)
	}
	return nil
}

func mode(cbr bool) string {
	if cbr {
		return deliver.CBR
	}
	return deliver.VBR
}

// measureDecoded measures a file Go cannot decode (MP4): its stream from
// the Encoder's Probe, its audio decoded by the Encoder.
func measureDecoded(ctx context.Context, path string, enc Encoder, m deliver.Measured) (deliver.Measured, error) {
	if enc == nil {
		return m, errors.New("an MP4 file is measured through an encoder (ffmpeg) and none was given")
	}
	s, err := enc.Probe(ctx, path)
	if err != nil {
		return m, err
	}
	m.Container, m.Codec, m.Bitrate, m.BitrateMode = s.Container, s.Codec, s.Bitrate, mode(s.CBR)
	tmp, err := os.CreateTemp("", "voxform-measure-*.wav")
	if err != nil {
		return m, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := enc.Decode(ctx, path, tmp); err != nil {
		return m, fmt.Errorf("decode: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return m, err
	}
	err = measureLevels(ctx, tmp, &m)
	m.SampleRate, m.Channels = s.SampleRate, s.Channels
	return m, err
}

// wavStream reads the codec of a WAV file.
func wavStream(rs io.Reader, m *deliver.Measured) error {
	f, _, err := audio.ReadWAVHeader(rs)
	if err != nil {
		return err
	}
	m.Container = deliver.ContainerWAV
	switch f.Encoding {
	case audio.MuLaw:
		m.Codec = deliver.CodecMuLaw
	case audio.ALaw:
		m.Codec = deliver.CodecALaw
	case audio.Float:
		m.Codec = fmt.Sprintf("pcm_f%dle", f.BitsPerSample)
	default:
		m.Codec = fmt.Sprintf("pcm_s%dle", f.BitsPerSample)
		if f.BitsPerSample == 8 {
			m.Codec = "pcm_u8"
		}
	}
	return nil
}

// mp3Stream reads the bit rate of every frame of an MP3 file.
func mp3Stream(rs io.ReadSeeker, m *deliver.Measured) error {
	start, err := mp3.SkipID3(rs)
	if err != nil {
		return err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return err
	}
	fr := mp3.NewFrames(bufio.NewReaderSize(rs, 2*(mp3.MaxFrameLen+4)))
	var frames, bytes, samples int64
	rate, cbr := 0, true
	for {
		h, b, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if frames == 0 && isInfoFrame(h, b) {
			continue
		}
		if frames == 0 {
			rate, m.SampleRate = h.Bitrate, h.SampleRate
		}
		cbr = cbr && h.Bitrate == rate
		frames++
		bytes += int64(len(b))
		samples += int64(h.Samples)
	}
	if frames == 0 {
		return errors.New("no MP3 frame")
	}
	m.Container, m.Codec, m.BitrateMode, m.Bitrate = deliver.ContainerMP3, deliver.CodecMP3, mode(cbr), rate
	if !cbr {
		m.Bitrate = int(math.Round(float64(bytes) * 8 * float64(m.SampleRate) / float64(samples)))
	}
	return nil
}

// isInfoFrame says whether an MP3 frame is a Xing or Info header, which
// holds no audio.
func isInfoFrame(h mp3.Header, b []byte) bool {
	at := 4 + h.SideInfoLen()
	if len(b) < at+4 {
		return false
	}
	tag := string(b[at : at+4])
	return tag == "Xing" || tag == "Info"
}

// measureLevels decodes the audio file in rs and measures its rate,
// channels, duration, loudness, levels and edges.
func measureLevels(ctx context.Context, rs io.ReadSeeker, m *deliver.Measured) error {
	src, rate, err := loudness.OpenSamples(rs, nil)
	if err != nil {
		return err
	}
	meter, err := loudness.NewMeter(rate, src.Channels())
	if err != nil {
		return err
	}
	t := &tap{ctx: ctx, src: src, meter: meter, floor: newFloor(rate, src.Channels())}
	lead, tail, err := edges(loudness.NewEdges(audio.Mono(t), rate))
	if err != nil {
		return err
	}
	l := meter.Loudness()
	m.SampleRate, m.Channels = rate, src.Channels()
	m.Seconds = float64(t.frames) / float64(rate)
	m.Integrated, m.TruePeak = l.Integrated, l.TruePeak
	m.RMS = dB(math.Sqrt(t.sumsq / float64(max(t.frames*int64(src.Channels()), 1))))
	m.SamplePeak = dB(t.peak)
	m.NoiseFloor = t.floor.result()
	m.Head, m.Tail = lead.Seconds(), tail.Seconds()
	return nil
}

// tap passes the samples of a source through, measuring them.
type tap struct {
	ctx    context.Context
	src    audio.SampleSource
	meter  *loudness.Meter
	floor  *floor
	frames int64
	sumsq  float64
	peak   float64
}

func (t *tap) Channels() int { return t.src.Channels() }

func (t *tap) ReadSamples(dst []float64) (int, error) {
	if err := t.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := t.src.ReadSamples(dst)
	x := dst[:n]
	t.meter.Write(x)
	for _, v := range x {
		t.sumsq += v * v
		t.peak = max(t.peak, math.Abs(v))
	}
	t.floor.write(x)
	t.frames += int64(n / t.src.Channels())
	return n, err
}

// floor finds the quietest window of floorWindowMs, windows every
// floorHopMs: it sums each hop and keeps the last hops of a window.
type floor struct {
	ch       int
	hop      int64 // frames per hop
	hops     int   // hops per window
	ring     []float64
	done     int // hops ended
	sum      float64
	n        int64
	all      float64 // sum of squares of everything, for a file shorter than a window
	frames   int64
	quietest float64 // the least mean square of a window, +Inf before one
}

func newFloor(rate, ch int) *floor {
	hop := max(int64(rate)*floorHopMs/1000, 1)
	return &floor{ch: ch, hop: hop, hops: floorWindowMs / floorHopMs, ring: make([]float64, floorWindowMs/floorHopMs), quietest: math.Inf(1)}
}

func (f *floor) write(x []float64) {
	for i := 0; i+f.ch <= len(x); i += f.ch {
		for _, v := range x[i : i+f.ch] {
			f.sum += v * v
		}
		f.frames++
		if f.n++; f.n == f.hop {
			f.endHop()
		}
	}
}

func (f *floor) endHop() {
	f.ring[f.done%f.hops] = f.sum
	f.all += f.sum
	f.done++
	f.sum, f.n = 0, 0
	if f.done >= f.hops {
		w := 0.0
		for _, s := range f.ring {
			w += s
		}
		f.quietest = min(f.quietest, w/float64(int64(f.hops)*f.hop*int64(f.ch)))
	}
}

// result is the noise floor in dB: -Inf for digital silence.
func (f *floor) result() float64 {
	ms := f.quietest
	if math.IsInf(ms, 1) { // shorter than a window: the whole file
		ms = (f.all + f.sum) / float64(max(f.frames*int64(f.ch), 1))
	}
	return 10 * math.Log10(ms)
}

// edges reads e to its end and returns the silence at its ends.
func edges(e *loudness.Edges) (lead, tail time.Duration, err error) {
	buf := make([]float64, 4096)
	for {
		_, err := e.ReadSamples(buf)
		if err == io.EOF {
			lead, tail = e.Edges()
			return lead, tail, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}
