package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/listen"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/narration"
	"github.com/voxform/voxform/state"
)

// Check is the action of a resource whose outputs stay as they are but
// whose declared listening check is not recorded for its audio (listen:
// added, its language changed): the check is made, nothing synthesized
// unless it fails and regenerate allows.
const Check ActionType = "check"

// ListenRate is the sample rate of the audio a listening check sends at
// most: a recognizer hears speech at 16 kHz, and a file of 16-bit mono
// at that rate stays within a batch file's 10 MB for 312 s.
const ListenRate = 16000

// ListenSecondsPerChar bounds the audio a billed character of a text not
// yet synthesized makes, for pricing its check before the audio exists:
// 0.12 s is about 1.5 times the pace of slow Hindi speech at speed 1. A
// check is never sent for more audio than the plan priced.
const ListenSecondsPerChar = 0.12

// CheckRequest is the transcription request of a listening check.
type CheckRequest struct {
	API          string `json:"api"`
	LanguageCode string `json:"language_code"`
	// Format is the REST output format, always verbatim: the check
	// normalizes numbers itself (listen.Normalize), and batch jobs have
	// no ITN at all.
	Format string `json:"format,omitempty"`
	// Model is the batch job's model (contract.DefaultBatchModel).
	Model string `json:"model,omitempty"`
	// Rate is the rendition's sample rate: min(the output's, ListenRate).
	Rate int `json:"sample_rate"`
}

// NewCheckRequest is the request a check of seconds of audio at rate Hz
// in language code is made with; ok is false when no recognition API
// hears the language.
func NewCheckRequest(code string, seconds float64, rate int) (CheckRequest, bool) {
	api := contract.ListenAPI(code, seconds)
	r := CheckRequest{API: api, LanguageCode: code, Rate: min(rate, ListenRate)}
	switch api {
	case "":
		return r, false
	case contract.APIREST, contract.APIBatchLegacy:
		r.Format = "verbatim"
	case contract.APIBatch:
		r.Model = contract.DefaultBatchModel
	}
	return r, true
}

// CheckFingerprint identifies a check: the SHA-256 of the canonical JSON
// of {"kind": "listen", "request": {"audio_sha256": ..., and req's
// fields}}. The limits are not in it: the transcript is recorded, and
// other limits judge it again for free.
func CheckFingerprint(audioSHA256 string, req CheckRequest) string {
	m := map[string]any{"audio_sha256": audioSHA256, "api": req.API, "language_code": req.LanguageCode, "sample_rate": req.Rate}
	if req.Format != "" {
		m["format"] = req.Format
	}
	if req.Model != "" {
		m["model"] = req.Model
	}
	fp, err := Fingerprint("listen", m)
	if err != nil { // strings and an int always encode
		panic(err)
	}
	return fp
}

// ListenWork is what the listening checks of one action do and cost: an
// item is the audio sent whole, or a chunk of a split text.
type ListenWork struct {
	// Language is the recognition language, How why (contract.ListenLanguage).
	Language string `json:"language_code"`
	How      string `json:"language_from"`
	// Items are the checks declared; Recorded are recorded for the audio
	// the action keeps, Restored come from the cache (free), Make are
	// billed: AudioSeconds of audio, an upper bound when Estimated (the
	// audio is not made yet).
	Items        int     `json:"items"`
	Recorded     int     `json:"recorded,omitempty"`
	Restored     int     `json:"restored,omitempty"`
	Make         int     `json:"make"`
	AudioSeconds float64 `json:"audio_seconds"`
	Estimated    bool    `json:"estimated,omitempty"`
	// Regenerate is how many more takes a failing item gets; Worst is
	// what the action bills at worst: every pending item failing every
	// take (the action's Cost when Regenerate is 0).
	Regenerate int  `json:"regenerate,omitempty"`
	Worst      Cost `json:"worst_case"`
	// Failing names the recorded checks of the audio the action keeps
	// that fail at the limits declared now, and why: "chunk 12 of 30
	// (143.2 s): longest_run: ..." or "build/x.wav: cer: ...". A record
	// judged under other limits is judged again (on a copy) to say so.
	Failing []string `json:"failing,omitempty"`
}

// EstimatedSeconds is the upper bound of the audio a text of chars billed
// characters makes at speed (1 when 0), for pricing its check.
func EstimatedSeconds(chars int64, speed float64) float64 {
	if !(speed > 0) {
		speed = 1
	}
	return math.Ceil(float64(chars)*ListenSecondsPerChar/speed) + 1
}

// Judge judges heard (a check's transcript) against sent (the text sent,
// audio tags and all: they are removed here) under spec, and writes the
// verdict into l: Pass, the measures, the longest diverging run with its
// start (proportional to its first word in l.Seconds when the service
// gave no timings), the failures and Judged. It is the one place a
// transcript is judged: apply, verify and the report call it.
func Judge(l *state.Listen, sent string, spec *manifest.Listen) error {
	r, err := listen.Check(narration.Spoken(sent), l.Heard, spec.Thresholds)
	if err != nil {
		return err
	}
	l.Pass, l.Judged = r.Pass, spec.Hash
	l.CER, l.WER = state.RoundRate(r.CER), state.RoundRate(r.WER)
	l.LongestRun, l.MissingTail = r.LongestRun.Words(), r.MissingTail
	l.Failures = nil
	for _, f := range r.Failures[:min(len(r.Failures), 8)] {
		l.Failures = append(l.Failures, clipTo(f, maxFailureLine))
	}
	l.Span = nil
	if s := r.LongestRun; s.Words() > 0 {
		start := 0.0
		if r.RefWords > 0 {
			start = l.Seconds * float64(s.RefStart) / float64(r.RefWords)
		}
		l.Span = &state.ListenSpan{From: s.RefStart, To: s.RefEnd, Sent: clip(s.SentText), Heard: clip(s.HeardText), Start: math.Round(start*10) / 10}
	}
	return nil
}

// maxFailureLine bounds each recorded failure line, in bytes: it quotes
// the diverging words, which can be a whole chunk's.
const maxFailureLine = 400

// clip bounds a span's text as the state keeps it.
func clip(s string) string { return clipTo(s, 1024) }

// clipTo cuts s to at most most bytes, at a character boundary, marking
// the cut with an ellipsis.
func clipTo(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Seam is the boundary between chunk Index and Index+1 of a joined
// output: At seconds into it, the loudness Step between the two chunks
// (LU; NaN when either is silent) and the silence Gap across it.
type Seam struct {
	Index    int      `json:"index"`
	At       float64  `json:"at_seconds"`
	Step     float64  `json:"step_lu"`
	Gap      float64  `json:"gap_seconds"`
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`
}

// Seams judges every boundary of a joined output from its chunk records
// against limits. Chunks recorded without their measures (a state of an
// older voxform) give no seams.
func Seams(chunks []state.ChunkRecord, limits manifest.Seams) []Seam {
	var out []Seam
	for i := 0; i+1 < len(chunks); i++ {
		a, b := &chunks[i], &chunks[i+1]
		if a.Loudness == nil || b.Loudness == nil {
			return nil
		}
		s := Seam{Index: i, At: a.End, Step: math.NaN(), Gap: round2(a.Tail + b.Lead), Pass: true}
		if a.Loudness.Integrated != nil && b.Loudness.Integrated != nil {
			s.Step = round2(math.Abs(*b.Loudness.Integrated - *a.Loudness.Integrated))
			if s.Step > limits.MaxStep {
				s.fail("step %.2f LU > %g LU", s.Step, limits.MaxStep)
			}
		}
		if g := s.Gap; g > limits.MaxGap.Seconds() || g < limits.MinGap.Seconds() {
			s.fail("gap %.2f s outside %g-%g s", g, limits.MinGap.Seconds(), limits.MaxGap.Seconds())
		}
		out = append(out, s)
	}
	return out
}

func (s *Seam) fail(format string, args ...any) {
	s.Pass = false
	s.Failures = append(s.Failures, fmt.Sprintf(format, args...))
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// ChunkName names chunk i of n for a reader: "chunk 12 of 30".
func ChunkName(i, n int) string { return fmt.Sprintf("chunk %d of %d", i+1, n) }

// Placed is l, a chunk's check, with its diverging run placed in the
// joined output, the chunk starting at start seconds (the record keeps
// it in the chunk's own audio): how plan, apply, verify and the report
// give it.
func Placed(l *state.Listen, start float64) *state.Listen {
	if l.Span == nil || start == 0 {
		return l
	}
	cp, span := *l, *l.Span
	span.Start += start
	cp.Span = &span
	return &cp
}

// FailureLine is one line saying why a recorded check fails, with where
// the longest diverging run starts: "longest_run: 4 words over 2: sent
// "…" (words 12 to 15), heard "…" (at 151.0 s)". The run's words are
// named once: by its own failure when it fails, else after the others.
func FailureLine(l *state.Listen) string {
	s := l.Span
	parts := make([]string, len(l.Failures))
	named := false
	for i, f := range l.Failures {
		parts[i] = f
		if s != nil && strings.HasPrefix(f, listen.MeasureLongestRun+": ") {
			parts[i], named = fmt.Sprintf("%s (at %.1f s)", f, s.Start), true
		}
	}
	why := strings.Join(parts, "; ")
	if s != nil && !named {
		why += fmt.Sprintf("; the longest diverging run at %.1f s: sent %q, heard %q", s.Start, s.Sent, s.Heard)
	}
	return why
}
