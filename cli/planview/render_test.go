package planview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
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
