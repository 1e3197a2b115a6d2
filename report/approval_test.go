package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/report"
	"github.com/voxform/voxform/state"
)

// hostileNote is an approver's note that would run if the page took it
// into HTML: it must show as text.
const hostileNote = `<script>window.pwned=1</script><b>bold</b> & "q"`

// signOffState is a state of five made syntheses: approved and holding
// (by a hostile approver), approved then changed, never approved (an
// address with a space and a single quote), imported, and a take put
// back; and a pending one, not made.
func signOffState(t *testing.T, dir string) *state.File {
	t.Helper()
	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	st := state.New()
	add := func(addr, text string, i int) *state.Resource {
		body := []byte(text)
		path := filepath.Join("build", strings.NewReplacer(`"`, "", "[", "_", "]", "", "'", "", " ", "_").Replace(addr)+".wav")
		if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), body, 0o644); err != nil {
			t.Fatal(err)
		}
		r := &state.Resource{Kind: "synthesis", Status: state.StatusComplete, Fingerprint: strings.Repeat(string(rune('a'+i)), 64),
			Request: map[string]any{"text": text, "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN"},
			Outputs: []state.Output{{Path: filepath.ToSlash(path), SHA256: sum(body), Size: int64(len(body))}}}
		st.Resources[addr] = r
		return r
	}
	held := add(`synthesis.menu["held"]`, "press one", 0)
	held.Edit().Approval = &state.Approval{Digest: state.OutputsDigest(held.Outputs), By: `Eve <script>alert(1)</script>`, At: at, Note: hostileNote}
	lost := add(`synthesis.menu["lost"]`, "press two", 1)
	lost.Edit().Approval = &state.Approval{Digest: strings.Repeat("0", 64), By: "Ana <ana@example.com>", At: at, Note: "TICKET-7"}
	add(`synthesis.menu["it's a b"]`, "press three", 2)
	add(`synthesis.menu["plain"]`, "press four", 5)
	studio := add("synthesis.studio", "press seven", 6)
	studio.Origin = "recorded"                                                                                                 // what apply records for a recorded: synthesis
	studio.Request = map[string]any{"recorded": map[string]any{"path": "studio/seven.wav", "sha256": strings.Repeat("7", 64)}} // no text: a recording's request
	imp := add("synthesis.imported", "press five", 3)
	imp.Origin = state.OriginImported
	take := add("synthesis.take", "press six", 4)
	take.Origin, take.Edit().Take = state.OriginTake, strings.Repeat("9", 64)
	st.Resources["synthesis.pending"] = (&state.Resource{Kind: "synthesis", Status: state.StatusPending,
		Fingerprint: strings.Repeat("f", 64), Request: map[string]any{"text": "later"}}).WithDetails(state.Details{JobID: "job-1"})
	return st
}

// TestReportSignOff: every row says its approval (holding, lost, none)
// with who, when and the note, and where its outputs came from; the made
// resources whose approval does not hold are approvable (a tick box),
// those approved or not made are not; the totals count them; the
// approver's name and note reach the page only as escaped data.
func TestReportSignOff(t *testing.T) {
	dir := t.TempDir()
	st := signOffState(t, dir)
	out := filepath.Join(dir, "report")
	m := &manifest.Manifest{Dir: dir, Version: 1, Syntheses: []*manifest.Synthesis{{Name: "studio", Address: "synthesis.studio", Text: "press seven"}}}
	if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: st, Manifest: m}); err != nil {
		t.Fatal(err)
	}
	items := map[string]map[string]any{}
	for _, it := range pageData(t, out) {
		items[it["address"].(string)] = it
	}
	if items["synthesis.studio"]["text"] != "press seven" {
		t.Errorf("the recorded synthesis's text %v, want the declared text", items["synthesis.studio"]["text"])
	}
	approval := func(addr string) map[string]any { a, _ := items[addr]["approval"].(map[string]any); return a }
	if a := approval(`synthesis.menu["held"]`); a == nil || a["state"] != "approved" || a["by"] != `Eve <script>alert(1)</script>` ||
		a["at"] != "2026-11-02T09:30:00Z" || a["note"] != hostileNote {
		t.Errorf("the held approval reads %v", a)
	}
	if a := approval(`synthesis.menu["lost"]`); a == nil || a["state"] != "lost" || a["by"] != "Ana <ana@example.com>" || a["note"] != "TICKET-7" {
		t.Errorf("the lost approval reads %v", a)
	}
	for addr, want := range map[string]bool{`synthesis.menu["held"]`: false, `synthesis.menu["lost"]`: true, `synthesis.menu["it's a b"]`: true,
		"synthesis.imported": true, "synthesis.take": true, "synthesis.pending": false} {
		if got := items[addr]["approvable"] == true; got != want {
			t.Errorf("%s approvable %v, want %v", addr, got, want)
		}
	}
	if approval(`synthesis.menu["it's a b"]`) != nil || items[`synthesis.menu["it's a b"]`]["made"] != true || items["synthesis.pending"]["made"] == true {
		t.Errorf("unapproved row %v, pending row %v: want made and no approval, and not made", items[`synthesis.menu["it's a b"]`], items["synthesis.pending"])
	}
	if items["synthesis.imported"]["origin"] != "imported" || items["synthesis.take"]["origin"] != "take 999999999999" ||
		items["synthesis.studio"]["origin"] != "recorded" || items["synthesis.studio"]["recording"] != "studio/seven.wav" {
		t.Errorf("origins %v, %v, %v from %v", items["synthesis.imported"]["origin"], items["synthesis.take"]["origin"],
			items["synthesis.studio"]["origin"], items["synthesis.studio"]["recording"])
	}
	page, err := os.ReadFile(filepath.Join(out, report.PageName))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"<script>window.pwned", "<b>bold</b>", "<script>alert(1)"} {
		if strings.Contains(string(page), raw) {
			t.Errorf("the page holds %q raw", raw)
		}
	}
	for total, want := range map[string]string{"approved": "<b>1</b> approved", "approval-lost": "<b>1</b> approval lost", "unapproved": "<b>5</b> not approved"} {
		if !strings.Contains(string(page), `data-total="`+total+`"><b>`) || !strings.Contains(string(page), want) {
			t.Errorf("the totals lack %q", want)
		}
	}
}

// TestReportPlanSignOff: on a saved plan's page, a replace of an approved
// resource says its approval ends and where the replaced outputs came
// from; a pinned resource is listed once, as left alone with its pinned
// reason, and not approvable (its approval holds); a resource the plan
// leaves alone and nobody approved is approvable; one to be made is not.
func TestReportPlanSignOff(t *testing.T) {
	dir := t.TempDir()
	st := signOffState(t, dir)
	v := &manifest.Voice{Name: "v", Address: "voice.v", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN"}
	m := &manifest.Manifest{Dir: dir, Version: 1, Voices: []*manifest.Voice{v}, Service: manifest.Service{Profile: "documented"},
		Syntheses: []*manifest.Synthesis{{Name: "imported", Address: "synthesis.imported", Voice: "v", Model: v.Model, VoiceName: v.Voice,
			Language: v.Language, Text: "press five again", Output: "build/synthesis.imported.wav", Transport: "rest"}}}
	ds, err := planner.Build(m, func(string) (state.FileHash, error) { return state.FileHash{}, fmt.Errorf("no input files") })
	if err != nil {
		t.Fatal(err)
	}
	imp := st.Resources["synthesis.imported"]
	imp.Edit().Approval = &state.Approval{Digest: state.OutputsDigest(imp.Outputs), By: "Ana", At: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)}
	held := st.Resources[`synthesis.menu["held"]`]
	plan := &planner.Plan{
		Actions: []*planner.Action{{Address: "synthesis.imported", Type: planner.Replace, Desired: ds[0], Prior: imp, Reasons: []string{"text"}},
			{Address: "synthesis.new", Type: planner.Create, Desired: ds[0]},
			{Address: "synthesis.rec", Type: planner.Create, Desired: (&planner.Desired{Address: "synthesis.rec", Kind: manifest.KindSynthesis,
				Wire: planner.Wire{Synthesis: &contract.SynthesisRequest{Text: "press eight"}}, Fingerprint: strings.Repeat("8", 64)}).
				WithRequest(json.RawMessage(`{"recorded":{"path":"studio/eight.wav"}}`))}},
		Pinned: []planner.Pinned{{Address: `synthesis.menu["held"]`, Kind: "synthesis", Reasons: []string{"voice Kaveri -> Deepak"}, Approval: *held.Details().Approval}},
	}
	out := filepath.Join(dir, "report")
	if err := report.Build(context.Background(), report.Input{Dir: dir, Out: out, State: st, Plan: &planner.SavedPlan{Plan: plan}}); err != nil {
		t.Fatal(err)
	}
	items := map[string]map[string]any{}
	n := 0
	for _, it := range pageData(t, out) {
		items[it["address"].(string)] = it
		if it["address"] == `synthesis.menu["held"]` {
			n++
		}
	}
	r := items["synthesis.imported"]
	if a, _ := r["approval"].(map[string]any); a == nil || a["state"] != "ends" || a["by"] != "Ana" || r["origin"] != "imported" || r["approvable"] == true {
		t.Errorf("the replaced approved import: %v", r)
	}
	pin := items[`synthesis.menu["held"]`]
	reasons, _ := pin["reasons"].([]any)
	if n != 1 || pin["action"] != "no-op" || pin["approvable"] == true || len(reasons) != 1 ||
		!strings.HasPrefix(reasons[0].(string), "pinned (approved): approved by Eve") || !strings.Contains(reasons[0].(string), "voice Kaveri -> Deepak") {
		t.Errorf("the pinned row (%d of it): %v", n, pin)
	}
	if rec := items["synthesis.rec"]; rec["text"] != "press eight" || rec["recording"] != "studio/eight.wav" {
		t.Errorf("the recording to be copied: %v", rec)
	}
	if items[`synthesis.menu["it's a b"]`]["approvable"] != true || items["synthesis.new"]["approvable"] == true {
		t.Errorf("approvable: left alone %v, to be made %v; want true and false", items[`synthesis.menu["it's a b"]`]["approvable"], items["synthesis.new"]["approvable"])
	}
}
