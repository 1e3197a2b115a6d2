package mute

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/voxform/voxform/audio"
)

// Mode is what a muted range becomes.
type Mode int

// Modes of Mute.
const (
	// Silence writes the encoding's digital zero.
	Silence Mode = iota
	// Beep writes a 1 kHz sine at -20 dBFS peak.
	Beep
)

// ParseMode returns the Mode named "silence" or "beep".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "silence":
		return Silence, nil
	case "beep":
		return Beep, nil
	}
	return 0, fmt.Errorf("unknown mute mode %q (want silence or beep)", s)
}

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case Silence:
		return "silence"
	case Beep:
		return "beep"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// Range is a stretch of the recording to mute, from its start.
type Range struct{ From, To time.Duration }

// Bounds of Mute's input.
const (
	// MaxRanges is the most ranges one call mutes.
	MaxRanges = 100_000
	// MaxHeaderBytes bounds the bytes before the audio data (the RIFF
	// header and every chunk before the data chunk), held in memory.
	MaxHeaderBytes = 4 << 20
)

// beepLevel is the beep's peak amplitude: -20 dBFS.
const beepLevel = 0.1

// ErrUnsupported is wrapped by every refusal of a source Mute cannot
// copy: not WAV, or a WAV encoding package audio does not read.
var ErrUnsupported = errors.New("only WAV (8, 16, 24 or 32-bit PCM, 32 or 64-bit float, mu-law or A-law) can be muted")

// Mute copies the WAV file src to dst with every range silenced or
// beeped (mode), every other byte unchanged. Nothing is written when src
// is refused (ErrUnsupported) or a range is invalid.
func Mute(dst io.Writer, src io.Reader, ranges []Range, mode Mode) error {
	if mode != Silence && mode != Beep {
		return fmt.Errorf("mute: unknown mode %d", int(mode))
	}
	rs, err := normalize(ranges)
	if err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	hdr, f, data, err := readHeader(src)
	if err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	if _, err := dst.Write(hdr); err != nil {
		return fmt.Errorf("mute: write header: %w", err)
	}
	w := &muter{f: f, mode: mode, ranges: frameRanges(rs, f.SampleRate)}
	if err := w.copy(dst, data); err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	if _, err := io.Copy(dst, src); err != nil { // the chunks after the data
		return fmt.Errorf("mute: copy the chunks after the audio: %w", err)
	}
	return nil
}

// Supports reports whether Mute can copy the file at path: nil for a WAV
// file in an encoding it writes, else an error saying why (wrapping
// ErrUnsupported when the file is of another kind). Only the header is
// read.
func Supports(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	defer f.Close()
	if _, _, _, err := readHeader(f); err != nil {
		return fmt.Errorf("mute %s: %w", path, err)
	}
	return nil
}

// normalize checks ranges and returns them sorted and merged.
func normalize(ranges []Range) ([]Range, error) {
	if len(ranges) > MaxRanges {
		return nil, fmt.Errorf("%d ranges, more than MaxRanges (%d)", len(ranges), MaxRanges)
	}
	rs := slices.Clone(ranges)
	for i, r := range rs {
		if r.From < 0 || r.To < r.From {
			return nil, fmt.Errorf("range %d: %v..%v is not a stretch of the recording", i, r.From, r.To)
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.From, b.From) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// readHeader reads src up to its first audio byte, keeping what it read
// (at most MaxHeaderBytes), and returns that, the format and the data.
func readHeader(src io.Reader) ([]byte, audio.Format, io.Reader, error) {
	var hdr bytes.Buffer
	lim := &io.LimitedReader{R: src, N: MaxHeaderBytes + 1}
	f, size, err := audio.ReadWAVHeader(io.TeeReader(lim, &hdr))
	if lim.N <= 0 {
		return nil, f, nil, fmt.Errorf("%w: the header (the chunks before the audio) is over MaxHeaderBytes (%d MiB)", ErrUnsupported, MaxHeaderBytes>>20)
	}
	if err != nil {
		if c := audio.Sniff(hdr.Bytes()); c != audio.ContainerWAV && c != audio.ContainerUnknown {
			return nil, f, nil, fmt.Errorf("%w: the source is %s", ErrUnsupported, c)
		}
		return nil, f, nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	var data io.Reader = src
	if size > 0 { // 0 and UnknownSize: to the end, as audio.Decode reads it
		data = io.LimitReader(src, size)
	}
	return hdr.Bytes(), f, data, nil
}

// frameRange is a range in frames: [from, to).
type frameRange struct{ from, to int64 }

// frameRanges converts sorted ranges to frames, each widened to every
// frame it touches.
func frameRanges(rs []Range, rate int) []frameRange {
	out := make([]frameRange, 0, len(rs))
	for _, r := range rs {
		from, _ := frameAt(r.From, rate)
		to, exact := frameAt(r.To, rate)
		if !exact {
			to++
		}
		if to > from {
			out = append(out, frameRange{from, to})
		}
	}
	return out
}

// frameAt is the frame d falls in at rate Hz, and whether d is exactly
// its start; no overflow for any Duration.
func frameAt(d time.Duration, rate int) (int64, bool) {
	sec, rem := int64(d/time.Second), int64(d%time.Second)
	frac := rem * int64(rate)
	return sec*int64(rate) + frac/int64(time.Second), frac%int64(time.Second) == 0
}

// muter overwrites the frames of its ranges in the data it copies.
type muter struct {
	f      audio.Format
	mode   Mode
	ranges []frameRange
	frame  int64 // the frame the next byte copied starts
	next   int   // the first range not yet wholly behind
	silent []byte
	beep   []float64
}

// copy streams data to dst in whole frames, muting those of the ranges;
// a partial frame at the end is copied as it is.
func (m *muter) copy(dst io.Writer, data io.Reader) error {
	align := m.f.BlockAlign()
	buf := make([]byte, max(1, (64<<10)/align)*align)
	m.silent = audio.AppendSamples(nil, m.f, make([]float64, m.f.Channels))
	m.beep = make([]float64, m.f.Channels)
	for {
		n, err := io.ReadFull(data, buf)
		whole := n - n%align
		m.mute(buf[:whole])
		if _, werr := dst.Write(buf[:n]); werr != nil {
			return fmt.Errorf("write audio: %w", werr)
		}
		m.frame += int64(whole / align)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read audio at frame %d: %w", m.frame, err)
		}
	}
}

// mute overwrites the frames of b (whole frames, starting at m.frame)
// that the ranges cover.
func (m *muter) mute(b []byte) {
	align := int64(m.f.BlockAlign())
	first, last := m.frame, m.frame+int64(len(b))/align
	for ; m.next < len(m.ranges); m.next++ {
		r := m.ranges[m.next]
		if r.from >= last {
			return
		}
		for i := max(r.from, first); i < min(r.to, last); i++ {
			m.write(b[(i-first)*align:(i-first+1)*align], i-r.from)
		}
		if r.to > last {
			return // the range goes on in the next buffer
		}
	}
}

// write replaces frame, the k-th of its range.
func (m *muter) write(frame []byte, k int64) {
	if m.mode == Silence {
		copy(frame, m.silent)
		return
	}
	hz := min(1000.0, float64(m.f.SampleRate)/4)
	v := beepLevel * math.Sin(2*math.Pi*hz*float64(k)/float64(m.f.SampleRate))
	for c := range m.beep {
		m.beep[c] = v
	}
	copy(frame, audio.AppendSamples(frame[:0], m.f, m.beep))
}
