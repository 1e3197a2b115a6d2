package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/state"
)

// TestShowCellsBounded: show draws the state's table with the plan's
// (planview.WriteTable): a hostile state's address and output path of a
// megabyte each are cut to planview.MaxCell characters, so the other rows
// are not widened to a megabyte.
func TestShowCellsBounded(t *testing.T) {
	long := `synthesis.x["` + strings.Repeat("k", 1<<20) + `"]`
	st := &state.File{Serial: 3, Lineage: "l", Resources: map[string]*state.Resource{
		long:          {Kind: "synthesis", Status: state.StatusComplete, Outputs: []state.Output{{Path: "build/" + strings.Repeat("p", 1<<20) + ".wav"}}},
		"synthesis.a": {Kind: "synthesis", Status: state.StatusComplete, Outputs: []state.Output{{Path: "build/a.wav"}}},
	}}
	var b bytes.Buffer
	if err := renderState(&b, st); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 32*planview.MaxCell {
		t.Errorf("the table of two resources is %d bytes", b.Len())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 2*planview.MaxCell+80 {
			t.Errorf("a line of %d characters: %.80q...", n, l)
		}
	}
	if !strings.Contains(b.String(), "| synthesis.a ") || !strings.Contains(b.String(), "k…") {
		t.Errorf("the table:\n%.400s", b.String())
	}
}

// TestShowKeepsSpaces: show draws a cell as it is, spaces included, as
// the plan's table does: an output path that begins with a space (a valid
// manifest may write one) is not shown as another path.
func TestShowKeepsSpaces(t *testing.T) {
	st := &state.File{Resources: map[string]*state.Resource{
		"synthesis.a": {Kind: "synthesis", Status: state.StatusComplete, Outputs: []state.Output{{Path: " a.wav"}}},
	}}
	var b bytes.Buffer
	if err := renderState(&b, st); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "|  a.wav ") {
		t.Errorf("the output path is not shown as it is:\n%s", &b)
	}
}
