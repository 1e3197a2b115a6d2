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

// TestGenerateCoversFormsAndLookAlikes: the corpus is the same for the
// same seed, and holds every kind in several forms beside look-alikes of
// each kind they resemble, so that the scores above measure something.
func TestGenerateCoversFormsAndLookAlikes(t *testing.T) {
	a, b := corpus.Generate(7, 200), corpus.Generate(7, 200)
	if len(a) != 200 || a[199].Text != b[199].Text {
		t.Fatalf("Generate(7, 200) differs from itself or has %d utterances", len(a))
	}
	forms := map[redact.Kind]map[string]bool{}
	looks := map[redact.Kind]int{}
	for _, u := range a {
		for _, e := range u.Entities {
			if forms[e.Kind] == nil {
				forms[e.Kind] = map[string]bool{}
			}
			forms[e.Kind][e.Form] = true
		}
		for _, e := range u.LookAlikes {
			looks[e.Kind]++
		}
	}
	// The number forms (11; 15 for a mobile), the code forms (6), and
	// addresses in one.
	want := map[redact.Kind]int{redact.Mobile: 15, redact.Aadhaar: 11, redact.Card: 11, redact.BankAccount: 11,
		redact.PAN: 6, redact.IFSC: 6, redact.UPI: 1, redact.Email: 1}
	for _, k := range redact.AllKinds() {
		if len(forms[k]) < want[k] {
			t.Errorf("%s in %d forms, want %d: %v", k, len(forms[k]), want[k], forms[k])
		}
	}
	for _, k := range []redact.Kind{redact.Mobile, redact.Aadhaar, redact.Card, redact.PAN, redact.IFSC, redact.UPI} {
		if looks[k] == 0 {
			t.Errorf("no look-alike of %s", k)
		}
	}
}
