package planview

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// Bounds of a Markdown summary: a pull request comment must stay a
// comment. GitHub takes at most 65,536 characters in a comment and 1 MiB
// in a job summary; a summary is bounded in bytes, which is never fewer
// than its characters.
const (
	// DefaultMaxRows is how many changes are listed before "and K more".
	DefaultMaxRows = 50
	// DefaultMaxText is how many characters of a synthesis text are shown
	// before it is cut with an ellipsis.
	DefaultMaxText = 80
	// DefaultMaxBytes is the size of a summary, in bytes: a pull request
	// comment's 65,536 characters.
	DefaultMaxBytes = 65536
	// JobSummaryBytes is a CI job summary's size, in bytes: GitHub's 1 MiB.
	JobSummaryBytes = 1 << 20
	// MinMaxBytes is the smallest MaxBytes: the counts, the cost, the
	// budget and a few rows.
	MinMaxBytes = 4096
	// MaxAddress is how many characters of an address are shown.
	MaxAddress = 120
	// MaxReason is how many characters of a reason are shown.
	MaxReason = 200
)

// MarkdownOptions bound a Markdown summary; zero fields take the defaults.
type MarkdownOptions struct {
	MaxRows  int
	MaxText  int
	MaxBytes int
	// Settings are where the work goes that the manifest (or the
	// environment) chooses, as "name: value": the service's address, the
	// variable its key is read from, the output caches. They are listed
	// under the counts, so a pull request that changes where the key is
	// sent or where outputs are kept shows it in its comment.
	Settings []string
	// Approvals are the declared resources' sign-off figures (nil: not
	// known; the summary then says only what the plan ends).
	Approvals *Approvals
}

// Markdown writes a compact GitHub-flavoured Markdown summary of the plan,
// for a pull request comment or a CI job summary: the counts by action,
// the cost and the budget (b, nil for none), then one table row per
// change in the order of the table Render writes (its reason and cost as
// Render shows them) with the synthesis text: old → new when a replace
// changes it, struck through on a delete.
//
// The summary is bounded: a text longer than MaxText characters, a reason
// longer than MaxReason and an address longer than MaxAddress are cut with
// an ellipsis; past MaxRows changes, or where one more row would pass
// MaxBytes bytes, the rest are counted ("… and K more"), not listed.
//
// What a manifest or a state holds stays text: nothing in a cell renders
// as HTML, a link, an image or emphasis, breaks out of its cell or its
// code span, notifies anyone (@team) or links elsewhere (#123, a bare
// URL), and no control character is written raw.
func Markdown(w io.Writer, p *planner.Plan, b *manifest.Budget, o MarkdownOptions) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	var sb strings.Builder
	if !p.HasChanges() && len(p.Pinned) == 0 {
		fmt.Fprintf(&sb, "### voxform plan: no changes\n\n%d resource%s up to date.\n", p.NoOps, plural(p.NoOps))
		failingLines(&sb, p, o)
		approvalLines(&sb, p, o)
		_, err := io.WriteString(w, sb.String())
		return err
	}
	fmt.Fprintf(&sb, "### voxform plan\n\n**%s** %d unchanged.\n\n", strings.TrimPrefix(summaryLine(p.Summary()), "Plan: "), p.NoOps)
	sb.WriteString(p.CostLine() + "\n")
	if line := listenLine(p); line != "" {
		sb.WriteString(line + "\n")
	}
	budgetLines(&sb, p, b)
	failingLines(&sb, p, o)
	settingLines(&sb, o.Settings)
	approvalLines(&sb, p, o)
	if n := refused(p); n > 0 {
		fmt.Fprintf(&sb, "\n**Refused: %d** (a file voxform did not make is at an output path).\n", n)
	}
	sb.WriteString("\n|   | address | reason | text | cost |\n|---|---|---|---|---|\n")
	actions := grouped(p)
	rows := make([]string, 0, len(actions)+len(p.Pinned))
	for _, a := range actions {
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s | %s |\n", a.Type.Symbol(), codeCell(cutAddress(a.Address)),
			escapeCell(cut(reason(a), MaxReason)), textCell(a, o.MaxText), escapeCell(costCell(a))))
	}
	for _, pin := range unlisted(p) {
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %s | %s |\n", PinnedSymbol, codeCell(cutAddress(pin.Address)),
			escapeCell(cut(PinnedAction+": "+pin.Reason(), MaxReason)), "", planner.Cost{}.Short()))
	}
	for i, row := range rows {
		if i == o.MaxRows || sb.Len()+len(row)+len(moreLine(len(rows))) > o.MaxBytes {
			sb.WriteString(moreLine(len(rows) - i))
			break
		}
		sb.WriteString(row)
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// withDefaults fills the zero bounds of o; a MaxBytes below MinMaxBytes
// is an error.
func (o MarkdownOptions) withDefaults() (MarkdownOptions, error) {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxBytes < MinMaxBytes {
		return o, fmt.Errorf("markdown summary of at most %d bytes: below the minimum, %s bytes", o.MaxBytes, numfmt.Thousands(MinMaxBytes))
	}
	return o, nil
}

// settingLines lists the settings a summary names, each value a code
// span (inert, cut at MaxAddress characters).
func settingLines(sb *strings.Builder, settings []string) {
	if len(settings) == 0 {
		return
	}
	sb.WriteString("\nSet by the manifest or the environment:\n")
	for _, s := range settings {
		name, value, _ := strings.Cut(s, ": ")
		fmt.Fprintf(sb, "- %s: %s\n", codeCell(name), codeCell(cutAddress(value)))
	}
}

// moreLine ends a summary that lists only some of the changes.
func moreLine(n int) string {
	return fmt.Sprintf("\n… and %d more; 'voxform plan' lists every change.\n", n)
}

// budgetLines states the budget, if any, and whether the plan's cost or
// its worst case exceeds it (Plan.CheckBudget decides, and its message
// says by how much).
func budgetLines(sb *strings.Builder, p *planner.Plan, b *manifest.Budget) {
	if b == nil || (b.MaxCharacters == nil && b.MaxAudioSeconds == nil) {
		return
	}
	var limits []string
	if b.MaxCharacters != nil {
		limits = append(limits, numfmt.Thousands(*b.MaxCharacters)+" characters")
	}
	if b.MaxAudioSeconds != nil {
		limits = append(limits, planner.Duration(*b.MaxAudioSeconds)+" of audio")
	}
	line := "Budget: " + strings.Join(limits, ", ")
	err := p.CheckBudget(b)
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

// failingLines lists the recorded listening checks that fail at the
// limits declared now: at most MaxFailingLines of them (and MaxRows), in
// at most a quarter of MaxBytes, each cut to MaxReason characters. A
// transcript is the service's text: inert here.
func failingLines(sb *strings.Builder, p *planner.Plan, o MarkdownOptions) {
	lines, outputs := listenFailing(p)
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n> [!WARNING]\n> %s\n", escapeCell(failingHead(outputs)))
	end := sb.Len() + o.MaxBytes/4
	for i, l := range lines {
		addr, why := addressOf(l), ""
		if len(addr) < len(l) {
			why = l[len(addr)+2:]
		}
		line := fmt.Sprintf("> - %s: %s\n", codeCell(cutAddress(addr)), escapeCell(cut(why, MaxReason)))
		if i == o.MaxRows || i == MaxFailingLines || sb.Len()+len(line) > end {
			fmt.Fprintf(sb, "> - … and %d more; 'voxform verify -listen' lists them all.\n", len(lines)-i)
			break
		}
		sb.WriteString(line)
	}
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

// cutAddress shortens an address to MaxAddress characters, with an
// ellipsis.
func cutAddress(s string) string { return clip(s, MaxAddress) }

// clip shortens s to at most max characters, ending with an ellipsis,
// leaving its white space as it is.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// cellEscaper makes text literal in a table cell: the pipe would end the
// cell, HTML would be rendered (audio tags such as <excited> vanish), and
// emphasis, links or images would change what is read.
var cellEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "~", `\~`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;",
)

// escapeCell is s as literal, inert text in a table cell: its controls
// escaped (untrusted.Escape, so no line break either), Markdown and HTML
// escaped, and mentions, references and bare URLs broken (inert).
func escapeCell(s string) string { return inert(cellEscaper.Replace(untrusted.Escape(s))) }

// codeCell is s as inline code in a table cell (an address): its controls
// escaped, fenced by more backticks than it holds in a row, padded when it
// begins or ends with a backtick or a space (CommonMark strips one space
// on each side), the pipe escaped for the table. Nothing in a code span
// is a mention, a reference or a link.
func codeCell(s string) string {
	s = strings.ReplaceAll(untrusted.Escape(s), "|", `\|`)
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// zwj, the zero-width joiner, is put where GitHub would otherwise see a
// mention, a reference or a link; it does not show.
const zwj = "\u200d"

// inert breaks, in escaped text, what GitHub turns into a notification
// or a link: a mention or an e-mail address (@team, a@b.example), an issue
// or pull request reference (#123, owner/repo#123, GH-123) and a bare URL
// (http://, https://, ftp://, www.), by a zero-width joiner after the @,
// the #, the GH, the scheme's colon or the www.
func inert(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		rest := s[i+1:]
		switch {
		case s[i] == '@' && isAlnum(next),
			s[i] == '#' && isDigit(next),
			s[i] == ':' && strings.HasPrefix(rest, "//") && linkScheme(s[:i]),
			(s[i] == 'h' || s[i] == 'H') && i > 0 && (s[i-1] == 'g' || s[i-1] == 'G') && strings.HasPrefix(rest, "-") && len(rest) > 1 && isDigit(rest[1]),
			(s[i] == 'w' || s[i] == 'W') && i >= 2 && strings.EqualFold(s[i-2:i+1], "www") && strings.HasPrefix(rest, "."):
			b.WriteString(zwj)
		}
	}
	return b.String()
}

// linkScheme reports whether s ends with a scheme GitHub links bare
// (http, https, ftp); s3:// and the like stay as they are.
func linkScheme(s string) bool {
	s = strings.ToLower(s[max(0, len(s)-5):])
	return strings.HasSuffix(s, "http") || strings.HasSuffix(s, "https") || strings.HasSuffix(s, "ftp")
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
