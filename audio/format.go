package audio

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Encoding says how one sample is stored.
type Encoding int

const (
	// PCM is linear integer PCM: signed little-endian for 16, 24 and 32
	// bits, unsigned for 8 bits (the WAV rule for 8-bit data).
	PCM Encoding = iota
	// Float is IEEE 754 little-endian floating point, 32 or 64 bits.
	Float
	// MuLaw is ITU-T G.711 mu-law, 8 bits per sample.
	MuLaw
	// ALaw is ITU-T G.711 A-law, 8 bits per sample.
	ALaw
)

// String returns the codec name voxform uses for the encoding in Info.Codec.
func (e Encoding) String() string {
	switch e {
	case PCM:
		return "pcm"
	case Float:
		return "float"
	case MuLaw:
		return "mulaw"
	case ALaw:
		return "alaw"
	}
	return fmt.Sprintf("encoding(%d)", int(e))
}

// Format describes uncompressed audio: interleaved frames of Channels
// samples, each BitsPerSample bits wide, SampleRate frames per second.
type Format struct {
	SampleRate    int
	Channels      int
	BitsPerSample int
	Encoding      Encoding
}

// Limits a Format must stay within. WAV allows more; nothing voxform meets
// needs more, and the bounds keep arithmetic on sizes far from overflow.
const (
	MinSampleRate = 1000
	MaxSampleRate = 384000
	MaxChannels   = 32
)

// ErrFormat is wrapped by every error about an unsupported or inconsistent Format.
var ErrFormat = errors.New("unsupported audio format")

// Validate reports whether f is a format this package can read and write.
func (f Format) Validate() error {
	if f.SampleRate < MinSampleRate || f.SampleRate > MaxSampleRate {
		return fmt.Errorf("%w: sample rate %d Hz outside %d..%d", ErrFormat, f.SampleRate, MinSampleRate, MaxSampleRate)
	}
	if f.Channels < 1 || f.Channels > MaxChannels {
		return fmt.Errorf("%w: %d channels outside 1..%d", ErrFormat, f.Channels, MaxChannels)
	}
	switch f.Encoding {
	case PCM:
		switch f.BitsPerSample {
		case 8, 16, 24, 32:
			return nil
		}
	case Float:
		if f.BitsPerSample == 32 || f.BitsPerSample == 64 {
			return nil
		}
	case MuLaw, ALaw:
		if f.BitsPerSample == 8 {
			return nil
		}
	default:
		return fmt.Errorf("%w: unknown encoding %d", ErrFormat, int(f.Encoding))
	}
	return fmt.Errorf("%w: %d-bit %s", ErrFormat, f.BitsPerSample, f.Encoding)
}

// BytesPerSample is the size of one sample of one channel.
func (f Format) BytesPerSample() int { return (f.BitsPerSample + 7) / 8 }

// BlockAlign is the size of one frame (one sample of every channel).
func (f Format) BlockAlign() int { return f.BytesPerSample() * f.Channels }

// ByteRate is the number of bytes of one second of audio.
func (f Format) ByteRate() int { return f.BlockAlign() * f.SampleRate }

// Duration is how long n bytes of audio in format f play. Partial trailing
// frames do not count.
func (f Format) Duration(n int64) time.Duration {
	if f.BlockAlign() <= 0 || f.SampleRate <= 0 || n <= 0 {
		return 0
	}
	frames := n / int64(f.BlockAlign())
	return FramesDuration(frames, f.SampleRate)
}

// FramesDuration is how long frames frames play at rate Hz, rounded to the
// nearest nanosecond, without overflowing for any realistic length.
func FramesDuration(frames int64, rate int) time.Duration {
	if rate <= 0 || frames <= 0 {
		return 0
	}
	r := int64(rate)
	sec := frames / r
	if sec >= math.MaxInt64/int64(time.Second)-1 {
		return time.Duration(math.MaxInt64)
	}
	rem := frames % r
	return time.Duration(sec)*time.Second + time.Duration((rem*int64(time.Second)+r/2)/r)
}

// String renders f as e.g. "16000 Hz, 1 ch, 16-bit pcm".
func (f Format) String() string {
	return fmt.Sprintf("%d Hz, %d ch, %d-bit %s", f.SampleRate, f.Channels, f.BitsPerSample, f.Encoding)
}
