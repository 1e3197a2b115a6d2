package planview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/planner"
)

// TestTableStreamsRows: the plan's table is written one row at a time at
// widths measured first, so its rows may share one slice (as tableRows's
// do): each row is drawn as it was when it was yielded, the columns as
// wide as their widest cell (in display width: a Devanagari address, a
// colour code), exactly as the table drawn whole.
func TestTableStreamsRows(t *testing.T) {
	rows := [][]string{
		{"\x1b[32m+\x1b[0m", "create", `synthesis.a["नमस्ते"]`, "not in state", "17 chars"},
		{"-/+", "replace", "synthesis.b", "text changed; voice Kaveri -> Deepak", "1,017 chars"},
		{"-", "delete", "x", "", "free"},
	}
	passes := 0
	seq := func(yield func([]string) bool) {
		passes++
		row := make([]string, 5)
		for _, r := range rows {
			copy(row, r)
			if !yield(row) {
				return
			}
		}
	}
	var b bytes.Buffer
	if err := writeTable(&b, seq); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"+-----+---------+---------------------+--------------------------------------+-------------+",
		"|     | ACTION  | ADDRESS             | REASON                               | COST        |",
		"+-----+---------+---------------------+--------------------------------------+-------------+",
		"| \x1b[32m+\x1b[0m   | create  | synthesis.a[\"नमस्ते\"] | not in state                         | 17 chars    |",
		"| -/+ | replace | synthesis.b         | text changed; voice Kaveri -> Deepak | 1,017 chars |",
		"| -   | delete  | x                   |                                      | free        |",
		"+-----+---------+---------------------+--------------------------------------+-------------+",
		""}, "\n")
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if passes != 2 {
		t.Errorf("the rows were read %d times, want 2 (widths, then the rows)", passes)
	}
}

// BenchmarkRenderTable draws a table of 10,000 rows.
func BenchmarkRenderTable(b *testing.B) {
	seq := func(yield func([]string) bool) {
		row := make([]string, 5)
		for i := range 10000 {
			row[0], row[1], row[2], row[3], row[4] = "+", "create", fmt.Sprintf(`synthesis.prompts["p%05d"]`, i), "not in state", "17 chars"
			if !yield(row) {
				return
			}
		}
	}
	for b.Loop() {
		if err := writeTable(new(bytes.Buffer), seq); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTableCellsBounded: an address of a megabyte (a hostile state's)
// and a reason as long are shown cut to MaxCell characters, so that the
// other rows are not widened to a megabyte each.
func TestTableCellsBounded(t *testing.T) {
	long := `synthesis.x["` + strings.Repeat("k", 1<<20) + `"]`
	p := &planner.Plan{Actions: []*planner.Action{
		{Address: long, Type: planner.Delete, Reasons: []string{strings.Repeat("why ", 1<<18)}},
		{Address: "synthesis.a", Type: planner.Create, Reasons: []string{"not in state"}},
	}}
	var b bytes.Buffer
	if err := Render(&b, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 16*MaxCell {
		t.Errorf("the plan of two actions is %d bytes", b.Len())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 2*MaxCell+40 {
			t.Errorf("a line of %d characters: %.80q...", n, l)
		}
	}
	if !strings.Contains(b.String(), `synthesis.x["kkk`) || !strings.Contains(b.String(), "k…") {
		t.Errorf("the long address is not shown cut:\n%.300s", b.String())
	}
}

// TestTableRowOfOtherWidth: a row with more or fewer cells than the
// header is an error, not a panic or a shifted table; no rows at all is
// the header alone.
func TestTableRowOfOtherWidth(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, []string{"X", "Y"}, nil); err != nil || !strings.Contains(b.String(), "| X | Y |") {
		t.Errorf("no rows: %v\n%s", err, &b)
	}
	for _, row := range [][]string{{"a"}, {"a", "b", "c"}} {
		err := WriteTable(new(bytes.Buffer), []string{"X", "Y"}, func(yield func([]string) bool) { yield(row) })
		if err == nil || !strings.Contains(err.Error(), "cells under 2 headings") {
			t.Errorf("a row of %d cells: %v", len(row), err)
		}
	}
}
