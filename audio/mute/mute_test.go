package mute_test

import (
	"bytes"
	"io"
	"math"
	"testing"
	"time"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/audio/internal/audiotest"
	"github.com/voxform/voxform/audio/loudness"
	"github.com/voxform/voxform/audio/mute"
)

// formats are every encoding Mute accepts, mono and stereo.
var formats = []audio.Format{
	{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.PCM},
	{SampleRate: 16000, Channels: 2, BitsPerSample: 16, Encoding: audio.PCM},
	{SampleRate: 48000, Channels: 2, BitsPerSample: 24, Encoding: audio.PCM},
	{SampleRate: 22050, Channels: 1, BitsPerSample: 32, Encoding: audio.PCM},
	{SampleRate: 44100, Channels: 2, BitsPerSample: 32, Encoding: audio.Float},
	{SampleRate: 16000, Channels: 1, BitsPerSample: 64, Encoding: audio.Float},
	{SampleRate: 8000, Channels: 2, BitsPerSample: 8, Encoding: audio.MuLaw},
	{SampleRate: 8000, Channels: 1, BitsPerSample: 8, Encoding: audio.ALaw},
}

// speechLike is secs seconds of a loud signal (-6 dBFS tones and a
// ramp), different on each channel, with no sample at zero.
func speechLike(f audio.Format, secs float64) []float64 {
	n := int(secs * float64(f.SampleRate))
	x := make([]float64, 0, n*f.Channels)
	for i := range n {
		t := float64(i) / float64(f.SampleRate)
		for c := range f.Channels {
			v := 0.35*math.Sin(2*math.Pi*(220+110*float64(c))*t) + 0.15*math.Sin(2*math.Pi*1370*t) + 0.01
			x = append(x, v)
		}
	}
	return x
}

// wavFile is a WAV file of f: a LIST chunk before the data, the data, and
// an odd-sized chunk after it, as recorders write them.
func wavFile(t *testing.T, f audio.Format, secs float64) (file []byte, dataAt, dataLen int) {
	t.Helper()
	var hdr bytes.Buffer
	data := audio.AppendSamples(nil, f, speechLike(f, secs))
	if err := audio.WriteWAVHeader(&hdr, f, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	h := hdr.Bytes()
	list := audiotest.Chunk("LIST", []byte("INFOISFT\x04\x00\x00\x00vox\x00"))
	// The header's chunks, the LIST chunk spliced in before "data".
	at := bytes.Index(h, []byte("data"))
	file = audiotest.Concat(h[:at], list, h[at:], data, audiotest.Chunk("cue ", []byte("tail!")))
	riff := uint32(len(file) - 8)
	file[4], file[5], file[6], file[7] = byte(riff), byte(riff>>8), byte(riff>>16), byte(riff>>24)
	return file, at + len(list) + 8, len(data)
}

// level is the true peak in dBTP of frames [from, to) of the decoded
// WAV file b, measured by audio/loudness's meter.
func level(t *testing.T, b []byte, from, to int64) float64 {
	t.Helper()
	d, err := audio.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	ch := d.Format.Channels
	var all []float64
	buf := make([]float64, 4096*ch)
	for {
		n, err := d.Samples.ReadSamples(buf)
		all = append(all, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := loudness.NewMeter(d.Format.SampleRate, ch)
	if err != nil {
		t.Fatal(err)
	}
	m.Write(all[from*int64(ch) : to*int64(ch)])
	return m.Loudness().TruePeak
}

// frames converts a time to a frame index at rate, rounding as asked.
func frames(d time.Duration, rate int, up bool) int64 {
	x := d.Seconds() * float64(rate)
	if up {
		return int64(math.Ceil(x - 1e-9))
	}
	return int64(math.Floor(x + 1e-9))
}

var ranges = []mute.Range{
	{From: 550 * time.Millisecond, To: 700 * time.Millisecond},
	{From: 100 * time.Millisecond, To: 250*time.Millisecond + 17*time.Microsecond}, // not on a frame
	{From: 600 * time.Millisecond, To: 800 * time.Millisecond},                     // overlaps the first
	{From: 5 * time.Second, To: 6 * time.Second},                                   // past the end
}

// merged are the ranges as muted: [from, to) in seconds.
var merged = [][2]time.Duration{{100 * time.Millisecond, 250*time.Millisecond + 17*time.Microsecond}, {550 * time.Millisecond, 800 * time.Millisecond}}

// The redacted copy of a recording in every encoding: the same length
// (so the same sample count), every byte outside the ranges the source's
// own, and below -60 dBFS inside each range (silence) or a -20 dBFS
// tone (beep).
func TestMuteEveryEncoding(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			src, dataAt, dataLen := wavFile(t, f, 1.2)
			for _, mode := range []mute.Mode{mute.Silence, mute.Beep} {
				var out bytes.Buffer
				if err := mute.Mute(&out, bytes.NewReader(src), ranges, mode); err != nil {
					t.Fatal(err)
				}
				got := out.Bytes()
				if len(got) != len(src) {
					t.Fatalf("%s: %d bytes, source %d", mode, len(got), len(src))
				}
				checkOutside(t, mode, f, src, got, dataAt, dataLen)
				for _, r := range merged {
					from, to := frames(r[0], f.SampleRate, false), frames(r[1], f.SampleRate, true)
					peak := level(t, got, from, to)
					switch {
					case mode == mute.Silence && peak >= -60:
						t.Errorf("silence: %v..%v peaks at %.1f dBTP, want below -60", r[0], r[1], peak)
					case mode == mute.Beep && math.Abs(peak+20) > 0.6:
						t.Errorf("beep: %v..%v peaks at %.1f dBTP, want -20", r[0], r[1], peak)
					}
					if before := level(t, src, from, to); before < -10 {
						t.Fatalf("the source is quiet in %v..%v (%.1f dBTP): the test proves nothing", r[0], r[1], before)
					}
				}
			}
		})
	}
}

// checkOutside compares every byte of got outside the muted frames with
// src.
func checkOutside(t *testing.T, mode mute.Mode, f audio.Format, src, got []byte, dataAt, dataLen int) {
	t.Helper()
	align := f.BlockAlign()
	inside := func(i int) bool {
		if i < dataAt || i >= dataAt+dataLen {
			return false
		}
		fr := int64((i - dataAt) / align)
		for _, r := range merged {
			if fr >= frames(r[0], f.SampleRate, false) && fr < frames(r[1], f.SampleRate, true) {
				return true
			}
		}
		return false
	}
	changed := 0
	for i := range src {
		switch {
		case inside(i):
			if src[i] != got[i] {
				changed++
			}
		case src[i] != got[i]:
			t.Fatalf("%s: byte %d changed outside the ranges (data %d..%d)", mode, i, dataAt, dataAt+dataLen)
		}
	}
	if changed == 0 {
		t.Errorf("%s: nothing changed inside the ranges", mode)
	}
}
