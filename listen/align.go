package listen

import (
	"fmt"

	"github.com/voxform/voxform/internal/numfmt"
)

// MaxWords bounds each side of an alignment. Alignment takes time
// proportional to the product of the two sides (its memory is linear):
// 20,000 words a side, about two hours of speech and far more than a
// chunk or a prompt holds, align in a few seconds at worst.
const MaxWords = 20_000

// Op is one step of an edit script.
type Op uint8

// The edit operations, from the reference's point of view.
const (
	Match      Op = iota + 1 // the words are equal
	Substitute               // a reference word was heard as another
	Insert                   // a word was heard that the reference does not have
	Delete                   // a reference word was not heard
)

// String names the operation: "match", "substitute", "insert", "delete".
func (o Op) String() string {
	switch o {
	case Match:
		return "match"
	case Substitute:
		return "substitute"
	case Insert:
		return "insert"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Edit is one step: Ref and Hyp are the indexes of the reference and
// hypothesis words it is at. An Insert consumes no reference word, so its
// Ref is the index of the next reference word; a Delete's Hyp likewise.
type Edit struct {
	Op       Op
	Ref, Hyp int
}

// Align is a minimum-edit alignment of ref to hyp, word by word, with unit
// costs: its edits in order, walking both sequences from start to end.
// Of the alignments of minimum cost it prefers a match, then a
// substitution, then a deletion. It refuses a side over MaxWords.
func Align(ref, hyp []string) ([]Edit, error) {
	for _, side := range []struct {
		name  string
		words []string
	}{{"reference", ref}, {"transcript", hyp}} {
		if len(side.words) > MaxWords {
			return nil, fmt.Errorf("align words: the %s has %s words, over the limit of %s words a side (listen.MaxWords)",
				side.name, numfmt.Thousands(len(side.words)), numfmt.Thousands(MaxWords))
		}
	}
	a, b := intern(ref, hyp)
	edits := make([]Edit, 0, max(len(a), len(b)))
	hirschberg(a, b, 0, 0, &edits)
	shiftGaps(edits, a, b)
	return edits, nil
}

// shiftGaps moves every run of deletions (and of insertions) as far
// towards the end as the words allow without changing the cost: "a b b"
// heard as "a b" deletes the last "b", not the middle one. Of equal
// alignments this is the one that matches words as early as they can
// be, so words cut off at the end show as the missing tail they are.
func shiftGaps(edits []Edit, a, b []int32) {
	for p := 0; p < len(edits); {
		op := edits[p].Op
		if op != Delete && op != Insert {
			p++
			continue
		}
		q := p
		for q < len(edits) && edits[q].Op == op {
			q++
		}
		n := q - p
		k := 0
		for q+k < len(edits) && edits[q+k].Op == Match {
			e, first := edits[q+k], edits[p+k]
			if (op == Delete && a[first.Ref] != b[e.Hyp]) || (op == Insert && b[first.Hyp] != a[e.Ref]) {
				break
			}
			k++
		}
		if k == 0 {
			p = q
			continue
		}
		r, h := edits[p].Ref, edits[p].Hyp
		for t := 0; t < k; t++ {
			edits[p+t] = Edit{Match, r + t, h + t}
		}
		for t := 0; t < n; t++ {
			if op == Delete {
				edits[p+k+t] = Edit{Delete, r + k + t, h + k}
			} else {
				edits[p+k+t] = Edit{Insert, r + k, h + k + t}
			}
		}
		p += k
	}
}

// intern numbers the words so that comparing two is comparing two ints.
func intern(ref, hyp []string) (a, b []int32) {
	ids := map[string]int32{}
	id := func(s string) int32 {
		n, ok := ids[s]
		if !ok {
			n = int32(len(ids))
			ids[s] = n
		}
		return n
	}
	a, b = make([]int32, len(ref)), make([]int32, len(hyp))
	for i, s := range ref {
		a[i] = id(s)
	}
	for i, s := range hyp {
		b[i] = id(s)
	}
	return a, b
}

// smallCells: below this many cells a full table is cheaper than
// splitting further.
const smallCells = 4096

// hirschberg appends the edits aligning a to b (at offsets ao and bo of
// the whole sequences): matched ends are taken off, small problems are
// solved with a full table, others split a at its middle and b where the
// forward and backward costs meet (Hirschberg 1975), in linear space.
func hirschberg(a, b []int32, ao, bo int, out *[]Edit) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		*out = append(*out, Edit{Match, ao + p, bo + p})
		p++
	}
	a, b, ao, bo = a[p:], b[p:], ao+p, bo+p
	s := 0
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	a2, b2 := a[:len(a)-s], b[:len(b)-s]
	if (len(a2)+1)*(len(b2)+1) <= smallCells || len(a2) < 2 {
		table(a2, b2, ao, bo, out)
	} else {
		mid := len(a2) / 2
		fwd := costs(a2[:mid], b2, false)
		bwd := costs(a2[mid:], b2, true)
		k := 0
		for j := range fwd {
			if fwd[j]+bwd[len(b2)-j] < fwd[k]+bwd[len(b2)-k] {
				k = j
			}
		}
		hirschberg(a2[:mid], b2[:k], ao, bo, out)
		hirschberg(a2[mid:], b2[k:], ao+mid, bo+k, out)
	}
	for i := s; i > 0; i-- {
		*out = append(*out, Edit{Match, ao + len(a) - i, bo + len(b) - i})
	}
}

// costs is the last row of the edit-distance table of a against every
// prefix of b (every suffix when backward: both are then read from the
// end).
func costs(a, b []int32, backward bool) []int {
	if backward {
		a, b = reversed(a), reversed(b)
	}
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i, ai := range a {
		diag := row[0]
		row[0] = i + 1
		for j, bj := range b {
			c := diag
			if ai != bj {
				c++
			}
			diag = row[j+1]
			row[j+1] = min(c, row[j+1]+1, row[j]+1)
		}
	}
	return row
}

func reversed(s []int32) []int32 {
	r := make([]int32, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// table aligns a small a and b with the whole edit-distance table and
// walks it back.
func table(a, b []int32, ao, bo int, out *[]Edit) {
	w := len(b) + 1
	d := make([]int, (len(a)+1)*w)
	for i := 0; i <= len(a); i++ {
		for j := 0; j <= len(b); j++ {
			switch {
			case i == 0:
				d[j] = j
			case j == 0:
				d[i*w] = i
			default:
				c := d[(i-1)*w+j-1]
				if a[i-1] != b[j-1] {
					c++
				}
				d[i*w+j] = min(c, d[(i-1)*w+j]+1, d[i*w+j-1]+1)
			}
		}
	}
	start := len(*out)
	for i, j := len(a), len(b); i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && a[i-1] == b[j-1] && d[i*w+j] == d[(i-1)*w+j-1]:
			i, j = i-1, j-1
			*out = append(*out, Edit{Match, ao + i, bo + j})
		case i > 0 && j > 0 && d[i*w+j] == d[(i-1)*w+j-1]+1:
			i, j = i-1, j-1
			*out = append(*out, Edit{Substitute, ao + i, bo + j})
		case i > 0 && d[i*w+j] == d[(i-1)*w+j]+1:
			i--
			*out = append(*out, Edit{Delete, ao + i, bo + j})
		default:
			j--
			*out = append(*out, Edit{Insert, ao + i, bo + j})
		}
	}
	reverse((*out)[start:])
}

func reverse(e []Edit) {
	for i, j := 0, len(e)-1; i < j; i, j = i+1, j-1 {
		e[i], e[j] = e[j], e[i]
	}
}
