package report

import (
	"regexp"
	"strings"
)

// diffOp is one run of a word-level diff: Op is "=" (in both), "-" (only
// in the old text) or "+" (only in the new one).
type diffOp struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// maxDiffCells bounds the table of the longest common subsequence: past
// it the changed middle of two texts is shown as removed and added whole.
const maxDiffCells = 4_000_000

var wordRE = regexp.MustCompile(`\s+|[^\s]+`)

// wordDiff is the word-level diff of a to b: words and the spaces between
// them are the units, so that a changed word is shown changed, not each
// of its letters. The common prefix and suffix are trimmed first; the
// middle is diffed by the longest common subsequence.
func wordDiff(a, b string) []diffOp {
	x, y := wordRE.FindAllString(a, -1), wordRE.FindAllString(b, -1)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var d differ
	d.add("=", x[:pre]...)
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(mx)*len(my) > maxDiffCells {
		d.add("-", mx...)
		d.add("+", my...)
	} else {
		lcs(&d, mx, my)
	}
	d.add("=", x[len(x)-suf:]...)
	return foldSpaces(d.ops)
}

// foldSpaces joins two replacements separated only by spaces ("-being
// +joining", " ", "-here. +us.") into one ("-being here. +joining us."),
// so that a changed phrase reads as one change rather than word by word.
// Only replacements are joined: an insertion or a removal alone stays as
// it is, the space with the text that keeps it.
func foldSpaces(ops []diffOp) []diffOp {
	var out []diffOp
	for _, op := range ops {
		out = foldLast(append(out, op))
	}
	return out
}

// foldLast joins the replacements at the end of out while they are
// separated only by spaces.
func foldLast(out []diffOp) []diffOp {
	for {
		n := len(out)
		if n < 5 || out[n-1].Op != "+" || out[n-2].Op != "-" || out[n-3].Op != "=" || strings.TrimSpace(out[n-3].Text) != "" ||
			out[n-4].Op != "+" || out[n-5].Op != "-" {
			return out
		}
		space := out[n-3].Text
		del := out[n-5].Text + space + out[n-2].Text
		ins := out[n-4].Text + space + out[n-1].Text
		out = append(out[:n-5], diffOp{"-", del}, diffOp{"+", ins})
	}
}

// differ collects runs, merging neighbours of the same kind.
type differ struct{ ops []diffOp }

func (d *differ) add(op string, words ...string) {
	if len(words) == 0 {
		return
	}
	s := strings.Join(words, "")
	if n := len(d.ops); n > 0 && d.ops[n-1].Op == op {
		d.ops[n-1].Text += s
		return
	}
	d.ops = append(d.ops, diffOp{Op: op, Text: s})
}

// lcs adds the diff of x to y by their longest common subsequence,
// removals before additions where both happen at one place.
func lcs(d *differ, x, y []string) {
	n, m := len(x), len(y)
	// t[i][j] is the LCS length of x[i:] and y[j:].
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var del, ins []string
	flush := func() {
		d.add("-", del...)
		d.add("+", ins...)
		del, ins = del[:0], ins[:0]
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			flush()
			d.add("=", x[i])
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			del = append(del, x[i])
			i++
		default:
			ins = append(ins, y[j])
			j++
		}
	}
	del = append(del, x[i:]...)
	ins = append(ins, y[j:]...)
	flush()
}
