package manifest

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// levenshtein is the plain edit distance over runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// TestBoundedDistance: within the limit the distance is exact, beyond it
// it is some number over the limit; the bit-parallel distance of ASCII
// names is exact; names over 64 runes are never close.
func TestBoundedDistance(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alpha := []rune("abcAB-_ éअ")
	word := func(n int) string {
		w := make([]rune, n)
		for i := range w {
			w[i] = alpha[r.Intn(len(alpha))]
		}
		return string(w)
	}
	for range 200_000 {
		a := word(r.Intn(14))
		b := []rune(a)
		for range r.Intn(6) {
			i := r.Intn(len(b) + 1)
			switch r.Intn(3) {
			case 0:
				b = append(b[:i], append([]rune{alpha[r.Intn(len(alpha))]}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = alpha[r.Intn(len(alpha))]
				}
			}
		}
		limit := 2 + r.Intn(2)
		want := levenshtein(a, string(b))
		got := boundedDistance(a, string(b), len([]rune(a)), limit)
		if (want <= limit || got <= limit) && got != want {
			t.Fatalf("distance(%q, %q) = %d, want %d (limit %d)", a, string(b), got, want, limit)
		}
	}
	for range 200_000 {
		a, b := word(r.Intn(20)), word(r.Intn(20))
		if r.Intn(10) == 0 {
			a, b = word(50+r.Intn(15)), word(50+r.Intn(15))
		}
		if !isASCII(a) || !isASCII(b) {
			continue
		}
		var peq [128]uint64
		for i := 0; i < len(a); i++ {
			peq[a[i]] |= 1 << i
		}
		if got, want := asciiDistance(&peq, len(a), b), levenshtein(a, b); got != want {
			t.Fatalf("asciiDistance(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	long := strings.Repeat("a", 65)
	if d := boundedDistance(long, long+"b", 65, 3); d <= 3 {
		t.Errorf("names over 64 runes: distance %d", d)
	}
}

// TestSuggesterBounded: a Suggester answers like Suggest, remembers its
// answers, and stops suggesting once it has compared MaxSuggestCompares
// candidates, so that many unknown names among many candidates cost a
// bounded amount of work.
func TestSuggesterBounded(t *testing.T) {
	names := make([]string, 10_000)
	for i := range names {
		names[i] = fmt.Sprintf("prompt_%05d", i)
	}
	var sg Suggester
	if got, want := sg.Suggest("prompt_0001", names), Suggest("prompt_0001", names); got != want || got == "" {
		t.Fatalf("Suggest = %q, want %q", got, want)
	}
	if sg.compares != len(names) {
		t.Fatalf("%d comparisons for one question, want %d", sg.compares, len(names))
	}
	sg.Suggest("prompt_0001", names)
	if sg.compares != len(names) {
		t.Fatalf("a question asked again was compared again (%d comparisons)", sg.compares)
	}
	answered := 0
	for i := range 10_000 {
		if sg.Suggest(fmt.Sprintf("prompt_%05dx", i), names) != "" {
			answered++
		}
	}
	if sg.compares > MaxSuggestCompares {
		t.Errorf("%d comparisons, over %d", sg.compares, MaxSuggestCompares)
	}
	if want := MaxSuggestCompares/len(names) - 1; answered != want {
		t.Errorf("%d questions answered, want %d (then the comparisons are used up)", answered, want)
	}
}

// TestScalarPosIncremental: positions asked in increasing order along one
// scalar are the positions asked one at a time, for plain, quoted, block
// and folded scalars.
func TestScalarPosIncremental(t *testing.T) {
	src := "a: plain ${x} text é ${y}\n" +
		"b: \"quoted ${x} \\u00e9 ${y}\"\n" +
		"c: |\n  line one ${x}\n    indented ${y} é\n  last ${z}\n" +
		"d: >\n  folded ${x}\n  more ${y}\n" +
		"e: \"two\n  lines ${x}\"\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	ip := &interpolator{files: map[string]*File{"f.yaml": {Name: "f.yaml", Src: []byte(src)}}, lines: map[string][]int{}}
	root := doc.Content[0]
	for i := 1; i < len(root.Content); i += 2 {
		n := root.Content[i]
		inc := newScalarPos(ip, "f.yaml", n)
		offs := []int{}
		for off := range n.Value { // offsets of runes, as interpolation asks
			offs = append(offs, off)
		}
		for _, off := range append(offs, len(n.Value)) {
			want := newScalarPos(ip, "f.yaml", n).at(off)
			if got := inc.at(off); got != want {
				t.Fatalf("%s: offset %d at %v, want %v", root.Content[i-1].Value, off, got, want)
			}
		}
		if got, want := inc.at(0), newScalarPos(ip, "f.yaml", n).at(0); got != want {
			t.Fatalf("%s: offset 0 asked again at %v, want %v", root.Content[i-1].Value, got, want)
		}
	}
}

// TestOffendingSearchBounded: the search for the line that breaks a YAML
// block parses at most offendingParseBytes of prefixes, however far below
// its block's start the broken line is: in a 256 KB manifest whose broken
// line is 400 lines down it parsed 400 prefixes (1.4 s) before it had a
// bound. A broken line within reach is still found.
func TestOffendingSearchBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nsyntheses:\n")
	for i := range 395 {
		fmt.Fprintf(&b, "  k%d: { voice: v, output: o/%d.wav, text: \"%s\" }\n", i, i, strings.Repeat("x", 600))
	}
	b.WriteString("  m:\n      model: x\n    voice: y\n")
	src := []byte(b.String())
	line, parsed := offendingSearch(src, 2)
	if line != 0 || parsed > offendingParseBytes {
		t.Errorf("search of a %d-byte manifest: line %d after %d bytes parsed; want 0 within %d", len(src), line, parsed, offendingParseBytes)
	}
	if parsed < offendingParseBytes-len(src) {
		t.Errorf("the search stopped after %d bytes, well before its bound of %d", parsed, offendingParseBytes)
	}
	small := []byte("version: 1\nsyntheses:\n  m:\n      model: x\n    voice: y\n")
	if line, _ := offendingSearch(small, 2); line != 5 {
		t.Errorf("broken line of a small manifest: %d, want 5", line)
	}
}
