package recog

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// segment is one time-aligned piece of a transcript.
type segment struct {
	Start, End float64
	Text       string
	Speaker    int
}

// maxSegmentWords bounds a segment; longer sentences are cut.
const maxSegmentWords = 14

var sentenceEnd = regexp.MustCompile(`[^.!?।|]+[.!?।|]*`)

// segments returns the transcript of the audio in lang as segments spread
// over its duration: the text spoken when the emulator synthesized the
// audio, else a deterministic placeholder. With several speakers the
// speaker changes from segment to segment, in turn (diarization,
// multi-channel). Audio heard channel by channel (Islands) has its turns'
// segments, in time order, each turn's speaker its channel modulo
// byChannel when that is set (is_multi_channel), else modulo speakers
// (diarization tells the parties' voices apart), else 0.
func (a *analysis) segments(lang string, speakers, byChannel int) []segment {
	if len(a.Islands) > 0 {
		return a.islandSegments(lang, speakers, byChannel)
	}
	if a.Silent || a.Tone || a.Size == 0 {
		return nil
	}
	var pieces []string
	if a.Known {
		pieces = splitText(a.Spoken.Text)
	} else {
		pieces = placeholder(lang, a.Seconds, a.Seed)
	}
	segs := spread(inScript(lang, pieces), 0, a.Seconds)
	if speakers >= 2 {
		for i := range segs {
			segs[i].Speaker = i % speakers
		}
	}
	return segs
}

// islandSegments returns the segments of each island, in time order.
func (a *analysis) islandSegments(lang string, speakers, byChannel int) []segment {
	var segs []segment
	for _, is := range a.Islands {
		var pieces []string
		if is.Known {
			pieces = splitText(is.Spoken.Text)
		} else {
			pieces = placeholder(lang, is.End-is.Start, is.Seed)
		}
		sp := 0
		switch {
		case byChannel > 0:
			sp = is.Channel % byChannel
		case speakers >= 2:
			sp = is.Channel % speakers
		}
		for _, sg := range spread(inScript(lang, pieces), is.Start, is.End) {
			sg.Speaker = sp
			segs = append(segs, sg)
		}
	}
	return segs
}

// spread gives each piece a share of [from, to] by its length in
// characters.
func spread(pieces []string, from, to float64) []segment {
	total := 0
	for _, p := range pieces {
		total += utf8.RuneCountInString(p)
	}
	if total == 0 {
		return nil
	}
	segs := make([]segment, 0, len(pieces))
	done := 0
	for _, p := range pieces {
		start := round3(from + (to-from)*float64(done)/float64(total))
		done += utf8.RuneCountInString(p)
		end := round3(from + (to-from)*float64(done)/float64(total))
		segs = append(segs, segment{Start: start, End: end, Text: p})
	}
	return segs
}

// inScript writes pieces of text as lang answers them: en-IN in Latin
// script.
func inScript(lang string, pieces []string) []string {
	if strings.HasPrefix(lang, "en") {
		for i, p := range pieces {
			if hasDevanagari(p) {
				pieces[i] = romanize(p)
			}
		}
	}
	return pieces
}

// fullText joins segment texts.
func fullText(segs []segment) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = s.Text
	}
	return strings.Join(parts, " ")
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// splitText cuts text into sentences, and sentences of more than
// maxSegmentWords words into pieces.
func splitText(text string) []string {
	var out []string
	for _, s := range sentenceEnd.FindAllString(text, -1) {
		words := strings.Fields(s)
		for len(words) > 0 {
			n := min(len(words), maxSegmentWords)
			out = append(out, strings.Join(words[:n], " "))
			words = words[n:]
		}
	}
	return out
}

// placeholder makes about 2.2 words a second of deterministic text from the
// language's vocabulary, in sentences of 6 to 12 words.
func placeholder(lang string, seconds float64, seed uint64) []string {
	vocab := emu.WordsFor(lang)
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	n := max(1, int(seconds*2.2))
	stop := "."
	if b, _, _ := strings.Cut(lang, "-"); b == "hi" || b == "mr" {
		stop = "।"
	}
	var out []string
	for n > 0 {
		k := min(n, 6+rng.IntN(7))
		words := make([]string, k)
		for i := range words {
			words[i] = vocab[rng.IntN(len(vocab))]
		}
		r, size := utf8.DecodeRuneInString(words[0])
		words[0] = string(unicode.ToUpper(r)) + words[0][size:]
		out = append(out, strings.Join(words, " ")+stop)
		n -= k
	}
	return out
}
