package synth

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Speech faults (Options.TruncateRate and the rates after it): the text a
// faulted job renders is changed before rendering, so that the audio
// itself says the faulty text (espeak-ng speaks it, the synthetic voice
// shapes its envelope after it) and recognition of it reports the faulty
// words. Silence renders nothing for as long as the speech would last.

// fault draws the speech fault of a validated job of route and applies it
// to the job. A fault that cannot apply (a text of one word cannot lose
// its end) leaves the job clean.
func (s *service) fault(j *job, route string) {
	d := s.env.DrawSpeechFault(requestIdentity(j))
	if d.Kind == "" {
		return
	}
	parts, ok := faultParts(d.Kind, j.Parts, d.Rand)
	if !ok {
		return
	}
	if d.Kind == emu.FaultSilence {
		j.silent = true
	} else {
		j.Parts, j.Spoken = parts, spokenText(parts)
	}
	spoken := j.Spoken
	if j.silent {
		spoken = ""
	}
	j.fault = s.env.Stats.SpeechFault(emu.SpeechFault{Kind: d.Kind, Route: route, Requested: j.Text, Spoken: spoken,
		Request: d.Request, Occurrence: d.Occurrence})
}

// requestIdentity is everything of a job that makes its audio, written
// the same way each time.
func requestIdentity(j *job) string {
	var b []byte
	f := j.Format
	for _, s := range []string{j.Model, j.Voice, j.Embedding, j.Language, strconv.FormatFloat(j.Speed, 'g', -1, 64),
		f.Container, strconv.Itoa(f.Rate), strconv.Itoa(f.Channels), strconv.Itoa(f.Width), f.Bitrate, j.Text} {
		b = fmt.Appendf(b, "%d:%s", len(s), s)
	}
	return string(b)
}

// minLost is the fewest words a cut takes off. With a run of at least
// three replaced words, it keeps every applied fault beyond what one or
// two misheard words look like: the faults are the failures a listening
// check at its defaults must catch (listen.DefaultThresholds).
const minLost = 2

// minReplaced is the fewest words a replaced run has.
const minReplaced = 3

// faultParts returns the parts a fault of kind makes of parts, or false
// when it cannot apply (a cut that would keep no word or lose fewer than
// minLost).
func faultParts(kind string, parts []part, rng *rand.Rand) ([]part, bool) {
	ws := wordsOf(parts)
	keep := 0
	switch kind {
	case emu.FaultSilence:
		return parts, true
	case emu.FaultReplace:
		if len(ws) < minReplaced {
			return nil, false
		}
		out := replaceRun(parts, ws, rng)
		return out, spokenText(out) != spokenText(parts)
	case emu.FaultTruncate:
		start := lastSentence(parts, ws)
		keep = start + (len(ws)-start)/2
	case emu.FaultDropHalf:
		keep = len(ws) / 2
	}
	if keep < 1 || len(ws)-keep < minLost {
		return nil, false
	}
	return cutAfter(parts, ws[keep-1]), true
}

// wordAt is a word of a job's text: its part and byte range.
type wordAt struct{ part, start, end int }

// wordsOf returns the words of the text parts: runs of non-space.
func wordsOf(parts []part) []wordAt {
	var ws []wordAt
	for i, p := range parts {
		if p.Tag != "" {
			continue
		}
		start := -1
		for off, r := range p.Text {
			switch {
			case unicode.IsSpace(r) && start >= 0:
				ws = append(ws, wordAt{i, start, off})
				start = -1
			case !unicode.IsSpace(r) && start < 0:
				start = off
			}
		}
		if start >= 0 {
			ws = append(ws, wordAt{i, start, len(p.Text)})
		}
	}
	return ws
}

// lastSentence returns the index of the first word of the last sentence:
// the word after the last one (the final word aside) that ends a sentence.
func lastSentence(parts []part, ws []wordAt) int {
	for i := len(ws) - 2; i >= 0; i-- {
		w := parts[ws[i].part].Text[ws[i].start:ws[i].end]
		if r, _ := utf8.DecodeLastRuneInString(w); slices.Contains([]rune(".!?।॥|"), r) {
			return i + 1
		}
	}
	return 0
}

// cutAfter returns parts up to the end of word w: the rest is not spoken,
// tags included.
func cutAfter(parts []part, w wordAt) []part {
	out := slices.Clone(parts[:w.part])
	return append(out, part{Text: parts[w.part].Text[:w.end]})
}

// replaceRun replaces a run of 3 to 5 words (all of a text of 3 or 4)
// with other words of their script.
func replaceRun(parts []part, ws []wordAt, rng *rand.Rand) []part {
	out := slices.Clone(parts)
	if len(ws) == 0 {
		return out
	}
	k := min(len(ws), minReplaced+rng.IntN(3))
	first := rng.IntN(len(ws) - k + 1)
	// From the last word back, so that the byte ranges of the earlier
	// words of a part stay valid.
	for i := first + k - 1; i >= first; i-- {
		w := ws[i]
		t := out[w.part].Text
		out[w.part].Text = t[:w.start] + emu.Substitute(t[w.start:w.end], rng) + t[w.end:]
	}
	return out
}

// summer hashes the audio of a faulted synthesis as it is sent and
// records the sum once all of it was.
type summer struct {
	env   *emu.Env
	fault *emu.SpeechFault
	h     hash.Hash
}

func newSummer(env *emu.Env, fault *emu.SpeechFault) *summer {
	return &summer{env: env, fault: fault, h: sha256.New()}
}

func (s *summer) add(p []byte) { s.h.Write(p) }

// end records the sum: the audio was all read.
func (s *summer) end() {
	if s.fault != nil {
		s.env.Stats.SpeechFaultSent(s.fault, hex.EncodeToString(s.h.Sum(nil)))
		s.fault = nil
	}
}

// summedReader passes a reader through a summer.
type summedReader struct {
	r   io.Reader
	sum *summer
}

func (r *summedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.sum.add(p[:n])
	if err == io.EOF {
		r.sum.end()
	}
	return n, err
}

// silence is a source of zero samples.
type silence struct{ total, pos int64 }

func (s *silence) Total() int64 { return s.total }
func (s *silence) Close() error { return nil }
func (s *silence) Read(p []int16) (int, error) {
	if s.pos >= s.total {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.total-s.pos))
	clear(p[:n])
	s.pos += int64(n)
	return n, nil
}
