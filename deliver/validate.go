package deliver

import (
	"fmt"
	"slices"
)

// Problem is one thing wrong with a profile: Field names it as the
// manifest writes it ("encoding.sample_rate", "loudness.target").
type Problem struct {
	Field   string
	Message string
}

func (p Problem) Error() string { return p.Field + ": " + p.Message }

// Limits of a profile's numbers.
const (
	MinLevel      = -70.0 // dB: the lowest target, ceiling or tone
	MaxPadSeconds = 60.0  // the longest head or tail
	MaxProfileSec = 24 * 3600.0
)

// codecs says which codecs each container holds, and at which rates.
var codecs = map[string]map[string][]int{
	ContainerWAV: {
		CodecPCM16: {8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000},
		CodecPCM24: {8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000},
		CodecMuLaw: {8000},
		CodecALaw:  {8000},
	},
	ContainerMP3: {CodecMP3: {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}},
	ContainerMP4: {CodecAAC: {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}},
	ContainerOgg: {CodecOpus: {OpusRate}}, // see rateNote
}

// OpusRate is the one rate an Opus profile takes: an Opus stream is
// decoded, and so measured, at it whatever rate it was encoded from.
const OpusRate = 48000

// rateNote says why a codec takes only the rates it does, where that is
// not the codec's own list.
var rateNote = map[string]string{
	CodecOpus: ": an Opus stream is decoded, and so measured, at 48000 Hz whatever rate it was encoded from",
}

// Validate returns every problem of p, in a fixed order; none for a
// profile mastering can deliver.
func Validate(p *Profile) []Problem {
	var ps []Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	e := p.Encoding
	rates, ok := codecs[e.Container][e.Codec]
	switch {
	case codecs[e.Container] == nil:
		add("encoding.container", "%q is not one of wav, mp3, mp4, ogg", e.Container)
	case !ok:
		add("encoding.codec", "%q is not a codec of the %s container (%s)", e.Codec, e.Container, codecList(e.Container))
	case !slices.Contains(rates, e.SampleRate):
		add("encoding.sample_rate", "%d Hz is not a rate %s takes (%v)%s", e.SampleRate, e.Codec, rates, rateNote[e.Codec])
	}
	if e.Channels != 1 && e.Channels != 2 {
		add("encoding.channels", "%d: want 1 or 2", e.Channels)
	}
	pcm := e.Container == ContainerWAV
	switch {
	case pcm && (e.BitrateMode != "" || e.Bitrate != 0):
		add("encoding.bitrate", "PCM has no bit rate to choose")
	case !pcm && e.BitrateMode != CBR && e.BitrateMode != VBR:
		add("encoding.bitrate_mode", "%q: want cbr or vbr", e.BitrateMode)
	case !pcm && (e.Bitrate < 6000 || e.Bitrate > 320000):
		add("encoding.bitrate", "%d bit/s is outside 6 to 320 kbps", e.Bitrate)
	case e.Codec == CodecAAC && e.BitrateMode == CBR:
		add("encoding.bitrate_mode", "aac has no constant bit rate (its encoder aims at an average): want vbr")
	}
	if l := p.Loudness; l != nil {
		if l.Measure != LUFS && l.Measure != RMS {
			add("loudness.measure", "%q: want lufs or rms", l.Measure)
		}
		if l.Min > l.Target || l.Target > l.Max || l.Min < MinLevel || l.Max > 0 {
			add("loudness.target", "%g must lie within %g to %g, inside %g to 0", l.Target, l.Min, l.Max, MinLevel)
		}
	}
	if c := p.Peak; c != nil {
		if c.Measure != TruePeak && c.Measure != SamplePeak {
			add("peak.measure", "%q: want true or sample", c.Measure)
		}
		if c.Max < MinLevel || c.Max > 0 {
			add("peak.max", "%g dB is outside %g to 0", c.Max, MinLevel)
		}
		if l := p.Loudness; l != nil && l.Min >= c.Max {
			add("peak.max", "%g dB is below the loudness range's floor %g", c.Max, l.Min)
		}
	}
	if n := p.NoiseFloor; n != nil && (*n < MinLevel-30 || *n > 0) {
		add("noise_floor", "%g dB is outside %g to 0", *n, MinLevel-30)
	}
	validatePad(add, "head", p.Head, p.NoiseFloor)
	validatePad(add, "tail", p.Tail, p.NoiseFloor)
	if p.MaxSeconds < 0 || p.MaxSeconds > MaxProfileSec {
		add("max_duration", "%g s is outside 0 to %g s", p.MaxSeconds, MaxProfileSec)
	}
	if p.MaxBytes < 0 {
		add("max_size", "%d bytes is negative", p.MaxBytes)
	}
	return ps
}

func validatePad(add func(string, string, ...any), field string, p *Pad, floor *float64) {
	if p == nil {
		return
	}
	if p.Min < 0 || p.Min > p.Seconds || p.Seconds > p.Max || p.Max > MaxPadSeconds {
		add(field+".seconds", "%g s must lie within %g to %g s, inside 0 to %g s", p.Seconds, p.Min, p.Max, MaxPadSeconds)
	}
	if t := p.Tone; t != nil {
		switch {
		case *t < MinLevel-30 || *t >= HeadTailThreshold:
			add(field+".tone", "%g dB is outside %g to %g (room tone lies below the silence threshold)", *t, MinLevel-30, HeadTailThreshold)
		case floor != nil && *t > *floor:
			add(field+".tone", "%g dB is above the noise floor ceiling %g dB", *t, *floor)
		}
	}
}

func codecList(container string) string {
	var names []string
	for c := range codecs[container] {
		names = append(names, c)
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}
