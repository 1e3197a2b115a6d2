package corpus_test

import (
	"testing"

	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/redact/corpus"
)

// TestCorpusPrecisionRecall: on 400 generated utterances every valid
// entity of every kind is found exactly, and no look-alike is redacted.
func TestCorpusPrecisionRecall(t *testing.T) {
	p, err := redact.NewPolicy([]string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []int64{1, 29} {
		us := corpus.Generate(seed, 200)
		for _, m := range corpus.Mistakes(p, us, nil) {
			t.Error(m)
		}
		for k, r := range corpus.Score(p, us) {
			if r.TP == 0 || r.Precision != 1 || r.Recall != 1 {
				t.Errorf("seed %d, %s: %+v", seed, k, r)
			}
		}
	}
}
