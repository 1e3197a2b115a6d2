package listen

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// levenshteinWords is the edit distance of a and b from the whole table,
// written apart from Align so that the two can disagree.
func levenshteinWords(a, b []string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	return d[len(a)][len(b)]
}

// replay applies edits to ref and checks them step by step: each edit
// starts where the last one ended, a match is between equal words, a
// substitution between different ones. It returns the hypothesis the
// script builds and its cost.
func replay(t *testing.T, ref, hyp []string, edits []Edit) (built []string, cost int) {
	t.Helper()
	i, j := 0, 0
	for n, e := range edits {
		if e.Ref != i || e.Hyp != j {
			t.Fatalf("edit %d (%v) at ref %d hyp %d, want ref %d hyp %d", n, e.Op, e.Ref, e.Hyp, i, j)
		}
		switch e.Op {
		case Match:
			if ref[i] != hyp[j] {
				t.Fatalf("edit %d: match of %q and %q", n, ref[i], hyp[j])
			}
			built = append(built, ref[i])
			i, j = i+1, j+1
		case Substitute:
			if ref[i] == hyp[j] {
				t.Fatalf("edit %d: substitution of %q by itself", n, ref[i])
			}
			built = append(built, hyp[j])
			i, j, cost = i+1, j+1, cost+1
		case Delete:
			i, cost = i+1, cost+1
		case Insert:
			built = append(built, hyp[j])
			j, cost = j+1, cost+1
		default:
			t.Fatalf("edit %d: unknown op %v", n, e.Op)
		}
	}
	if i != len(ref) || j != len(hyp) {
		t.Fatalf("script ends at ref %d hyp %d, want %d and %d", i, j, len(ref), len(hyp))
	}
	return built, cost
}

func randomWords(r *rand.Rand, n, alphabet int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + r.IntN(alphabet)))
	}
	return out
}

// TestAlignProperties: on random pairs, small enough for the full table
// and large enough for Hirschberg's split, the edit script rebuilds the
// hypothesis from the reference and costs the Levenshtein distance.
func TestAlignProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	for n := 0; n < 400; n++ {
		size := 1 + r.IntN(12)
		if n%4 == 0 {
			size = 60 + r.IntN(240)
		}
		ref := randomWords(r, r.IntN(size+1), 1+r.IntN(4))
		hyp := randomWords(r, r.IntN(size+1), 1+r.IntN(4))
		if n%3 == 0 { // a hypothesis close to the reference, as a transcript is
			hyp = mutate(r, ref)
		}
		edits, err := Align(ref, hyp)
		if err != nil {
			t.Fatal(err)
		}
		built, cost := replay(t, ref, hyp, edits)
		if strings.Join(built, " ") != strings.Join(hyp, " ") {
			t.Fatalf("script builds %q, want %q", built, hyp)
		}
		if want := levenshteinWords(ref, hyp); cost != want {
			t.Fatalf("ref %q hyp %q: script costs %d, Levenshtein distance is %d", ref, hyp, cost, want)
		}
	}
}

// mutate substitutes, drops and inserts a few words of ref.
func mutate(r *rand.Rand, ref []string) []string {
	var out []string
	for _, w := range ref {
		switch r.IntN(10) {
		case 0:
			out = append(out, "x")
		case 1:
		case 2:
			out = append(out, w, "y")
		default:
			out = append(out, w)
		}
	}
	return out
}

// TestAlignRefusesOverMaxWords: a side over the bound is refused with an
// error that names the bound, before any work.
func TestAlignRefusesOverMaxWords(t *testing.T) {
	long := make([]string, MaxWords+1)
	for _, c := range []struct{ ref, hyp []string }{{long, nil}, {nil, long}} {
		_, err := Align(c.ref, c.hyp)
		if err == nil || !strings.Contains(err.Error(), "20,000 words") || !strings.Contains(err.Error(), "20,001") {
			t.Errorf("Align of %d and %d words: error %v, want one naming 20,001 words and the limit of 20,000", len(c.ref), len(c.hyp), err)
		}
	}
	if _, err := Align(long[:MaxWords], long[:MaxWords]); err != nil {
		t.Errorf("Align at the limit: %v", err)
	}
}

// TestCheckLongTextBounded: a 100,000-character text against a
// transcript that shares nothing with it (the worst case) is checked in
// linear memory: the whole table would take gigabytes.
func TestCheckLongTextBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("aligns two texts of 100,000 characters")
	}
	r := rand.New(rand.NewPCG(1, 2))
	sent, heard := longText(r, 100_000, "abcdefgh"), longText(r, 100_000, "stuvwxyz")
	heard = heard[:50_000] + " " + strings.Repeat("1 ", 25_000) // one digit stream
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := Check(sent, heard, DefaultThresholds())
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Sent.Words)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("checking %d words against %d allocated %d MB, want linear memory (the table would be %d MB)",
			n, len(res.Heard.Words), alloc>>20, n*len(res.Heard.Words)*8>>20)
	}
	if len(res.Heard.Words) == 0 || len(res.Heard.Words[len(res.Heard.Words)-1].Text) != 25_000 {
		t.Errorf("the digit stream is not one word of 25,000 digits")
	}
	if res.Pass || res.WER != 1 {
		t.Errorf("unrelated texts: pass %v, WER %v, want a failure at WER 1", res.Pass, res.WER)
	}
	t.Logf("%d words against %d: %v, %d MB allocated", n, len(res.Heard.Words), elapsed, (after.TotalAlloc-before.TotalAlloc)>>20)
}

// longText is about n characters of words of 1 to 8 letters from letters.
func longText(r *rand.Rand, n int, letters string) string {
	var b strings.Builder
	for b.Len() < n {
		for k := 1 + r.IntN(8); k > 0; k-- {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestAlignMatchesEarly: of equal alignments, the one whose words match as
// early as they can, so that words cut off at the end are at the end.
func TestAlignMatchesEarly(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     []Edit
	}{
		{"a b b", "a b", []Edit{{Match, 0, 0}, {Match, 1, 1}, {Delete, 2, 2}}},
		{"a b", "a b b", []Edit{{Match, 0, 0}, {Match, 1, 1}, {Insert, 2, 2}}},
		{"team valley station valley", "team valley",
			[]Edit{{Match, 0, 0}, {Match, 1, 1}, {Delete, 2, 2}, {Delete, 3, 2}}},
		{"x y x y z", "x y z", []Edit{{Match, 0, 0}, {Match, 1, 1}, {Delete, 2, 2}, {Delete, 3, 2}, {Match, 4, 2}}},
	} {
		got, err := Align(strings.Fields(c.ref), strings.Fields(c.hyp))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Align(%q, %q) (-want +got):\n%s", c.ref, c.hyp, diff)
		}
	}
}
