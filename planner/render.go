package planner

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// RenderOptions control the human plan output.
type RenderOptions struct {
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

func (t ActionType) color() string {
	switch t {
	case Create:
		return ansiGreen
	case Replace, Repair:
		return ansiYellow
	case Move, Resume:
		return ansiCyan
	case Delete:
		return ansiRed
	}
	return ""
}

// Render writes the plan for people: one table grouped by action (create,
// replace, repair, move, resume, delete; addresses sorted in each group),
// then the summary line and the cost line.
func (p *Plan) Render(w io.Writer, o RenderOptions) error {
	if !p.HasChanges() {
		_, err := fmt.Fprintf(w, "No changes. %d resource%s up to date.\n", p.NoOps, plural(p.NoOps))
		return err
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithRendition(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header("", "ACTION", "ADDRESS", "REASON", "COST")
	for _, a := range p.grouped() {
		sym := a.Type.Symbol()
		if o.Color {
			sym = a.Type.color() + sym + ansiReset
		}
		if err := table.Append([]string{sym, string(a.Type), a.Address, strings.Join(a.Reasons, "; "), a.Cost.Short()}); err != nil {
			return fmt.Errorf("render plan: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("render plan: %w", err)
	}
	if _, err := fmt.Fprintf(w, "\n%s\n%s\n", p.Summary().Line(), p.Cost.Line()); err != nil {
		return err
	}
	if n := p.Refused(); n > 0 {
		_, err := fmt.Fprintf(w, "Refused: %d (a file voxform did not make is at an output path; apply fails them without calling the service: move the files away, or plan and apply with -overwrite to replace them)\n", n)
		return err
	}
	return nil
}

// Refused counts the actions apply will refuse.
func (p *Plan) Refused() int {
	n := 0
	for _, a := range p.Actions {
		if a.Refused != "" {
			n++
		}
	}
	return n
}

// grouped returns the actions grouped by type in display order, sorted by
// address in each group.
func (p *Plan) grouped() []*Action {
	rank := map[ActionType]int{}
	for i, t := range actionOrder {
		rank[t] = i
	}
	out := append([]*Action(nil), p.Actions...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return rank[out[i].Type] < rank[out[j].Type]
		}
		return out[i].Address < out[j].Address
	})
	return out
}

// Line is the summary line:
// "Plan: 3 to add, 1 to replace, 1 to repair, 2 to move, 1 to destroy."
// A resume count appears only when there is something to resume.
func (s Summary) Line() string {
	line := fmt.Sprintf("Plan: %d to add, %d to replace, %d to repair, %d to move, ", s.Add, s.Replace, s.Repair, s.Move)
	if s.Resume > 0 {
		line += fmt.Sprintf("%d to resume, ", s.Resume)
	}
	return line + fmt.Sprintf("%d to destroy.", s.Destroy)
}
