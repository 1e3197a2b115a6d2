package planview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/state"
)

// pinnedPlan replaces one prompt and pins another, whose approver's name
// holds a mention and an escape sequence (a state is anyone's to edit).
func pinnedPlan() *planner.Plan {
	p := &planner.Plan{NoOps: 3}
	a := synthesis(`synthesis.menu["sales"]`, "press three")
	a.Type, a.Reasons = planner.Replace, []string{"voice Kaveri -> Deepak"}
	p.Actions = append(p.Actions, a)
	p.Pinned = []planner.Pinned{{Address: `synthesis.menu["billing"]`, Kind: "synthesis", Reasons: []string{"voice Kaveri -> Deepak"},
		Approval: state.Approval{Digest: strings.Repeat("a", 64), By: "@legal \x1b[2J", At: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}}}
	return p
}

// TestPinnedShown: a pinned resource is a row of the table, of the
// Markdown summary and a "pinned" message of -json, with its approval and
// why the fingerprint changed, and the summary counts it; a plan with
// only pinned resources still shows them.
func TestPinnedShown(t *testing.T) {
	p := pinnedPlan()
	var text bytes.Buffer
	if err := Render(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"pinned (approved)", `synthesis.menu["billing"]`, "approved by @legal", "2026-11-27T09:00:00Z; voice Kaveri -> Deepak",
		"1 to replace", "0 to destroy; 1 pinned (approved)."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("plan text writes the state's escape sequence raw")
	}

	var md bytes.Buffer
	if err := Markdown(&md, p, nil, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := md.String(); !strings.Contains(s, "pinned (approved): approved by") || !strings.Contains(s, "1 pinned (approved)") || strings.Contains(s, "@legal") {
		t.Errorf("markdown:\n%s", s)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, p, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	var pin struct {
		Type, Address string
		Reasons       []string
		Approval      struct{ By string }
	}
	var sum struct{ Pinned int }
	if len(lines) != 3 || json.Unmarshal([]byte(lines[1]), &pin) != nil || json.Unmarshal([]byte(lines[2]), &sum) != nil {
		t.Fatalf("json:\n%s", js.String())
	}
	if pin.Type != MsgPinned || pin.Address != `synthesis.menu["billing"]` || pin.Approval.By != "@legal \x1b[2J" || len(pin.Reasons) != 1 || sum.Pinned != 1 {
		t.Errorf("json pinned %+v, summary %+v", pin, sum)
	}

	p.Actions = nil
	text.Reset()
	if err := Render(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "pinned (approved)") {
		t.Errorf("a plan with only pinned resources hides them:\n%s", text.String())
	}
}

// TestPinnedWithWorkListedOnce: a pinned resource whose output the plan
// puts back is the row of its restore, not also a row of its own, in the
// table and in the Markdown summary; the summary still counts it pinned.
func TestPinnedWithWorkListedOnce(t *testing.T) {
	p := pinnedPlan()
	a := synthesis(`synthesis.menu["billing"]`, "press two")
	a.Type, a.Reasons = planner.Restore, []string{"pinned (approved by @legal); missing or modified: billing.wav"}
	p.Actions = append(p.Actions, a)
	var text, md bytes.Buffer
	if err := Render(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, p, nil, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": text.String(), "markdown": md.String()} {
		if n := strings.Count(out, `menu["billing"]`); n != 1 {
			t.Errorf("%s lists the pinned and restored prompt %d times, want once:\n%s", name, n, out)
		}
	}
	if !strings.Contains(text.String(), "1 pinned (approved).") {
		t.Errorf("the summary no longer counts the pinned prompt:\n%s", text.String())
	}
}
