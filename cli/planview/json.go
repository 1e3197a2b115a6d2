package planview

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// Message types of the -json output (see the package documentation).
const (
	MsgDiagnostic    = "diagnostic"
	MsgPlannedChange = "planned_change"
	MsgChangeSummary = "change_summary"
	MsgPinned        = "pinned"
)

// PinnedMessage is a resource keep_approved kept from being replaced, in
// -json output: why its fingerprint changed, and the approval that holds.
type PinnedMessage struct {
	Type string `json:"type"`
	planner.Pinned
}

// DiagnosticMessage is a manifest diagnostic (or a plan error) in -json
// output.
type DiagnosticMessage struct {
	Type     string `json:"type"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Hint     string `json:"hint,omitempty"`
}

// PlannedChange is one action in -json output.
type PlannedChange struct {
	Type      string           `json:"type"`
	Address   string           `json:"address"`
	Action    string           `json:"action"`
	Symbol    string           `json:"symbol"`
	Kind      string           `json:"kind"`
	Reasons   []string         `json:"reasons,omitempty"`
	DependsOn []string         `json:"depends_on,omitempty"`
	Outputs   []planner.Output `json:"outputs,omitempty"`
	Moves     []planner.Rename `json:"moves,omitempty"`
	Removes   []string         `json:"removes,omitempty"`
	MovedFrom string           `json:"moved_from,omitempty"`
	// RenderFrom: a free repair rendering transcript formats from this JSON.
	RenderFrom string `json:"render_from,omitempty"`
	// RestoreFrom: a restore takes its outputs from this cache ("local" or
	// the remote's URL).
	RestoreFrom string `json:"restore_from,omitempty"`
	// Refused: apply will fail this action without calling the service
	// (a file voxform did not make is at one of its paths).
	Refused     string `json:"refused,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Request is exactly what apply sends (a vc-v1 synthesis adds its
	// speaker embedding; a URL's pre-signed query is left out).
	Request *planner.Wire `json:"request,omitempty"`
	Cost    planner.Cost  `json:"cost"`
	// Chunks: a synthesis whose text is split, with how many of its
	// chunks are synthesized (the request's text is the whole text; each
	// chunk is its own request).
	Chunks *planner.ChunkWork `json:"chunks,omitempty"`
	// Listen: a synthesis with listen:, with the listening checks the
	// action makes, their audio seconds (in Cost), its worst case and the
	// recorded checks that fail at the limits declared now.
	Listen *planner.ListenWork `json:"listen,omitempty"`
}

// ChangeSummary is the last message of -json plan output.
type ChangeSummary struct {
	Type    string       `json:"type"`
	Add     int          `json:"add"`
	Replace int          `json:"replace"`
	Repair  int          `json:"repair"`
	Move    int          `json:"move"`
	Restore int          `json:"restore"`
	Resume  int          `json:"resume"`
	Destroy int          `json:"destroy"`
	NoOp    int          `json:"no_op"`
	Cost    planner.Cost `json:"cost"`
	Budget  *BudgetMsg   `json:"budget,omitempty"`
	// Check counts the resources whose only work is a listening check.
	Check int `json:"check,omitempty"`
	// Remaster counts the resources whose only work is mastering their
	// delivered outputs again (free).
	Remaster int `json:"remaster,omitempty"`
	// Pinned counts the replaces keep_approved kept from happening.
	Pinned int `json:"pinned,omitempty"`
	// WorstCase is what the plan bills at worst (every take regenerate
	// allows), which the budget holds; present when a change has
	// listening checks.
	WorstCase *planner.Cost `json:"worst_case,omitempty"`
	// ListenFailed are the recorded listening checks that fail at the
	// limits declared now: "synthesis.x: chunk 12 of 30 (143.2 s): why".
	ListenFailed []string `json:"listen_failed,omitempty"`
}

// BudgetMsg is the manifest's budget in a change_summary; null is unlimited.
type BudgetMsg struct {
	MaxCharacters   *int64   `json:"max_characters"`
	MaxAudioSeconds *float64 `json:"max_audio_seconds"`
}

// Diagnostic returns the -json message of a manifest diagnostic.
func Diagnostic(d manifest.Diagnostic) DiagnosticMessage {
	return DiagnosticMessage{Type: MsgDiagnostic, Severity: string(d.Severity), Message: d.Message,
		File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col, Hint: d.Hint}
}

// Change returns the -json message of an action.
func Change(a *planner.Action) PlannedChange {
	pc := PlannedChange{
		Type: MsgPlannedChange, Address: a.Address, Action: string(a.Type), Symbol: a.Type.Symbol(),
		Reasons: a.Reasons, DependsOn: a.DependsOn, Moves: a.Details().Moves, Removes: a.Details().Removes,
		MovedFrom: a.Details().MovedFrom, RenderFrom: a.Details().RenderFrom, RestoreFrom: a.Details().RestoreFrom, Refused: a.Details().Refused, Cost: a.Cost,
		Chunks: a.Chunks, Listen: a.Listen,
	}
	switch {
	case a.Desired != nil:
		pc.Kind = string(a.Desired.Kind)
		pc.Outputs = a.Desired.Outputs
		pc.Fingerprint = a.Desired.Fingerprint
		pc.Request = &a.Desired.Wire
	case a.Prior != nil:
		pc.Kind = a.Prior.Kind
	}
	return pc
}

// SummaryMessage returns the change_summary message of the plan.
func SummaryMessage(p *planner.Plan, b *manifest.Budget) ChangeSummary {
	s := p.Summary()
	cs := ChangeSummary{Type: MsgChangeSummary, Add: s.Add, Replace: s.Replace, Repair: s.Repair, Restore: s.Restore,
		Move: s.Move, Resume: s.Resume, Destroy: s.Destroy, NoOp: s.NoOp, Cost: p.Cost, Check: s.Check, Remaster: s.Remaster, Pinned: s.Pinned}
	for _, a := range p.Actions {
		if a.Listen != nil {
			worst := p.Worst
			cs.WorstCase = &worst
			break
		}
	}
	cs.ListenFailed, _ = listenFailing(p)
	if b != nil {
		cs.Budget = &BudgetMsg{MaxCharacters: b.MaxCharacters, MaxAudioSeconds: b.MaxAudioSeconds}
	}
	return cs
}

// ErrorMessage returns the -json diagnostic of a plan error (a budget
// refusal, say): severity error, no position, the hint when there is one.
func ErrorMessage(err error, hint string) DiagnosticMessage {
	return DiagnosticMessage{Type: MsgDiagnostic, Severity: "error", Message: err.Error(), Hint: hint}
}

// WriteJSON writes the plan's planned_change messages in dependency order,
// then its change_summary, one JSON object per line.
func WriteJSON(w io.Writer, p *planner.Plan, b *manifest.Budget) error {
	return WriteJSONWith(w, p, b)
}

// WriteJSONWith writes the -json messages of a plan in the documented
// order: diags first, then the planned_change messages in dependency order,
// then the change_summary. A plan returned with an error (ErrBudget) passes
// that error as ErrorMessage(err, hint), so that it precedes the summary.
func WriteJSONWith(w io.Writer, p *planner.Plan, b *manifest.Budget, diags ...DiagnosticMessage) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range diags {
		d.Type = MsgDiagnostic
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("write plan: %w", err)
		}
	}
	for _, a := range p.Actions {
		if err := enc.Encode(Change(a)); err != nil {
			return fmt.Errorf("write plan: %w", err)
		}
	}
	for _, pin := range p.Pinned {
		if err := enc.Encode(PinnedMessage{Type: MsgPinned, Pinned: pin}); err != nil {
			return fmt.Errorf("write plan: %w", err)
		}
	}
	if err := enc.Encode(SummaryMessage(p, b)); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}
