package schema_test

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

const lifecycleManifest = `version: 1
voices:
  narrator: {model: tts-v2.5, voice: Kaveri, language: en-IN}
defaults:
  synthesis:
    voice: narrator
    lifecycle: {keep_approved: true}
syntheses:
  menu:
    for_each: [a, b]
    text: "press ${each.key}"
    output: "out/${each.key}.wav"
  legal:
    text: "calls are recorded"
    output: out/legal.wav
    lifecycle: {prevent_destroy: true}
`

// TestLifecycle: lifecycle: is read on a synthesis and from
// defaults.synthesis (a block's own replaces the default as a whole), and
// an unknown key in it is refused at its position.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", lifecycleManifest)
	m, ds := manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got := map[string]manifest.Lifecycle{}
	for _, s := range m.Syntheses {
		got[s.Address] = s.Details().Lifecycle
	}
	want := map[string]manifest.Lifecycle{
		`synthesis.menu["a"]`: {KeepApproved: true},
		`synthesis.menu["b"]`: {KeepApproved: true},
		`synthesis.legal`:     {PreventDestroy: true},
	}
	for a, w := range want {
		if got[a] != w {
			t.Errorf("%s: lifecycle %+v, want %+v", a, got[a], w)
		}
	}

	writeFile(t, dir, "voxform.yaml", strings.Replace(lifecycleManifest, "{prevent_destroy: true}", "{prevent_destroy: true, keep_aproved: true}", 1))
	_, ds = manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if !ds.HasErrors() || !strings.Contains(fmtDiags(ds), "keep_aproved") || !strings.Contains(fmtDiags(ds), "voxform.yaml:16:40") {
		t.Fatalf("an unknown lifecycle key: %v", ds)
	}
	writeFile(t, dir, "voxform.yaml", strings.Replace(lifecycleManifest, "{keep_approved: true}", "{keep_approved: maybe}", 1))
	_, ds = manifest.Load(dir, manifest.LoadOptions{}, schema.Validator{})
	if !ds.HasErrors() || !strings.Contains(fmtDiags(ds), "keep_approved") {
		t.Fatalf("keep_approved: maybe: %v", ds)
	}
}

func fmtDiags(ds manifest.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}
