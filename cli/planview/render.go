package planview

import (
	"fmt"
	"io"
	"iter"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/planner"
)

// Options control the human plan output.
type Options struct {
	// Color marks action symbols with ANSI colours (never with -no-color,
	// NO_COLOR or a non-terminal).
	Color bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiBold   = "\x1b[1m"
)

func color(t planner.ActionType) string {
	switch t {
	case planner.Create:
		return ansiGreen
	case planner.Replace, planner.Repair:
		return ansiYellow
	case planner.Move, planner.Resume, planner.Restore, planner.Check, planner.Remaster:
		return ansiCyan
	case planner.Delete:
		return ansiRed
	}
	return ""
}

// Render writes the plan for people: one table grouped by action (create,
// replace, repair, restore, remaster, check, move, resume, delete; addresses sorted
// in each group), then the summary line and the cost line; with listening
// checks, the line that sums them up and the worst case; then the
// recorded checks that fail at the limits declared now.
func Render(w io.Writer, p *planner.Plan, o Options) error {
	if !p.HasChanges() && len(p.Pinned) == 0 {
		if _, err := fmt.Fprintf(w, "No changes. %d resource%s up to date.\n", p.NoOps, plural(p.NoOps)); err != nil {
			return err
		}
		return writeFailing(w, p)
	}
	if err := writeTable(w, tableRows(p, o)); err != nil {
		return fmt.Errorf("render plan: %w", err)
	}
	if _, err := fmt.Fprintf(w, "\n%s\n%s\n", summaryLine(p.Summary()), p.CostLine()); err != nil {
		return err
	}
	if line := listenLine(p); line != "" {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if n := refused(p); n > 0 {
		if _, err := fmt.Fprintf(w, "Refused: %d (a file voxform did not make is at an output path; apply fails them without calling the service: move the files away, or plan and apply with -overwrite to replace them)\n", n); err != nil {
			return err
		}
	}
	return writeFailing(w, p)
}

// tableRows yields the rows of the plan's table: its actions, grouped,
// then the pinned resources no action lists.
func tableRows(p *planner.Plan, o Options) iter.Seq[[]string] {
	actions := grouped(p)
	return func(yield func([]string) bool) {
		row := make([]string, 5) // one row at a time: the table streams them
		for _, a := range actions {
			sym := a.Type.Symbol()
			if o.Color {
				sym = color(a.Type) + sym + ansiReset
			}
			// An address or a reason may come from the state: nothing in
			// it acts on the terminal.
			row[0], row[1], row[2], row[3], row[4] = sym, string(a.Type), untrusted.Escape(a.Address), untrusted.Escape(reason(a)), costCell(a)
			if !yield(row) {
				return
			}
		}
		for _, r := range pinnedRows(p) {
			if !yield(r) {
				return
			}
		}
	}
}

// MaxCell is how many characters of a cell a table for people shows
// (WriteTable): a column is as wide as its widest cell, so one address
// of a megabyte in a hostile state would widen every row to a megabyte.
const MaxCell = 1024

// planHeader is the header of the plan's table.
var planHeader = []string{"", "ACTION", "ADDRESS", "REASON", "COST"}

// writeTable writes the plan's table of rows.
func writeTable(w io.Writer, rows iter.Seq[[]string]) error { return WriteTable(w, planHeader, rows) }

// WriteTable writes a table for people, voxform's style: ASCII borders,
// cells aligned left, never wrapped, each cut to MaxCell characters. It
// reads rows twice, once for the width of each column, then to write
// them one by one, so that a table of 100,000 rows is drawn without being
// held, and the rows may share one slice; rows must give the same cells
// both times (nil: none). Cells are shown as they are, spaces included:
// the caller escapes what is not its own (internal/untrusted).
func WriteTable(w io.Writer, header []string, rows iter.Seq[[]string]) error {
	if rows == nil {
		rows = func(func([]string) bool) {}
	}
	widths := tw.NewMapper[int, int]()
	for i, h := range header {
		widths.Set(i, twwidth.Width(h))
	}
	for row := range rows {
		if len(row) != len(header) {
			return fmt.Errorf("a row of %d cells under %d headings", len(row), len(header))
		}
		for i, c := range row {
			widths.Set(i, max(widths.Get(i), twwidth.Width(clip(c, MaxCell))))
		}
	}
	for i := range header {
		widths.Set(i, widths.Get(i)+2) // a space either side
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithRendition(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true, StrictColumns: true}),
		tablewriter.WithWidths(tw.CellWidth{PerColumn: widths}),
	)
	if err := table.Start(); err != nil {
		return err
	}
	table.Header(header)
	cut := make([]string, len(header))
	for row := range rows {
		if len(row) != len(header) {
			return fmt.Errorf("a row of %d cells under %d headings", len(row), len(header))
		}
		for i, c := range row {
			cut[i] = clip(c, MaxCell)
		}
		if err := table.Append(cut); err != nil {
			return err
		}
	}
	return table.Close()
}

// writeFailing lists the recorded listening checks that fail at the
// limits declared now, at most MaxFailingLines of them, each cut to
// MaxAddress+MaxReason characters. A transcript is the service's text:
// nothing in it acts on the terminal.
func writeFailing(w io.Writer, p *planner.Plan) error {
	lines, outputs := listenFailing(p)
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(failingHead(outputs) + "\n")
	for i, l := range lines {
		if i == MaxFailingLines {
			fmt.Fprintf(&b, "  … and %d more; 'voxform verify -listen' lists them all\n", len(lines)-i)
			break
		}
		b.WriteString("  " + untrusted.Escape(cut(l, MaxAddress+MaxReason)) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reason is an action's REASON cell: why it is needed, and for a restore
// where its outputs come from.
func reason(a *planner.Action) string {
	r := strings.Join(a.Reasons, "; ")
	if a.Type == planner.Restore {
		from := "from the local cache"
		if a.Details().RestoreFrom != "local" {
			from = "from " + a.Details().RestoreFrom
		}
		if r != "" {
			r += "; "
		}
		r += from
	}
	if a.Listen != nil && a.Type != planner.Check {
		if r != "" {
			r += "; "
		}
		r += a.Listen.Reason()
	}
	return withOrigin(r, a)
}

// costCell is an action's COST cell (Cost.Short), with the audio of its
// listening checks beside the characters it bills: "2,661 chars,
// 0h05m56s audio".
func costCell(a *planner.Action) string {
	c := a.Cost
	if a.Listen != nil && c.Characters > 0 && c.AudioSeconds > 0 {
		return planner.Cost{Characters: c.Characters}.Short() + ", " + planner.Cost{AudioSeconds: c.AudioSeconds}.Short()
	}
	return c.Short()
}

// refused counts the actions apply will refuse.
func refused(p *planner.Plan) int {
	n := 0
	for _, a := range p.Actions {
		if a.Details().Refused != "" {
			n++
		}
	}
	return n
}

// grouped returns the actions grouped by type in display order, sorted by
// address in each group.
func grouped(p *planner.Plan) []*planner.Action {
	rank := map[planner.ActionType]int{}
	for i, t := range planner.ActionOrder {
		rank[t] = i
	}
	out := append([]*planner.Action(nil), p.Actions...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return rank[out[i].Type] < rank[out[j].Type]
		}
		return out[i].Address < out[j].Address
	})
	return out
}

// summaryLine is the summary line:
// "Plan: 3 to add, 1 to replace, 1 to repair, 2 to move, 1 to destroy."
// ("...; 10 pinned (approved)." when keep_approved kept replaces).
// Restore, remaster, check and resume counts appear only when there is
// something to restore, remaster, check or resume.
func summaryLine(s planner.Summary) string {
	line := fmt.Sprintf("Plan: %d to add, %d to replace, %d to repair, ", s.Add, s.Replace, s.Repair)
	if s.Restore > 0 {
		line += fmt.Sprintf("%d to restore (free), ", s.Restore)
	}
	if s.Remaster > 0 {
		line += fmt.Sprintf("%d to remaster (free), ", s.Remaster)
	}
	if s.Check > 0 {
		line += fmt.Sprintf("%d to check, ", s.Check)
	}
	line += fmt.Sprintf("%d to move, ", s.Move)
	if s.Resume > 0 {
		line += fmt.Sprintf("%d to resume, ", s.Resume)
	}
	line += fmt.Sprintf("%d to destroy", s.Destroy)
	if s.Pinned > 0 {
		line += fmt.Sprintf("; %d pinned (approved)", s.Pinned)
	}
	return line + "."
}

// PinnedSymbol and PinnedAction mark a pinned resource in the table.
const (
	PinnedSymbol = "="
	PinnedAction = "pinned (approved)"
)

// pinnedRows are the table rows of the plan's pinned resources, after
// its actions: the approval and why the fingerprint changed.
func pinnedRows(p *planner.Plan) [][]string {
	pins := unlisted(p)
	rows := make([][]string, 0, len(pins))
	for _, pin := range pins {
		rows = append(rows, []string{PinnedSymbol, PinnedAction, untrusted.Escape(pin.Address), untrusted.Escape(pin.Reason()), planner.Cost{}.Short()})
	}
	return rows
}

// unlisted are the pinned resources of p that no action of p lists: a
// pinned output put back or moved is a row of its own action, whose
// reason says it is pinned, and is not listed twice.
func unlisted(p *planner.Plan) []*planner.Pinned {
	acted := make(map[string]bool, len(p.Actions))
	for _, a := range p.Actions {
		acted[a.Address] = true
	}
	pins := make([]*planner.Pinned, 0, len(p.Pinned))
	for i := range p.Pinned {
		if !acted[p.Pinned[i].Address] {
			pins = append(pins, &p.Pinned[i])
		}
	}
	return pins
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
