package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// approvalWas is an address's approval before a command that writes its
// outputs (import -force, use): a copy, and whether it held.
type approvalWas struct {
	approval *state.Approval
	held     bool
}

// approvalsBefore are the approvals the locked state of sess records for
// addrs (every address when addrs is nil), as they were before the
// command.
func approvalsBefore(sess *workspace.Session, addrs []string) (map[string]approvalWas, error) {
	st, err := sess.State()
	if err != nil {
		return nil, err
	}
	out := map[string]approvalWas{}
	for addr, r := range st.Resources {
		if r.Details().Approval == nil || addrs != nil && !slices.Contains(addrs, addr) {
			continue
		}
		a := *r.Details().Approval
		out[addr] = approvalWas{approval: &a, held: r.Approved()}
	}
	return out, nil
}

// approvalChanges says, for each address in was whose record the command
// changed whether its approval holds, "approval by X of T no longer
// holds" (its outputs are no longer the bytes approved) or "... holds
// again" (they are once more), reading the state the command left.
func approvalChanges(ctx context.Context, ws *workspace.Workspace, was map[string]approvalWas) (map[string]string, error) {
	if len(was) == 0 {
		return nil, nil
	}
	st, err := ws.ReadState(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the state to see its approvals: %w", err)
	}
	out := map[string]string{}
	for addr, w := range was {
		r := st.Resources[addr]
		holds := r != nil && r.Details().Approval != nil && r.Details().Approval.Digest == w.approval.Digest && r.Approved()
		what := ""
		switch {
		case w.held && !holds:
			what = "no longer holds"
		case !w.held && holds:
			what = "holds again"
		default:
			continue
		}
		out[addr] = fmt.Sprintf("approval by %s of %s %s", w.approval.By, w.approval.At.UTC().Format(time.RFC3339), what)
	}
	return out, nil
}

// writeApprovalChange prints what became of addr's approval: a warning
// when it no longer holds, a line when it holds again.
func writeApprovalChange(env *Env, addr, change string) {
	switch {
	case change == "":
	case strings.HasSuffix(change, "no longer holds"):
		fmt.Fprintf(env.Stderr, "voxform: warning: %s: %s\n", untrusted.Escape(addr), untrusted.Escape(change))
	default:
		fmt.Fprintf(env.Stdout, "%s: %s\n", untrusted.Escape(addr), untrusted.Escape(change))
	}
}
