package planner_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/redact"
	"github.com/voxform/voxform/state"
)

// redactProject is baseProject with call a redacted under kinds.
func redactProject(kinds ...string) (*project, *manifest.Transcription) {
	p := baseProject()
	tr := p.m.Transcriptions[0]
	if len(kinds) > 0 {
		tr.Redact = &manifest.Redaction{Kinds: kinds}
	}
	return p, tr
}

// actionOf is the plan's action of addr, or nil.
func actionOf(pl *planner.Plan, addr string) *planner.Action {
	for _, a := range pl.Actions {
		if a.Address == addr {
			return a
		}
	}
	return nil
}

// TestRedactionInFingerprint: the policy (canonical, whatever the order
// written) and the channel roles are in a transcription's fingerprint;
// without them the fingerprint is what it always was.
func TestRedactionInFingerprint(t *testing.T) {
	fp := func(p *project) string { return p.desired(t)[len(p.desired(t))-2].Fingerprint }
	plain, _ := redactProject()
	a, _ := redactProject("mobile", "aadhaar")
	b, _ := redactProject("aadhaar", "mobile")
	c, _ := redactProject("mobile")
	if fp(a) != fp(b) {
		t.Error("the order kinds are written in changed the fingerprint")
	}
	if fp(a) == fp(plain) || fp(a) == fp(c) {
		t.Error("the policy is not in the fingerprint")
	}
	roles, tr := redactProject()
	tr.Channels = map[int]string{0: "agent", 1: "customer"}
	if fp(roles) == fp(plain) {
		t.Error("channel roles are not in the fingerprint")
	}
	bad, _ := redactProject("passport")
	if _, err := planner.Build(bad.m, bad.fs.hash); err == nil || !strings.Contains(err.Error(), "passport") {
		t.Errorf("an unknown kind: %v", err)
	}
}

// TestRedactionChangeRerenders: a policy change is made again free from
// the recorded transcript when it can be (unredacted before; a policy
// that redacts more; the kept unredacted transcript), and billed when the
// new policy shows what the recorded outputs hide.
func TestRedactionChangeRerenders(t *testing.T) {
	const addr = `transcription.calls["recordings/a.wav"]`
	type step struct {
		name   string
		before []string // kinds recorded ("" none)
		kept   bool
		after  []string
		want   planner.ActionType
		from   string
	}
	json := "build/transcripts/a.json"
	for _, s := range []step{
		{"unredacted, then redacted", nil, false, []string{"mobile"}, planner.Repair, json},
		{"more kinds", []string{"mobile"}, false, []string{"mobile", "card"}, planner.Repair, json},
		{"fewer kinds", []string{"mobile", "card"}, false, []string{"mobile"}, planner.Replace, ""},
		{"redaction removed", []string{"mobile"}, false, nil, planner.Replace, ""},
		{"fewer kinds, kept", []string{"mobile", "card"}, true, []string{"mobile"}, planner.Repair, state.UnredactedPath(addr)},
		{"redaction removed, kept", []string{"mobile"}, true, nil, planner.Repair, state.UnredactedPath(addr)},
	} {
		t.Run(s.name, func(t *testing.T) {
			p, tr := redactProject(s.before...)
			st := p.apply(t)
			if s.kept {
				kept := state.UnredactedPath(addr)
				p.fs[kept] = "unredacted"
				h, _ := p.fs.hash(kept)
				st.Resources[addr].Edit().Redaction = &state.Redaction{Policy: "card,mobile", Version: redact.Version, Unredacted: &state.Kept{Path: kept, SHA256: h.SHA256}}
			} else if len(s.before) > 0 {
				st.Resources[addr].Edit().Redaction = &state.Redaction{Policy: strings.Join(s.before, ","), Version: redact.Version}
			}
			tr.Redact = nil
			if len(s.after) > 0 {
				tr.Redact = &manifest.Redaction{Kinds: s.after}
			}
			pl, err := p.plan(t, st, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a := actionOf(pl, addr)
			if a == nil || a.Type != s.want || a.Details().RenderFrom != s.from {
				t.Fatalf("got %+v, want %s from %q", a, s.want, s.from)
			}
			if s.want == planner.Repair && (a.Cost.AudioSeconds != 0 || a.Cost.UnknownAudio != 0) {
				t.Errorf("a re-render is billed: %+v", a.Cost)
			}
			if len(pl.Actions) != 1 {
				t.Errorf("other actions: %v", addresses(pl))
			}
		})
	}
}

// TestKeepUnredactedTurnedOff: a kept unredacted transcript the manifest
// no longer asks for is planned away, free; one it asks for stays.
func TestKeepUnredactedTurnedOff(t *testing.T) {
	const addr = `transcription.calls["recordings/a.wav"]`
	p, tr := redactProject("mobile")
	tr.Redact.KeepUnredacted = true
	st := p.apply(t)
	kept := state.UnredactedPath(addr)
	p.fs[kept] = "unredacted"
	h, _ := p.fs.hash(kept)
	st.Resources[addr].Edit().Redaction = &state.Redaction{Policy: "mobile", Version: redact.Version, Unredacted: &state.Kept{Path: kept, SHA256: h.SHA256}}
	pl, err := p.plan(t, st, planner.Options{})
	if err != nil || len(pl.Actions) != 0 {
		t.Fatalf("kept and wanted: %v %v", addresses(pl), err)
	}
	tr.Redact.KeepUnredacted = false
	pl, err = p.plan(t, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := actionOf(pl, addr)
	if a == nil || a.Type != planner.Repair || a.Details().RenderFrom != kept || len(pl.Actions) != 1 {
		t.Fatalf("kept, not wanted: %+v", a)
	}
}
