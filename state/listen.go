package state

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Listen is the record of a listening check (issue 27): what the audio of
// an output or a chunk was heard to say when it was transcribed back, and
// the verdict against the limits it was judged under. It is recorded on
// the output (Output.Listen) of a synthesis sent whole, and on each chunk
// (ChunkRecord.Listen) of one that is split. Heard comes from the service
// (or a cache entry another machine wrote): it is bounded by Check and
// shown only as untrusted text.
type Listen struct {
	// Fingerprint identifies the check: the audio's SHA-256 and the
	// transcription request (planner.CheckFingerprint). A check with the
	// same fingerprint is never made again.
	Fingerprint string `json:"fingerprint"`
	// API and LanguageCode are the recognition request's (rest, batch).
	API          string `json:"api"`
	LanguageCode string `json:"language_code"`
	// Rate is the sample rate of the audio sent (planner.CheckRequest).
	Rate int `json:"sample_rate"`
	// Seconds is the audio sent: what the check billed.
	Seconds float64 `json:"seconds"`
	// Heard is the transcript, the API key redacted; at most MaxHeard bytes.
	Heard string `json:"heard"`
	// Status is "" for a check made, CheckPending while its batch job
	// runs (the job is the resource's JobID; Name its file there).
	Status string `json:"status,omitempty"`
	Name   string `json:"name,omitempty"`
	// Pass is the verdict under the limits named by Judged.
	Pass bool `json:"pass"`
	// CER and WER are the character and word error rates (rounded to
	// 0.001); LongestRun the longest run of diverging words; MissingTail
	// the words at the end of the text not heard.
	CER         float64 `json:"cer"`
	WER         float64 `json:"wer"`
	LongestRun  int     `json:"longest_run"`
	MissingTail int     `json:"missing_tail"`
	// Span is the longest diverging run; nil when nothing diverges.
	Span *ListenSpan `json:"span,omitempty"`
	// Failures says why the verdict fails, one line per failing measure.
	Failures []string `json:"failures,omitempty"`
	// Judged is the hash of the limits of the verdict (manifest.Listen's
	// Hash): a record judged under other limits is judged again from Heard,
	// for free.
	Judged string `json:"judged"`
	// Takes is how many takes the apply that recorded the output made of
	// it (1, or absent: the first passed or no regeneration was asked).
	Takes int `json:"takes,omitempty"`
}

// ListenSpan is a run of diverging words: words [From, To) of the text
// sent, heard as Heard. Start is where the run begins in the output's
// audio, in seconds (estimated when the service gives no timings).
type ListenSpan struct {
	From  int     `json:"from"`
	To    int     `json:"to"`
	Sent  string  `json:"sent"`
	Heard string  `json:"heard"`
	Start float64 `json:"start_seconds"`
}

// CheckPending is the Status of a check whose batch job has not ended.
const CheckPending = "pending"

// Bounds of a listening record.
const (
	// MaxHeard bounds a recorded transcript (a chunk says a few kB).
	MaxHeard = 256 << 10
	// MaxTakes bounds a recorded take count.
	MaxTakes = 100
	// maxFailures bounds the recorded failure lines.
	maxFailures = 8
)

// RoundRate rounds an error rate to the 0.001 the state keeps.
func RoundRate(v float64) float64 { return math.Round(v*1000) / 1000 }

// Check refuses a listening record that no honest check writes. A nil
// record is fine.
func (l *Listen) Check() error {
	if l == nil {
		return nil
	}
	for _, f := range []struct{ name, v string }{{"api", l.API}, {"language_code", l.LanguageCode}, {"fingerprint", l.Fingerprint}, {"judged", l.Judged}, {"status", l.Status}, {"name", l.Name}} {
		if err := CheckLabel(f.name, f.v); err != nil {
			return err
		}
	}
	if err := checkText("heard", l.Heard); err != nil {
		return err
	}
	if err := checkSeconds("seconds", l.Seconds); err != nil {
		return err
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"cer", l.CER}, {"wer", l.WER}} {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("%s: %g, not a rate from 0 to 1", r.name, r.v)
		}
	}
	if l.Rate < 0 || l.Rate > 1_000_000 {
		return fmt.Errorf("sample_rate: %d, not between 0 and 1000000", l.Rate)
	}
	if l.LongestRun < 0 || l.MissingTail < 0 || l.Takes < 0 || l.Takes > MaxTakes {
		return fmt.Errorf("longest_run, missing_tail or takes: out of range (%d, %d, %d; takes at most %d)", l.LongestRun, l.MissingTail, l.Takes, MaxTakes)
	}
	if len(l.Failures) > maxFailures {
		return fmt.Errorf("failures: %d lines, more than the limit of %d", len(l.Failures), maxFailures)
	}
	for _, f := range l.Failures {
		if err := checkText("failures", f); err != nil {
			return err
		}
	}
	if s := l.Span; s != nil {
		if s.From < 0 || s.To < s.From {
			return fmt.Errorf("span: words %d to %d", s.From, s.To)
		}
		if err := checkSeconds("span.start_seconds", s.Start); err != nil {
			return err
		}
		for _, t := range []struct{ name, v string }{{"span.sent", s.Sent}, {"span.heard", s.Heard}} {
			if err := checkText(t.name, t.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkText refuses a recorded text over MaxHeard bytes or not UTF-8.
func checkText(field, s string) error {
	if len(s) > MaxHeard {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d", field, len(s), MaxHeard)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not UTF-8", field)
	}
	return nil
}
