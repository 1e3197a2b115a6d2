package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestWarningsFolded: a for_each data file of 1,000 prompts that each
// hold a digit gives 1,000 warnings of one kind. plan and apply show a few
// and fold the rest into one line, so that the plan is not buried;
// validate and validate -json list them all.
func TestWarningsFolded(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("key,text\n")
	for i := range 1000 {
		fmt.Fprintf(&csv, "p%d,Press %d now\n", i, i)
	}
	manifest := `version: 1
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  prompts:
    for_each: prompts.csv
    voice: narrator
    text: "${each.value.text}"
    output: "build/${each.key}.wav"
  other: { voice: narrator, text: "<laugh> Hello", output: build/other.wav }
`
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": manifest, "prompts.csv": csv.String()})
	for _, cmd := range [][]string{{"plan", "-no-color"}, {"apply"}} {
		runCmd(env, cmd...)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if n := strings.Count(stderr.String(), "digits \""); n != 3 { // maxSimilarWarnings
			t.Errorf("%s: %d digit warnings shown, want 3", cmd[0], n)
		}
		if !strings.Contains(stderr.String(), "warning: and 997 more similar warnings elsewhere ('voxform validate' lists them)\n") {
			t.Errorf("%s: no fold line:\n%s", cmd[0], stderr)
		}
		// The other kind is shown too: folding is per kind.
		if !strings.Contains(stderr.String(), "audio tag <laugh> is removed") || len(lines) > 12 {
			t.Errorf("%s: %d lines on stderr:\n%s", cmd[0], len(lines), stderr)
		}
		if cmd[0] == "plan" && !strings.Contains(stdout.String(), "1001 to add") {
			t.Errorf("plan: no plan:\n%s", stdout)
		}
	}
	if code := runCmd(env, "validate"); code != ExitOK || strings.Count(stderr.String(), "digits \"") != 1000 || strings.Contains(stderr.String(), "more similar") {
		t.Errorf("validate: exit %d, %d digit warnings, want all 1000", code, strings.Count(stderr.String(), "digits \""))
	}
	if code := runCmd(env, "validate", "-json"); code != ExitOK || strings.Count(stdout.String(), "digits \\\"") != 1000 {
		t.Errorf("validate -json: exit %d, %d digit warnings, want all 1000", code, strings.Count(stdout.String(), "digits \\\""))
	}
	if code := runCmd(env, "plan", "-json"); code != ExitOK || strings.Count(stdout.String(), `"type":"diagnostic"`) != 1001 {
		t.Errorf("plan -json: exit %d, %d diagnostics, want all 1,001", code, strings.Count(stdout.String(), `"type":"diagnostic"`))
	}
}
