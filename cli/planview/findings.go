package planview

import (
	"fmt"
	"io"
	"strings"
)

// Findings writes a bounded GitHub-flavoured Markdown summary of a check
// (verify's): the heading "### title", the line in bold, then a table with
// the columns of header, one row per finding. A row's first cell is an
// address (inline code), the others text; every cell is escaped and inert
// as in Markdown. Past DefaultMaxRows rows, or where one more row would
// pass maxBytes bytes, the rest are counted ("… and K more"), not listed;
// more says which command lists them all.
func Findings(w io.Writer, title, line string, header []string, rows [][]string, maxBytes int, more string) error {
	o, err := MarkdownOptions{MaxBytes: maxBytes}.withDefaults()
	if err != nil {
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "### %s\n\n**%s**\n", escapeCell(title), escapeCell(line))
	if len(rows) > 0 {
		sb.WriteString("\n| " + strings.Join(header, " | ") + " |\n|" + strings.Repeat("---|", len(header)) + "\n")
	}
	moreLine := func(n int) string { return fmt.Sprintf("\n… and %d more; %s lists them all.\n", n, more) }
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			if j == 0 {
				cells[j] = codeCell(cutAddress(c))
			} else {
				cells[j] = escapeCell(cut(c, MaxReason))
			}
		}
		row := "| " + strings.Join(cells, " | ") + " |\n"
		if i == o.MaxRows || sb.Len()+len(row)+len(moreLine(len(rows))) > o.MaxBytes {
			sb.WriteString(moreLine(len(rows) - i))
			break
		}
		sb.WriteString(row)
	}
	_, err = io.WriteString(w, sb.String())
	return err
}
