package recog

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator/internal/emu"
)

// analysis is what the emulator learns from one audio file: enough to
// validate it against the documented limits and to produce its transcript.
type analysis struct {
	Container      string // sniffed container, e.g. "wav"
	Rate, Channels int    // 0 when neither decoded nor probed
	Seconds        float64
	Decoded        bool
	Silent, Tone   bool // no speech: nothing, or a steady tone
	Known          bool // the emulator synthesized this audio
	Spoken         emu.Spoken
	// Islands are the turns heard on each channel of multi-channel audio
	// that is not known as a whole, merged by start time: set when at
	// least one of them is audio the emulator synthesized (islands.go).
	Islands []island
	Seed    uint64 // from the content hash, for placeholder text
	Size    int64
}

// bytesPerSecondGuess estimates the duration of audio the emulator cannot
// decode (ogg, flac, aac, m4a): 128 kbit/s.
const bytesPerSecondGuess = 16000

// analyze reads an audio file: its hash, container, format, duration and
// energy envelope, and looks the envelope up among the audio the emulator
// synthesized.
func analyze(env *emu.Env, r io.ReadSeeker) (*analysis, error) {
	h := sha256.New()
	size, err := io.Copy(h, r)
	if err != nil {
		return nil, fmt.Errorf("read audio: %w", err)
	}
	a := &analysis{Size: size, Seed: binary.BigEndian.Uint64(h.Sum(nil))}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read audio: %w", err)
	}
	head := make([]byte, 64)
	n, _ := io.ReadFull(r, head)
	a.Container = sniff(head[:n])
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read audio: %w", err)
	}
	if size == 0 {
		return a, nil
	}
	d, err := decodeAudio(r, a.Container)
	if err != nil {
		a.probe(r)
		return a, nil
	}
	a.Decoded, a.Rate, a.Channels = true, d.rate, d.channels
	fe, chans, frames, err := envelopes(d)
	if err != nil {
		a.Decoded = false
		a.probe(r)
		return a, nil
	}
	a.Seconds = math.Max(float64(frames)/float64(d.rate), d.declared)
	a.Spoken, a.Known = fe.lookup(env)
	if !a.Known && len(chans) > 0 {
		a.hearChannels(env, chans)
	}
	if !a.Known && len(a.Islands) == 0 {
		a.Silent, a.Tone = noSpeech(fe.at(0))
	}
	return a, nil
}

// probe fills the format and duration of audio the emulator cannot decode
// (Ogg, FLAC, AAC, M4A) from its headers, or guesses the duration from the
// size at 128 kbit/s.
func (a *analysis) probe(r io.ReadSeeker) {
	a.Seconds = float64(a.Size) / bytesPerSecondGuess
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return
	}
	info, err := audio.ProbeReader(r)
	if err != nil || info.Duration <= 0 {
		return
	}
	a.Seconds, a.Rate, a.Channels = info.Duration.Seconds(), info.SampleRate, info.Channels
}

// envelopes reads all of d and returns the energy envelope of its
// downmix to mono, that of each channel when it has 2 to
// maxIslandChannels, and the number of frames.
func envelopes(d *decoded) (*fineEnvelope, []*fineEnvelope, int64, error) {
	e := newFineEnvelope(d.rate)
	ch := max(1, d.samples.Channels())
	var chans []*fineEnvelope
	if ch >= 2 && ch <= maxIslandChannels {
		for range ch {
			chans = append(chans, newFineEnvelope(d.rate))
		}
	}
	buf := make([]float64, 4096*ch)
	var frames int64
	for {
		n, err := d.samples.ReadSamples(buf)
		for i := 0; i+ch <= n; i += ch {
			sum := 0.0
			for c, s := range buf[i : i+ch] {
				sum += s
				if chans != nil {
					chans[c].Add(s)
				}
			}
			e.Add(sum / float64(ch)) // as audio.Mono downmixes
		}
		frames += int64(n / ch)
		if err == io.EOF {
			return e, chans, frames, nil
		}
		if err != nil {
			return nil, nil, frames, err
		}
	}
}

// noSpeech tells silence (peak window under -60 dBFS) and a steady tone
// (the envelope of the middle of the audio varies by less than 8 %) from
// speech.
func noSpeech(env []float32) (silent, tone bool) {
	var peak float64
	for _, v := range env {
		peak = math.Max(peak, float64(v))
	}
	if peak < 0.001 {
		return true, false
	}
	if len(env) < 10 {
		return false, false
	}
	mid := env[len(env)/10 : len(env)-len(env)/10]
	var sum, sq float64
	for _, v := range mid {
		sum += float64(v)
	}
	mean := sum / float64(len(mid))
	for _, v := range mid {
		sq += (float64(v) - mean) * (float64(v) - mean)
	}
	return false, mean > 0 && math.Sqrt(sq/float64(len(mid)))/mean < 0.08
}

// sniff names the container from the first bytes of a file.
func sniff(b []byte) string {
	has := func(off int, s string) bool { return len(b) >= off+len(s) && string(b[off:off+len(s)]) == s }
	switch {
	case has(0, "RIFF") && has(8, "WAVE"):
		return "wav"
	case has(0, "ID3"), len(b) >= 2 && b[0] == 0xFF && b[1]&0xE6 == 0xE2:
		return "mp3"
	case has(0, "OggS"):
		if has(28, "OpusHead") {
			return "opus"
		}
		return "ogg"
	case has(0, "fLaC"):
		return "flac"
	case has(4, "ftyp"):
		return "m4a"
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0:
		return "aac"
	case has(0, "\x1a\x45\xdf\xa3"):
		return "webm"
	case has(0, "#!AMR"):
		return "amr"
	}
	return "unknown"
}
