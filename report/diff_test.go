package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWordDiff(t *testing.T) {
	tests := []struct {
		a, b string
		want []diffOp
	}{
		{"Thank you all for being here.", "Thank you all for joining us.",
			[]diffOp{{"=", "Thank you all for "}, {"-", "being here."}, {"+", "joining us."}}},
		{"press one for billing", "press two for billing",
			[]diffOp{{"=", "press "}, {"-", "one"}, {"+", "two"}, {"=", " for billing"}}},
		{"press one", "press one now",
			[]diffOp{{"=", "press one"}, {"+", " now"}}},
		{"please press one now", "press one",
			[]diffOp{{"-", "please "}, {"=", "press one"}, {"-", " now"}}},
		{"a b c", "a x c", []diffOp{{"=", "a "}, {"-", "b"}, {"+", "x"}, {"=", " c"}}},
		{"नमस्ते दुनिया", "नमस्ते भारत", []diffOp{{"=", "नमस्ते "}, {"-", "दुनिया"}, {"+", "भारत"}}},
		{"", "new", []diffOp{{"+", "new"}}},
	}
	for _, tc := range tests {
		got := wordDiff(tc.a, tc.b)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("wordDiff(%q, %q) (-want +got):\n%s", tc.a, tc.b, d)
		}
		var old, now strings.Builder
		for _, op := range got {
			if op.Op != "+" {
				old.WriteString(op.Text)
			}
			if op.Op != "-" {
				now.WriteString(op.Text)
			}
		}
		if old.String() != tc.a || now.String() != tc.b {
			t.Errorf("wordDiff(%q, %q) rebuilds %q and %q", tc.a, tc.b, old.String(), now.String())
		}
	}
}

// TestWordDiffLarge: texts past the table's bound are diffed by their
// common prefix and suffix, the middle removed and added whole.
func TestWordDiffLarge(t *testing.T) {
	a := "start " + strings.Repeat("x ", 3000) + "end"
	b := "start " + strings.Repeat("y ", 3000) + "end"
	got := wordDiff(a, b)
	if len(got) != 4 || got[0].Op != "=" || got[1].Op != "-" || got[2].Op != "+" || got[3].Op != "=" {
		t.Fatalf("got %d ops, want = - + =", len(got))
	}
}
