package cli

import (
	"fmt"
	"io"

	"github.com/voxform/voxform/internal/junit"
	"github.com/voxform/voxform/internal/untrusted"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/state"
)

// approvalCheck is the approval of one declared resource, in verify
// -require-approved -json output.
type approvalCheck struct {
	Address string `json:"address"`
	// Approved: an approval is recorded and holds.
	Approved bool `json:"approved"`
	// Status says it in words: "approved by X at T", "approval lost:
	// outputs changed since ...", "not approved", "not made".
	Status   string          `json:"status"`
	Approval *state.Approval `json:"approval,omitempty"`
}

// checkApprovals is verify -require-approved: every resource m declares
// that writes outputs is judged by its recorded approval; each not
// approved (or whose approval no longer holds) is a finding.
func (res *verifyResult) checkApprovals(w io.Writer, m *manifest.Manifest, st *state.File, jsonOut bool, f *findings) error {
	res.approvals = []approvalCheck{}
	unapproved := 0
	for _, a := range declaredAddresses(m) {
		c := approvalCheck{Address: a, Status: "not made"}
		if r := st.Resources[a]; r != nil {
			c.Approved, c.Status, c.Approval = r.Approved(), state.ApprovalStatus(r), r.Details().Approval
		}
		res.approvals = append(res.approvals, c)
		if !c.Approved {
			unapproved++
		}
		if jsonOut {
			if err := writeJSONLine(w, c); err != nil {
				return err
			}
		} else if !c.Approved {
			fmt.Fprintf(w, "%s: %s\n", untrusted.Escape(a), untrusted.Escape(c.Status))
		}
	}
	if !jsonOut {
		fmt.Fprintf(w, "Approvals of %d declared resource(s): %d not approved.\n", len(res.approvals), unapproved)
	}
	if unapproved > 0 {
		f.add(fmt.Sprintf("%d declared resource(s) are not approved", unapproved),
			"listen to them, then 'voxform approve ADDRESS...' (synthesis.menu[*] names a whole block)")
	}
	return nil
}

// approvalSuite is one JUnit case per declared resource: a failure says
// it is not approved, or that its approval was lost; a pass says by whom.
func approvalSuite(checks []approvalCheck) junit.Suite {
	s := junit.Suite{Name: "approval"}
	for _, c := range checks {
		jc := junit.Case{Class: c.Address, Name: "approval " + c.Address}
		if c.Approved {
			jc.Output = c.Status
		} else {
			jc.Failure = &junit.Failure{Type: "approval", Message: c.Status}
		}
		s.Cases = append(s.Cases, jc)
	}
	return s
}

// approvalMarkdown is the job summary's approval sentence; each resource
// not approved is a row.
func approvalMarkdown(checks []approvalCheck, rows *[][]string) string {
	n := 0
	for _, c := range checks {
		if !c.Approved {
			n++
			*rows = append(*rows, []string{c.Address, "", c.Status})
		}
	}
	return fmt.Sprintf(" Approvals of %d declared resource(s): %d not approved.", len(checks), n)
}
