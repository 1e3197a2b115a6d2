package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// jsonLines parses stdout as newline-delimited JSON objects, failing on
// anything else (a stray text line, a blank line, an object over two lines).
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	var msgs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON object: %q", line)
		}
		if _, ok := m["type"].(string); !ok {
			t.Fatalf("no type: %q", line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func types(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m["type"].(string))
	}
	return out
}

// requireFields fails unless m has each field, non-empty.
func requireFields(t *testing.T, m map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		v, ok := m[f]
		if !ok || v == "" || v == nil {
			t.Errorf("%s message lacks %q: %v", m["type"], f, m)
		}
	}
	if ts, ok := m["time"].(string); ok {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("%s time %q: %v", m["type"], ts, err)
		}
	}
}

const jsonManifest = `version: 1
voices:
  narrator: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  short: { voice: narrator, text: "Hello", output: build/short.wav }
  long: { voice: narrator, text: "Hello and welcome to the show", output: build/long.wav }
`

// TestApplyJSON: apply -json writes only JSON objects, one per line: the
// plan's messages, then apply_start, apply_progress, apply_complete,
// apply_errored with their fields, and apply_summary last, listing every
// failure with its address and the service's message.
func TestApplyJSON(t *testing.T) {
	// The emulator refuses texts over 10 characters: "long" fails with
	// the service's 400, "short" succeeds.
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": jsonManifest}, emulator.Options{MaxText: 10})
	code := runCmd(env, "apply", "-auto-approve", "-json")
	if code != ExitError {
		t.Fatalf("exit %d, want 1 (one failure): %s", code, stderr)
	}
	msgs := jsonLines(t, stdout.String())
	ts := types(msgs)
	first := slices.Index(ts, "apply_start")
	if first < 0 || !slices.Equal(ts[:first], []string{"planned_change", "planned_change", "change_summary"}) {
		t.Fatalf("message types %v: want the plan's messages, then apply_start", ts)
	}
	if ts[len(ts)-1] != "apply_summary" || slices.Index(ts, "apply_summary") != len(ts)-1 {
		t.Errorf("apply_summary is not last, once: %v", ts)
	}
	var complete, errored, progress int
	for _, m := range msgs[first:] {
		switch m["type"] {
		case "apply_start":
			requireFields(t, m, "time", "total")
			if m["total"] != 2.0 {
				t.Errorf("apply_start total %v, want 2", m["total"])
			}
		case "apply_progress":
			progress++
			requireFields(t, m, "time", "address", "action")
		case "apply_complete":
			complete++
			requireFields(t, m, "time", "address", "action", "bytes", "outputs")
			if m["address"] != "synthesis.short" || fmt.Sprint(m["outputs"]) != "[build/short.wav]" || m["action"] != "create" {
				t.Errorf("apply_complete %v", m)
			}
		case "apply_errored":
			errored++
			requireFields(t, m, "time", "address", "action", "error")
			if m["address"] != "synthesis.long" || !strings.Contains(m["error"].(string), "400") {
				t.Errorf("apply_errored %v: want synthesis.long and the service's message", m)
			}
		case "apply_summary":
			requireFields(t, m, "time")
			if m["done"] != 1.0 || m["failed"] != 1.0 || m["skipped_count"] != 0.0 {
				t.Errorf("apply_summary counts %v", m)
			}
			fails, _ := m["failures"].([]any)
			if len(fails) != 1 {
				t.Fatalf("apply_summary failures %v, want one", m["failures"])
			}
			f := fails[0].(map[string]any)
			if f["address"] != "synthesis.long" || f["message"] == "" || f["message"] == nil {
				t.Errorf("failure %v", f)
			}
		default:
			t.Errorf("unexpected message after apply_start: %v", m)
		}
	}
	if complete != 1 || errored != 1 || progress == 0 {
		t.Errorf("%d apply_complete, %d apply_errored, %d apply_progress", complete, errored, progress)
	}
	if !strings.Contains(stderr.String(), "voxform: 1 resource(s) failed") {
		t.Errorf("stderr %q", stderr)
	}
}

const budgetManifest = planManifest + `budget: { max_characters: 10 }
`

// TestBudgetRefusal: a plan over budget is shown and refused (exit 1, the
// hint); apply applies nothing. In -json the diagnostic comes first and the
// change_summary last, as documented.
func TestBudgetRefusal(t *testing.T) {
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": budgetManifest}, emulator.Options{})
	for _, cmd := range [][]string{{"plan"}, {"apply", "-auto-approve"}} {
		t.Run(cmd[0], func(t *testing.T) {
			code := runCmd(env, cmd...)
			if code != ExitError {
				t.Errorf("exit %d", code)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "voxform: ") || !strings.Contains(lines[0], "budget.max_characters") ||
				!strings.HasPrefix(lines[1], "hint: raise the budget in the manifest, or "+cmd[0]+" less at once with -target") {
				t.Errorf("stderr:\n%s", stderr)
			}
			if !strings.Contains(stdout.String(), "Cost: 21 billable characters") {
				t.Errorf("the plan refused is not shown:\n%s", stdout)
			}

			code = runCmd(env, append(cmd, "-json")...)
			if code != ExitError {
				t.Errorf("-json: exit %d", code)
			}
			msgs := jsonLines(t, stdout.String())
			if got := types(msgs); !slices.Equal(got, []string{"diagnostic", "planned_change", "planned_change", "change_summary"}) {
				t.Errorf("-json message types %v: want the diagnostic first, change_summary last", got)
			}
			d := msgs[0]
			if d["severity"] != "error" || !strings.Contains(d["message"].(string), "budget.max_characters") || !strings.HasPrefix(fmt.Sprint(d["hint"]), "raise the budget") {
				t.Errorf("diagnostic %v", d)
			}
		})
	}
	if n := requests(statsOf(t, run)); n != 0 {
		t.Errorf("%d API calls over budget", n)
	}
	if got := recorded(t, env.Dir); len(got) != 0 {
		t.Errorf("recorded %v over budget", got)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "build")); err == nil {
		t.Error("outputs written over budget")
	}
}
