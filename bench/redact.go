package main

import (
	"context"
	"fmt"
	"time"

	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/redact/corpus"
)

// redaction measures issue 29's detectors on a generated corpus of call
// utterances with known entities and look-alikes (package redact/corpus):
// precision and recall per kind (RD1 to RD8, in redact.AllKinds order),
// and how fast Find reads (RD9). Pure computation: no voxform process.
func (h *harness) redaction(ctx context.Context) error {
	n := 10_000
	if h.sz.quick {
		n = 1_000
	}
	p, err := redact.NewPolicy([]string{"all"})
	if err != nil {
		return err
	}
	us := corpus.Generate(29, n)
	if err := ctx.Err(); err != nil {
		return err
	}
	scores := corpus.Score(p, us)
	mistakes := corpus.Mistakes(p, us, nil)
	for i, k := range redact.AllKinds() {
		s := scores[k]
		verdict := "met"
		if s.Precision != 1 || s.Recall != 1 {
			verdict = "MISSED"
		}
		r := result{ID: fmt.Sprintf("RD%d", i+1), What: fmt.Sprintf("redaction of %s on %d generated utterances", k, n),
			Target:  "precision 1, recall 1",
			Figure:  fmt.Sprintf("precision %.3f, recall %.3f (TP %d, FP %d, FN %d)", s.Precision, s.Recall, s.TP, s.FP, s.FN),
			Verdict: verdict}
		if i == 0 {
			r.Details = append([]string{corpusSize(us)}, mistakesShown(mistakes, 20)...)
		}
		h.add(r)
	}
	var bytes int
	start := time.Now()
	for _, u := range us {
		p.Find(u.Text)
		bytes += len(u.Text)
	}
	el := time.Since(start)
	h.add(result{ID: "RD9", What: fmt.Sprintf("redact.Find over the %d utterances (%d bytes), all kinds", n, bytes),
		Target: "none (measured)", Figure: fmt.Sprintf("%.1f MB/s, %.0f µs per utterance", float64(bytes)/el.Seconds()/1e6, float64(el.Microseconds())/float64(n)),
		Verdict: "measured"})
	return nil
}

// mistakesShown lists up to max of the corpus's mistakes, and how many
// more there were.
func mistakesShown(ms []string, max int) []string {
	if len(ms) <= max {
		return ms
	}
	return append(ms[:max:max], fmt.Sprintf("and %d more", len(ms)-max))
}

// corpusSize says how many entities and look-alikes the corpus holds.
func corpusSize(us []corpus.Utterance) string {
	var ents, looks int
	for _, u := range us {
		ents, looks = ents+len(u.Entities), looks+len(u.LookAlikes)
	}
	return fmt.Sprintf("the corpus (seed 29): %d utterances, %d entities to redact, %d look-alikes to leave", len(us), ents, looks)
}
