package planview

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// approved is a made synthesis whose approval by who holds (or, with
// holds false, was lost).
func approved(who string, holds bool) *state.Resource {
	r := &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Request: map[string]any{"text": "old"},
		Outputs: []state.Output{{Path: "build/x.wav", SHA256: strings.Repeat("1", 64), Size: 10}}}
	r.Edit().Approval = &state.Approval{Digest: state.OutputsDigest(r.Outputs), By: who, At: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)}
	if !holds {
		r.Details().Approval.Digest = strings.Repeat("0", 64)
	}
	return r
}

// TestMarkdownApprovals: the summary says how many declared resources
// are approved and holding (pinned ones among them), names each approval
// the plan ends (a replace or delete of an approved resource; not one
// already lost), counts the outputs not made by the service it replaces
// (a replaced recording's row names the recording), and keeps the
// approver's text inert.
func TestMarkdownApprovals(t *testing.T) {
	replaced := synthesis(`synthesis.menu["a b"]`, "new")
	replaced.Type, replaced.Reasons, replaced.Prior = planner.Replace, []string{"voice Kaveri -> Deepak"}, approved("@legal <b>x</b>", true)
	gone := &planner.Action{Address: "synthesis.gone", Type: planner.Delete, Reasons: []string{"no longer in the manifest"}, Prior: approved("Ana", true)}
	lost := synthesis("synthesis.lost", "new")
	lost.Type, lost.Reasons, lost.Prior = planner.Replace, []string{"text"}, approved("Bo", false)
	studio := synthesis("synthesis.studio", "new")
	studio.Type, studio.Reasons = planner.Replace, []string{"recorded: removed, synthesized (billed)"}
	studio.Prior = &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Origin: "recorded",
		Request: map[string]any{"recorded": map[string]any{"path": "studio/x.wav", "sha256": strings.Repeat("7", 64)}}}
	imported := synthesis("synthesis.imported", "new")
	imported.Type, imported.Reasons, imported.Prior = planner.Replace, []string{"text"}, &state.Resource{Kind: "synthesis", Origin: state.OriginImported}
	p := &planner.Plan{NoOps: 15, Actions: []*planner.Action{replaced, gone, lost, studio, imported},
		Pinned: []planner.Pinned{{Address: "synthesis.pinned", Kind: "synthesis", Approval: *approved("Cy", true).Details().Approval}}}
	var b strings.Builder
	if err := Markdown(&b, p, nil, MarkdownOptions{Approvals: &Approvals{Declared: 20, Holding: 12}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "\n**Approvals:** 12 of 20 declared resources approved and holding (1 pinned); this plan ends 2:\n\n" +
		"- `synthesis.menu[\"a b\"]`: approval by @\u200dlegal &lt;b&gt;x&lt;/b&gt; of 2026-11-02T09:30:00Z will no longer hold\n" +
		"- `synthesis.gone`: approval by Ana of 2026-11-02T09:30:00Z will no longer hold\n" +
		"\n2 outputs not made by the service are replaced or removed by this plan (each row says where it came from).\n"
	if !strings.Contains(out, want) {
		t.Errorf("markdown lacks\n%s\nin\n%s", want, out)
	}
	if !strings.Contains(out, "recorded: removed, synthesized (billed); replaces the recording studio/x.wav") {
		t.Errorf("the replaced recording's row does not name it:\n%s", out)
	}

	// Unknown figures: only what the plan ends; nothing at all when it
	// ends none, pins none and replaces only the service's outputs.
	b.Reset()
	p.Pinned = nil
	if err := Markdown(&b, p, nil, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n**Approvals:** this plan ends 2:\n") {
		t.Errorf("without figures:\n%s", b.String())
	}
	b.Reset()
	if err := Markdown(&b, &planner.Plan{Actions: []*planner.Action{lost}}, nil, MarkdownOptions{Approvals: &Approvals{Declared: 3}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Approvals") {
		t.Errorf("a plan with nothing approved has an approvals section:\n%s", b.String())
	}
	// No changes, but approvals: the figures.
	b.Reset()
	if err := Markdown(&b, &planner.Plan{NoOps: 3}, nil, MarkdownOptions{Approvals: &Approvals{Declared: 3, Holding: 3}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Approvals:** 3 of 3 declared resources approved and holding; this plan ends none.") {
		t.Errorf("no changes:\n%s", b.String())
	}
}

// TestMarkdownApprovalsBounded: a plan ending many approvals of long
// addresses lists MaxApprovalLines of them, and the smallest summary
// stays within its bytes.
func TestMarkdownApprovalsBounded(t *testing.T) {
	p := &planner.Plan{}
	for i := range 500 {
		a := synthesis(fmt.Sprintf("synthesis.menu[%q]", strings.Repeat("k", 200)+fmt.Sprint(i)), "new")
		a.Type, a.Reasons, a.Prior = planner.Replace, []string{"text"}, approved(strings.Repeat("A", 250), true)
		p.Actions = append(p.Actions, a)
	}
	for _, max := range []int{MinMaxBytes, DefaultMaxBytes} {
		var b strings.Builder
		if err := Markdown(&b, p, nil, MarkdownOptions{MaxBytes: max, Approvals: &Approvals{Declared: 500, Holding: 500}}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		listed := strings.Count(out, "will no longer hold")
		if len(out) > max || listed == 0 || listed > MaxApprovalLines || !strings.Contains(out, fmt.Sprintf("- … and %d more", 500-listed)) {
			t.Errorf("MaxBytes %d: %d bytes, %d approvals listed:\n%s", max, len(out), listed, out)
		}
	}
}

// TestCountApprovals: the declared resources are those the plan leaves
// alone, pins or changes without deleting; an approval holding in the
// state counts unless the plan deletes its resource; a -target or
// -destroy plan has no figures.
func TestCountApprovals(t *testing.T) {
	st := state.New()
	st.Resources["synthesis.kept"] = approved("Ana", true)
	st.Resources["synthesis.replaced"] = approved("Ana", true)
	st.Resources["synthesis.gone"] = approved("Ana", true)
	st.Resources["synthesis.lost"] = approved("Ana", false)
	replaced := synthesis("synthesis.replaced", "new")
	replaced.Type = planner.Replace
	p := &planner.Plan{NoOps: 2, Actions: []*planner.Action{replaced, synthesis("synthesis.new", "x"),
		{Address: "synthesis.gone", Type: planner.Delete}}}
	if got := CountApprovals(p, st); got == nil || *got != (Approvals{Declared: 4, Holding: 2}) {
		t.Errorf("figures %+v, want 4 declared, 2 holding", got)
	}
	p.Options.Targets = []string{"synthesis.kept"}
	if got := CountApprovals(p, st); got != nil {
		t.Errorf("a targeted plan's figures %+v, want none", got)
	}
}
