package planview

import (
	"fmt"
	"strings"
	"time"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// MaxApprovalLines is how many approvals a plan ends a Markdown summary
// lists before "… and K more".
const MaxApprovalLines = 20

// MaxApprover is how many characters of an approver's name are shown.
const MaxApprover = 80

// Approvals are the sign-off figures of the declared resources as the
// state records them, for a Markdown summary.
type Approvals struct {
	// Declared counts the declared resources; Holding those among them
	// whose recorded approval holds (pinned ones included).
	Declared, Holding int
}

// CountApprovals is the Approvals of the resources plan p (computed
// from st) declares: those it leaves alone, pins, or changes without
// deleting; nil for a plan of some of them (-target) or of none
// (-destroy). An approval that holds in st counts, even when p ends it.
func CountApprovals(p *planner.Plan, st *state.File) *Approvals {
	if len(p.Options.Targets) > 0 || p.Options.Destroy {
		return nil
	}
	a := &Approvals{Declared: p.NoOps + len(p.Pinned)}
	pinned := make(map[string]bool, len(p.Pinned))
	for _, pin := range p.Pinned {
		pinned[pin.Address] = true
	}
	for _, act := range p.Actions {
		if act.Type != planner.Delete && !pinned[act.Address] { // a pinned one's work: counted pinned
			a.Declared++
		}
	}
	for addr, r := range st.Resources {
		if act := p.Action(addr); r.Approved() && (act == nil || act.Type != planner.Delete) {
			a.Holding++
		}
	}
	return a
}

// approvalLines is the summary's sign-off section: how many declared
// resources are approved and holding (when o.Approvals is known), each
// approval the plan ends (a replace or delete of an approved resource),
// and how many outputs not made by the service it replaces or removes
// (their rows say where each came from). Nothing when there is none of
// these. The list is bounded as failingLines is, in at most a quarter
// of MaxBytes.
func approvalLines(sb *strings.Builder, p *planner.Plan, o MarkdownOptions) {
	var ends []string
	origins := 0
	for _, a := range grouped(p) {
		if a.Prior == nil {
			continue
		}
		if (a.Type == planner.Replace || a.Type == planner.Delete) && a.Prior.Approved() {
			ap := a.Prior.Details().Approval
			ends = append(ends, fmt.Sprintf("- %s: %s\n", codeCell(cutAddress(a.Address)),
				escapeCell(fmt.Sprintf("approval by %s of %s will no longer hold", cut(ap.By, MaxApprover), ap.At.UTC().Format(time.RFC3339)))))
		}
		if originPhrase(a) != "" {
			origins++
		}
	}
	holding := o.Approvals != nil && o.Approvals.Holding > 0
	if !holding && len(ends) == 0 && origins == 0 && len(p.Pinned) == 0 {
		return
	}
	sb.WriteString("\n**Approvals:**")
	if o.Approvals != nil {
		fmt.Fprintf(sb, " %d of %d declared resource%s approved and holding", o.Approvals.Holding, o.Approvals.Declared, plural(o.Approvals.Declared))
		if len(p.Pinned) > 0 {
			fmt.Fprintf(sb, " (%d pinned)", len(p.Pinned))
		}
		sb.WriteString(";")
	} else if len(p.Pinned) > 0 {
		fmt.Fprintf(sb, " %d pinned;", len(p.Pinned))
	}
	switch len(ends) {
	case 0:
		sb.WriteString(" this plan ends none.\n")
	default:
		fmt.Fprintf(sb, " this plan ends %d:\n\n", len(ends))
		boundedList(sb, ends, o)
	}
	if origins > 0 {
		fmt.Fprintf(sb, "\n%d output%s not made by the service %s replaced or removed by this plan (each row says where it came from).\n",
			origins, plural(origins), map[bool]string{true: "is", false: "are"}[origins == 1])
	}
}

// boundedList writes the lines of a list: at most MaxApprovalLines (and
// MaxRows) of them, in at most a quarter of MaxBytes.
func boundedList(sb *strings.Builder, lines []string, o MarkdownOptions) {
	end := sb.Len() + o.MaxBytes/4
	for i, l := range lines {
		if i == o.MaxRows || i == MaxApprovalLines || sb.Len()+len(l) > end {
			fmt.Fprintf(sb, "- … and %d more; 'voxform plan' lists every change.\n", len(lines)-i)
			return
		}
		sb.WriteString(l)
	}
}
