package planner_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/cli/planview"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
)

// decodeLines decodes newline-delimited JSON objects, failing on anything
// else.
func decodeLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestWriteJSONMessages checks the content of the -json messages of a plan
// refused by its budget: the refusal first, then each planned_change with
// the fields of its action in dependency order (deletes last), then the
// change_summary with its counts, cost
// and budget.
func TestWriteJSONMessages(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	p.fs["refs/founder.wav"] = "a new take"                                   // embedding + 2 syntheses replaced
	p.m.Syntheses = removeSynthesis(p.m.Syntheses, `synthesis.menu["sales"]`) // deleted
	p.fs["recordings/b.wav"] = "call b, re-recorded"                          // 61.5 s of audio
	limit := int64(50)
	p.m.Budget = &manifest.Budget{MaxCharacters: &limit, Pos: budgetPos}
	plan, err := p.plan(t, st, planner.Options{})
	if !errors.Is(err, planner.ErrBudget) {
		t.Fatalf("err = %v, want a budget refusal", err)
	}
	fp, req := map[string]string{}, map[string]any{}
	for _, d := range p.desired(t) {
		fp[d.Address] = d.Fingerprint
		b, _ := json.Marshal(d.Wire)
		var m map[string]any
		json.Unmarshal(b, &m)
		req[d.Address] = m
	}
	var buf bytes.Buffer
	if err := planview.WriteJSONWith(&buf, plan, p.m.Budget, planview.ErrorMessage(err, "raise the budget")); err != nil {
		t.Fatal(err)
	}
	zero := map[string]any{"characters": 0.0, "audio_seconds": 0.0, "unknown_audio_inputs": 0.0}
	want := []map[string]any{
		{"type": "diagnostic", "severity": "error", "hint": "raise the budget",
			"message": "voxform.yaml:4:3: plan exceeds the budget: 54 billable characters, over budget.max_characters of 50"},
		{"type": "planned_change", "address": "embedding.founder", "action": "replace", "symbol": "-/+", "kind": "embedding",
			"reasons": []any{"reference audio changed"}, "outputs": []any{map[string]any{"path": "build/voices/founder.json"}},
			"fingerprint": fp["embedding.founder"], "request": req["embedding.founder"], "cost": zero},
		{"type": "planned_change", "address": "synthesis.founder_intro", "action": "replace", "symbol": "-/+", "kind": "synthesis",
			"reasons": []any{"embedding founder changed"}, "depends_on": []any{"embedding.founder"},
			"outputs": []any{map[string]any{"path": "build/founder/intro.wav"}}, "fingerprint": fp["synthesis.founder_intro"], "request": req["synthesis.founder_intro"],
			"cost": map[string]any{"characters": 30.0, "audio_seconds": 0.0, "unknown_audio_inputs": 0.0}},
		{"type": "planned_change", "address": "synthesis.founder_outro", "action": "replace", "symbol": "-/+", "kind": "synthesis",
			"reasons": []any{"embedding founder changed"}, "depends_on": []any{"embedding.founder"},
			"outputs": []any{map[string]any{"path": "build/founder/outro.wav"}}, "fingerprint": fp["synthesis.founder_outro"], "request": req["synthesis.founder_outro"],
			"cost": map[string]any{"characters": 24.0, "audio_seconds": 0.0, "unknown_audio_inputs": 0.0}},
		{"type": "planned_change", "address": `transcription.calls["recordings/b.wav"]`, "action": "replace", "symbol": "-/+",
			"kind": "transcription", "reasons": []any{"source file changed"},
			"outputs": []any{
				map[string]any{"path": "build/transcripts/b.json", "format": "json"},
				map[string]any{"path": "build/transcripts/b.srt", "format": "srt"},
				map[string]any{"path": "build/transcripts/b.txt", "format": "txt"},
			},
			"fingerprint": fp[`transcription.calls["recordings/b.wav"]`], "request": req[`transcription.calls["recordings/b.wav"]`],
			"cost": map[string]any{"characters": 0.0, "audio_seconds": 61.5, "unknown_audio_inputs": 0.0}},
		{"type": "planned_change", "address": `synthesis.menu["sales"]`, "action": "delete", "symbol": "-", "kind": "synthesis",
			"reasons": []any{"no longer in the manifest"}, "removes": []any{"build/ivr/menu/sales.wav"}, "cost": zero},
		{"type": "change_summary", "add": 0.0, "replace": 4.0, "repair": 0.0, "restore": 0.0, "move": 0.0, "resume": 0.0, "destroy": 1.0, "no_op": 4.0,
			"cost":   map[string]any{"characters": 54.0, "audio_seconds": 61.5, "unknown_audio_inputs": 0.0},
			"budget": map[string]any{"max_characters": 50.0, "max_audio_seconds": nil}},
	}
	if diff := cmp.Diff(want, decodeLines(t, buf.Bytes())); diff != "" {
		t.Errorf("-json messages (-want +got):\n%s", diff)
	}
	for _, a := range want {
		if a["action"] == "replace" && a["fingerprint"] == "" {
			t.Errorf("%s: no desired fingerprint to compare with", a["address"])
		}
	}
}

// TestWriteJSONWithoutBudget: WriteJSON writes no diagnostic and a
// change_summary without "budget"; an empty plan is one summary line.
func TestWriteJSONWithoutBudget(t *testing.T) {
	p := baseProject()
	st := p.apply(t)
	plan, err := p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := planview.WriteJSON(&buf, plan, nil); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"type": "change_summary", "add": 0.0, "replace": 0.0, "repair": 0.0, "restore": 0.0, "move": 0.0,
		"resume": 0.0, "destroy": 0.0, "no_op": 9.0,
		"cost": map[string]any{"characters": 0.0, "audio_seconds": 0.0, "unknown_audio_inputs": 0.0}}}
	if diff := cmp.Diff(want, decodeLines(t, buf.Bytes())); diff != "" {
		t.Errorf("-json messages (-want +got):\n%s", diff)
	}
}
