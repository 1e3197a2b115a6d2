package planview

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// Bounds of a Markdown summary: a pull request comment must stay short
// (GitHub cuts a comment at 65,536 characters, a job summary at 1 MiB).
const (
	// DefaultMaxRows is how many changes are listed before "and K more".
	DefaultMaxRows = 50
	// DefaultMaxText is how many characters of a text are shown before it
	// is cut with an ellipsis.
	DefaultMaxText = 80
)

// MarkdownOptions bound a Markdown summary; zero fields take the defaults.
type MarkdownOptions struct {
	MaxRows int
	MaxText int
}

// Markdown writes a compact GitHub-flavoured Markdown summary of the plan,
// for a pull request comment or a CI job summary: the counts by action,
// the cost and the budget (b, nil for none), then one table row per
// change in the order of the table Render writes (its reason and cost as
// Render shows them) with the synthesis text: old → new when a replace
// changes it, struck through on a delete. A text longer than MaxText is
// cut with an ellipsis; past MaxRows changes the rest are counted, not
// listed.
func Markdown(w io.Writer, p *planner.Plan, b *manifest.Budget, o MarkdownOptions) error {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	var sb strings.Builder
	if !p.HasChanges() {
		fmt.Fprintf(&sb, "### voxform plan: no changes\n\n%d resource%s up to date.\n", p.NoOps, plural(p.NoOps))
		_, err := io.WriteString(w, sb.String())
		return err
	}
	fmt.Fprintf(&sb, "### voxform plan\n\n**%s** %d unchanged.\n\n", strings.TrimPrefix(summaryLine(p.Summary()), "Plan: "), p.NoOps)
	sb.WriteString(p.Cost.Line() + "\n")
	budgetLines(&sb, p.Cost, b)
	if n := refused(p); n > 0 {
		fmt.Fprintf(&sb, "\n**Refused: %d** (a file voxform did not make is at an output path).\n", n)
	}
	sb.WriteString("\n|   | address | reason | text | cost |\n|---|---|---|---|---|\n")
	actions := grouped(p)
	for i, a := range actions {
		if i == o.MaxRows {
			fmt.Fprintf(&sb, "\n… and %d more.\n", len(actions)-i)
			break
		}
		fmt.Fprintf(&sb, "| `%s` | %s | %s | %s | %s |\n", a.Type.Symbol(), codeCell(a.Address),
			escapeCell(reason(a)), textCell(a, o.MaxText), escapeCell(a.Cost.Short()))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// budgetLines states the budget, if any, and whether the cost exceeds it
// (planner.CheckBudget decides, and its message says by how much).
func budgetLines(sb *strings.Builder, c planner.Cost, b *manifest.Budget) {
	if b == nil || (b.MaxCharacters == nil && b.MaxAudioSeconds == nil) {
		return
	}
	var limits []string
	if b.MaxCharacters != nil {
		limits = append(limits, planner.Thousands(*b.MaxCharacters)+" characters")
	}
	if b.MaxAudioSeconds != nil {
		limits = append(limits, planner.Duration(*b.MaxAudioSeconds)+" of audio")
	}
	line := "Budget: " + strings.Join(limits, ", ")
	err := planner.CheckBudget(c, b)
	if err == nil {
		sb.WriteString(line + ": within it.\n")
		return
	}
	over := err.Error()
	if _, after, ok := strings.Cut(over, planner.ErrBudget.Error()+": "); ok && errors.Is(err, planner.ErrBudget) {
		over = after
	}
	fmt.Fprintf(sb, "%s.\n\n> [!CAUTION]\n> **Over budget**: %s. Apply refuses this plan.\n", line, escapeCell(over))
}

// textCell is the synthesis text of an action, as it changes.
func textCell(a *planner.Action, max int) string {
	var old, cur string
	var hasOld, hasCur bool
	if a.Prior != nil && a.Prior.Kind == string(manifest.KindSynthesis) {
		old, hasOld = a.Prior.RequestFields()["text"].(string)
	}
	if a.Desired != nil && a.Desired.Wire.Synthesis != nil {
		cur, hasCur = a.Desired.Wire.Synthesis.Text, true
	}
	switch {
	case a.Type == planner.Delete && hasOld:
		return "~~" + escapeCell(cut(old, max)) + "~~"
	case hasOld && hasCur && old != cur:
		return "~~" + escapeCell(cut(old, max)) + "~~ → " + escapeCell(cut(cur, max))
	case hasCur:
		return escapeCell(cut(cur, max))
	}
	return ""
}

// cut shortens s to at most max characters, ending with an ellipsis: at
// a space in the last quarter if there is one, so that words stay whole.
// Line breaks and runs of white space read as one space.
func cut(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	end := max - 1
	for i := end; i > end*3/4; i-- {
		if unicode.IsSpace(r[i]) {
			end = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:end]), unicode.IsSpace) + "…"
}

// cellEscaper makes text literal in a table cell: the pipe would end the
// cell, HTML would be rendered (audio tags such as <excited> vanish), and
// emphasis or links would change what is read.
var cellEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "~", `\~`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "\n", " ", "\r", " ",
)

func escapeCell(s string) string { return cellEscaper.Replace(s) }

// codeCell is s as inline code in a table cell (an address), or escaped
// text when s holds a backtick.
func codeCell(s string) string {
	if strings.ContainsAny(s, "`\n\r") {
		return escapeCell(s)
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
