package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// approveManifest declares 20 prompts whose default voice is voice.
func approveManifest(voice string) string {
	var keys []string
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("a%02d", i), fmt.Sprintf("b%02d", i))
	}
	return `version: 1
voices:
  kaveri: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
  deepak: { model: tts-v2.5, voice: Deepak, language: hi-IN }
defaults:
  synthesis:
    voice: ` + voice + `
    lifecycle: { keep_approved: true }
syntheses:
  prompts:
    for_each: [` + strings.Join(keys, ", ") + `]
    text: "prompt ${each.key}"
    output: "build/${each.key}.wav"
`
}

// TestApprovePinsAndGates is the sign-off story against the
// emulator: approve 10 of 20 prompts, change the default voice: the plan
// replaces 10 and shows 10 pinned (approved); apply calls the service 10
// times; verify -require-approved fails until the 10 new ones are
// approved, then passes.
func TestApprovePinsAndGates(t *testing.T) {
	onceAcrossProfiles(t)
	t.Parallel()
	e := startEmulator(t, emulator.Options{})
	p := newProject(t, "", e)
	write := func(voice string) {
		if err := os.WriteFile(p.path("voxform.yaml"), []byte(approveManifest(voice)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kaveri")
	p.mustRun("apply", "-auto-approve")
	p.mustRun("approve", "-by", "Brand Review <brand@example.com>", "-note", "IVR-1204", `synthesis.prompts["a*`)
	approved := map[string][]byte{}
	for i := range 10 {
		b, err := os.ReadFile(p.path(fmt.Sprintf("build/a%02d.wav", i)))
		if err != nil {
			t.Fatal(err)
		}
		approved[fmt.Sprintf("a%02d", i)] = b
	}

	write("deepak")
	changes, sum := p.plan()
	pinned := p.pinned()
	if sum.Replace != 10 || len(changes) != 10 || len(pinned) != 10 {
		t.Fatalf("plan: %d changes (%+v), %d pinned, want 10 replaces and 10 pinned", len(changes), sum, len(pinned))
	}
	for _, c := range changes {
		if c.Action != "replace" || !strings.HasPrefix(c.Address, `synthesis.prompts["b`) {
			t.Errorf("change %s %s", c.Action, c.Address)
		}
	}
	for _, pin := range pinned {
		if !strings.HasPrefix(pin.Address, `synthesis.prompts["a`) || pin.Approval.By != "Brand Review <brand@example.com>" ||
			!strings.Contains(strings.Join(pin.Reasons, "; "), "voice Kaveri -> Deepak") {
			t.Errorf("pinned %+v", pin)
		}
	}
	if out := p.mustRun("plan").stdout; strings.Count(out, "pinned (approved)") != 11 { // 10 rows and the summary
		t.Errorf("plan text:\n%s", out)
	}
	if out := p.mustRun("plan", "-markdown").stdout; strings.Count(out, "pinned (approved)") != 11 {
		t.Errorf("plan -markdown:\n%s", out)
	}
	if out := p.mustRun("plan", "-replace", `synthesis.prompts["a00"]`).stdout; !strings.Contains(out, "approval by Brand Review <brand@example.com> of") ||
		!strings.Contains(out, "will no longer hold") {
		t.Errorf("plan -replace of a pinned prompt does not say its approval will no longer hold:\n%s", out)
	}

	before := e.stats(t).Syntheses
	p.mustRun("apply", "-auto-approve")
	if calls := e.stats(t).Syntheses - before; calls != 10 {
		t.Fatalf("apply made %d syntheses, want 10", calls)
	}
	for k, b := range approved {
		if now, _ := os.ReadFile(p.path("build/" + k + ".wav")); string(now) != string(b) {
			t.Errorf("approved prompt %s changed", k)
		}
	}
	r := p.run("verify", "-require-approved")
	if r.code != 1 || strings.Count(r.stdout, ": not approved") != 10 || !strings.Contains(r.stdout, "10 not approved") {
		t.Fatalf("verify -require-approved with 10 unapproved:\n%s", r)
	}
	p.mustRun("approve", "-by", "Brand Review <brand@example.com>", `synthesis.prompts["b*`)
	p.mustRun("verify", "-require-approved")
	if _, sum := p.plan(); sum.changes() != 0 {
		t.Errorf("plan after all approved: %+v", sum)
	}
}

// pinnedMessage is the -json plan's pinned message.
type pinnedMessage struct {
	Address  string   `json:"address"`
	Reasons  []string `json:"reasons"`
	Approval struct {
		By string `json:"by"`
	} `json:"approval"`
}

// pinned returns the pinned messages of 'voxform plan -json'.
func (p *project) pinned() []pinnedMessage {
	p.t.Helper()
	var out []pinnedMessage
	for _, line := range strings.Split(strings.TrimSpace(p.mustRun("plan", "-json").stdout), "\n") {
		var m struct{ Type string }
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "pinned" {
			var pm pinnedMessage
			if err := json.Unmarshal([]byte(line), &pm); err != nil {
				p.t.Fatal(err)
			}
			out = append(out, pm)
		}
	}
	return out
}
