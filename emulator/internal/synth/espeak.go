package synth

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"unicode"

	"github.com/voxform/voxform/audio"
)

// espeakRate is the sample rate espeak-ng writes.
const espeakRate = 22050

// espeakVoice maps a request language to an espeak-ng voice. "auto",
// "hi-en", IND-IN and vc-v1 without a language are detected from the
// script of the text.
func espeakVoice(language, text string) string {
	switch language {
	case "en-IN":
		return "en-gb"
	case "hi-IN", "hi-en":
		return "hi"
	case "ta-IN", "te-IN", "kn-IN", "ml-IN", "mr-IN", "pa-IN", "bn-IN", "gu-IN":
		return strings.TrimSuffix(language, "-IN")
	}
	return scriptVoice(text)
}

// scriptVoice picks the voice of the most frequent script in text.
func scriptVoice(text string) string {
	scripts := []struct {
		table *unicode.RangeTable
		voice string
	}{
		{unicode.Devanagari, "hi"}, {unicode.Tamil, "ta"}, {unicode.Telugu, "te"},
		{unicode.Kannada, "kn"}, {unicode.Malayalam, "ml"}, {unicode.Gurmukhi, "pa"},
		{unicode.Bengali, "bn"}, {unicode.Gujarati, "gu"},
	}
	best, bestN := "en-gb", 0
	for _, s := range scripts {
		n := 0
		for _, r := range text {
			if unicode.Is(s.table, r) {
				n++
			}
		}
		if n > bestN {
			best, bestN = s.voice, n
		}
	}
	return best
}

// ssml renders the job's parts as the SSML subset espeak-ng reads (-m):
// <pauses> and the sound tags become breaks, delivery tags prosody.
func ssml(parts []part) string {
	var b strings.Builder
	b.WriteString("<speak>")
	open := false
	closeStyle := func() {
		if open {
			b.WriteString("</prosody>")
			open = false
		}
	}
	for _, p := range parts {
		if p.Tag == "" {
			b.WriteString(html.EscapeString(p.Text))
			continue
		}
		closeStyle()
		switch tags[p.Tag] {
		case tagSilence:
			fmt.Fprintf(&b, `<break time="%dms"/>`, int(pauseSeconds*1000))
		case tagEvent:
			fmt.Fprintf(&b, `<break time="%dms"/>`, int(eventSeconds*1000))
		case tagStyle:
			b.WriteString(map[string]string{
				"whispers": `<prosody volume="x-soft">`,
				"shouting": `<prosody volume="x-loud" pitch="high">`,
				"excited":  `<prosody pitch="high" rate="fast">`,
				"slow":     `<prosody rate="slow">`,
			}[p.Tag])
			open = true
		}
	}
	closeStyle()
	b.WriteString("</speak>")
	return b.String()
}

// espeakSource runs espeak-ng for a job and yields its speech resampled to
// rate, as a stream.
type espeakSource struct {
	cmd  *exec.Cmd
	out  io.ReadCloser
	rs   audio.SampleSource
	buf  []float64
	done bool
}

func startEspeak(ctx context.Context, path string, j *job, rate int) (*espeakSource, error) {
	f0, _ := voiceIdentity(j)
	pitch := int(20 + (f0-100)/150*60)
	args := []string{"-m", "--stdout", "-v", espeakVoice(j.Language, j.Spoken),
		"-s", strconv.Itoa(int(175 * j.Speed)), "-p", strconv.Itoa(pitch)}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader(ssml(j.Parts))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("espeak-ng: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start espeak-ng: %w", err)
	}
	s := &espeakSource{cmd: cmd, out: out}
	f, _, err := audio.ReadWAVHeader(out)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("espeak-ng output: %w (%s)", err, strings.TrimSpace(stderr.String()))
	}
	sr, err := audio.NewSampleReader(out, f)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.rs, err = audio.NewResampler(audio.Mono(sr), f.SampleRate, rate)
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Read fills p with 16-bit samples.
func (s *espeakSource) Read(p []int16) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	if cap(s.buf) < len(p) {
		s.buf = make([]float64, len(p))
	}
	n, err := s.rs.ReadSamples(s.buf[:len(p)])
	for i := 0; i < n; i++ {
		p[i] = toInt16(s.buf[i])
	}
	if err == io.EOF {
		s.done = true
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
	return n, err
}

// Close stops espeak-ng.
func (s *espeakSource) Close() error {
	s.out.Close()
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
	return nil
}

func toInt16(v float64) int16 {
	v = max(-1, min(1, v)) * 32767
	if v < 0 {
		return int16(v - 0.5)
	}
	return int16(v + 0.5)
}
