package listen

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDefaultsSeparateNoiseFromFaults holds the defaults to their
// reasons on a fixed seed: texts of 2 to 60 words in sentences of 2 to 12
// words, heard with recognition noise (each word substituted at 2%); at
// DefaultThresholds almost no clean text fails (at most 1 in 500), and
// every faulty one does: the last sentence cut off, a run of 3 to 8
// words garbled, silence, the second half dropped.
func TestDefaultsSeparateNoiseFromFaults(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 27))
	const texts = 2000
	faults := []struct {
		name  string
		apply func(r *rand.Rand, sentences [][]string) []string
	}{
		{"truncated", func(r *rand.Rand, s [][]string) []string { return flatten(s[:len(s)-1]) }},
		{"garbled run", garbleRun},
		{"silence", func(*rand.Rand, [][]string) []string { return nil }},
		{"second half dropped", func(r *rand.Rand, s [][]string) []string { w := flatten(s); return w[:len(w)/2] }},
	}
	cleanFailed := 0
	for i := 0; i < texts; i++ {
		sentences := randomSentences(r)
		sent := strings.Join(flatten(sentences), " ")
		if res := mustCheck(t, sent, noisy(r, flatten(sentences))); !res.Pass {
			cleanFailed++
			t.Logf("clean text failed: %q\n%s", sent, strings.Join(res.Failures, "\n"))
		}
		for _, f := range faults {
			if len(sentences) < 2 && f.name == "truncated" {
				continue
			}
			heard := noisy(r, f.apply(r, sentences))
			if res := mustCheck(t, sent, heard); res.Pass {
				t.Errorf("%s passes: sent %q, heard %q, measures %+v", f.name, sent, heard, res.Measures)
			}
		}
	}
	if cleanFailed > texts/500 {
		t.Errorf("%d clean texts of %d failed with 2%% noise, want at most %d", cleanFailed, texts, texts/500)
	}
}

func mustCheck(t *testing.T, sent, heard string) Result {
	t.Helper()
	res, err := Check(sent, heard, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var simWords = strings.Fields("the order account payment is ready we will call you back today please hold " +
	"your line support team thank for calling river valley village quiet old miller story children " +
	"morning evening train station platform ticket window bank branch")

func randomSentences(r *rand.Rand) [][]string {
	var out [][]string
	for n, total := 1+r.IntN(5), 0; n > 0; n-- {
		s := make([]string, 2+r.IntN(11))
		for k := range s {
			s[k] = simWords[r.IntN(len(simWords))]
		}
		out = append(out, s)
		total += len(s)
	}
	return out
}

func flatten(s [][]string) []string {
	var out []string
	for _, x := range s {
		out = append(out, x...)
	}
	return out
}

// noisy substitutes each word with another at 2%.
func noisy(r *rand.Rand, words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		for r.Float64() < 0.02 && out[i] == w {
			out[i] = simWords[r.IntN(len(simWords))]
		}
	}
	return strings.Join(out, " ")
}

// garbleRun replaces 3 to 8 consecutive words (fewer in a shorter text,
// all of a text of under 3) with nonsense.
func garbleRun(r *rand.Rand, s [][]string) []string {
	w := flatten(s)
	n := min(3+r.IntN(6), len(w))
	at := r.IntN(len(w) - n + 1)
	for k := at; k < at+n; k++ {
		w[k] = "zq" + string(rune('a'+r.IntN(26))) + string(rune('a'+r.IntN(26)))
	}
	return w
}
