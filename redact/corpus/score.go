package corpus

import (
	"fmt"

	"github.com/voxform/voxform/redact"
)

// Result is how a policy's detectors did on one kind: spans found that
// are an entity exactly (TP), spans found that are none (FP: a look-alike
// redacted, or an entity's span wrong), entities not found exactly (FN).
type Result struct {
	TP, FP, FN int
	// Precision is TP/(TP+FP), 1 when nothing was found; Recall is
	// TP/(TP+FN), 1 when there was nothing to find.
	Precision, Recall float64
}

// Score runs p on every utterance and scores each of p's kinds.
func Score(p redact.Policy, us []Utterance) map[redact.Kind]Result {
	out := map[redact.Kind]Result{}
	for _, k := range p.Kinds {
		out[k] = Result{}
	}
	Mistakes(p, us, out)
	for k, r := range out {
		r.Precision, r.Recall = ratio(r.TP, r.TP+r.FP), ratio(r.TP, r.TP+r.FN)
		out[k] = r
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Mistakes runs p on every utterance and describes each false positive
// and false negative; counts, when not nil, gets each kind's TP, FP and
// FN added.
func Mistakes(p redact.Policy, us []Utterance, counts map[redact.Kind]Result) []string {
	var out []string
	add := func(k redact.Kind, tp, fp, fn int) {
		if counts != nil {
			r := counts[k]
			r.TP, r.FP, r.FN = r.TP+tp, r.FP+fp, r.FN+fn
			counts[k] = r
		}
	}
	for i, u := range us {
		want := map[redact.Span]Entity{}
		for _, e := range u.Entities {
			if p.Covers(redact.Policy{Kinds: []redact.Kind{e.Kind}}) {
				want[redact.Span{Kind: e.Kind, Start: e.Start, End: e.End}] = e
			}
		}
		for _, s := range p.Find(u.Text) {
			if _, ok := want[s]; ok {
				add(s.Kind, 1, 0, 0)
				delete(want, s)
				continue
			}
			add(s.Kind, 0, 1, 0)
			out = append(out, fmt.Sprintf("utterance %d %q: %s found at %q, which is none", i, u.Text, s.Kind, u.Text[s.Start:s.End]))
		}
		for s, e := range want {
			add(s.Kind, 0, 0, 1)
			out = append(out, fmt.Sprintf("utterance %d %q: %s %q (%s) not found", i, u.Text, s.Kind, u.Text[s.Start:s.End], e.Form))
		}
	}
	return out
}
