package manifest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/voxform/voxform/listen"
)

const listenHead = "version: 1\nvoices:\n  v: { model: tts-v2.5, voice: Nalini, language: hi-IN }\n"

// TestListenBlock: listen: true is every default, a map sets some fields
// and keeps the defaults of the rest, listen: false turns a default off,
// and each field's position is known.
func TestListenBlock(t *testing.T) {
	m, ds := load(t, listenHead+`defaults:
  synthesis:
    listen: true
syntheses:
  plain: { voice: v, text: hi, output: a.wav }
  off: { voice: v, text: hi, output: b.wav, listen: false }
  tuned:
    voice: v
    text: hi
    output: c.wav
    listen:
      max_cer: 0.3
      max_run: 4
      regenerate: 2
      language_code: mr-IN
      seams: { max_step: 2.5, max_gap: 1500ms, min_gap: 0 }
`, nil, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	by := map[string]*Listen{}
	for _, s := range m.Syntheses {
		by[s.Name] = s.Details().Listen
	}
	if by["off"] != nil {
		t.Errorf("listen: false gives %+v, want no check", by["off"])
	}
	p := by["plain"]
	if p == nil || p.Thresholds != listen.DefaultThresholds() || p.Seams != DefaultSeams() || p.Regenerate != 0 || p.LanguageCode != "" {
		t.Fatalf("listen: true gives %+v, want the defaults", p)
	}
	if p.Pos.Line != 6 {
		t.Errorf("listen: true at %v, want line 6", p.Pos)
	}
	tu := by["tuned"]
	wantT := listen.DefaultThresholds()
	wantT.MaxCER, wantT.MaxRun = 0.3, 4
	if tu == nil || tu.Thresholds != wantT || tu.Regenerate != 2 || tu.LanguageCode != "mr-IN" ||
		tu.Seams != (Seams{MaxStep: 2.5, MaxGap: 1500 * time.Millisecond}) {
		t.Fatalf("tuned listen = %+v", tu)
	}
	if got := tu.Fields["seams.max_gap"]; got.Line != 19 || got.Col != 40 {
		t.Errorf("seams.max_gap at %v, want line 19 col 40", got)
	}
	if got := tu.Fields["max_run"]; got.Line != 16 {
		t.Errorf("max_run at %v, want line 16", got)
	}
	var tuned *Synthesis
	for _, s := range m.Syntheses {
		if s.Name == "tuned" {
			tuned = s
		}
	}
	if tuned.Fields["listen.max_cer"].Line != 15 || tuned.Fields["listen.seams.min_gap"].Line != 19 {
		t.Errorf("synthesis fields listen.max_cer %v, listen.seams.min_gap %v", tuned.Fields["listen.max_cer"], tuned.Fields["listen.seams.min_gap"])
	}
}

// TestListenHash: the hash follows what a verdict depends on (thresholds,
// seams), not what only changes the work (regenerate, language_code).
func TestListenHash(t *testing.T) {
	hash := func(body string) string {
		t.Helper()
		m, ds := load(t, listenHead+"syntheses:\n  a: { voice: v, text: hi, output: a.wav, listen: "+body+" }\n", nil, LoadOptions{})
		if ds.HasErrors() || m.Syntheses[0].Details().Listen == nil {
			t.Fatalf("listen: %s: %v", body, ds)
		}
		return m.Syntheses[0].Details().Listen.Hash
	}
	def := hash("true")
	if len(def) != 64 {
		t.Fatalf("hash %q, want 64 hex digits", def)
	}
	d := listen.DefaultThresholds()
	same := []string{
		fmt.Sprintf("{ max_cer: %v, max_wer: %v, max_run: %d }", d.MaxCER, d.MaxWER, d.MaxRun),
		"{ regenerate: 3 }", "{ language_code: en-IN }", "{ seams: { max_gap: 2s } }",
	}
	for _, b := range same {
		if h := hash(b); h != def {
			t.Errorf("listen: %s: hash %s, want the defaults' %s", b, h, def)
		}
	}
	seen := map[string]string{def: "true"}
	for _, b := range []string{"{ max_cer: 0.5 }", "{ max_wer: 0.5 }", "{ max_run: 3 }", "{ max_missing_tail: 0 }",
		"{ noise_words: 0 }", "{ seams: { max_step: 4 } }", "{ seams: { max_gap: 3s } }", "{ seams: { min_gap: 10ms } }"} {
		h := hash(b)
		if prev, dup := seen[h]; dup {
			t.Errorf("listen: %s has the hash of listen: %s", b, prev)
		}
		seen[h] = b
	}
}

// TestListenShared: the instances of a for_each block share one Listen,
// as they share an audio_config: 100,000 prompts hold one value.
func TestListenShared(t *testing.T) {
	var b strings.Builder
	b.WriteString("key,text\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "k%d,hi\n", i)
	}
	m, ds := load(t, listenHead+`syntheses:
  p:
    for_each: d.csv
    voice: v
    text: "${each.value.text}"
    output: "o/${each.key}.wav"
    listen: { max_run: 3, seams: { max_step: 2 } }
`, map[string]string{"d.csv": b.String()}, LoadOptions{NoProbe: true})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if len(m.Syntheses) != 100_000 {
		t.Fatalf("%d syntheses, want 100,000", len(m.Syntheses))
	}
	first := m.Syntheses[0].Details().Listen
	if first == nil || first.Thresholds.MaxRun != 3 {
		t.Fatalf("listen = %+v", first)
	}
	for _, s := range m.Syntheses {
		if s.Details().Listen != first {
			t.Fatalf("%s has its own Listen: want the one value of its block", s.Address)
		}
	}
}

// TestListenErrors: a value of the wrong kind is refused at its position
// and leaves no check.
func TestListenErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[1, 2]", `voxform.yaml:5:51: error: listen: want true, false or a map of the check's limits` + "\nhint: listen: true checks with the default limits"},
		{`"maybe"`, `voxform.yaml:5:51: error: listen: want true or false, not "maybe"`},
		{"{ max_run: many }", `voxform.yaml:5:62: error: max_run: want an integer, not "many"`},
		{"{ max_cer: lots }", `voxform.yaml:5:62: error: max_cer: want a number, not "lots"`},
		{"{ seams: { max_gap: soon } }", `voxform.yaml:5:71: error: max_gap: want a positive duration like "60s" or "2m", not "soon"`},
	} {
		m, ds := load(t, listenHead+"syntheses:\n  a: { voice: v, text: hi, output: a.wav, listen: "+c.body+" }\n", nil, LoadOptions{})
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		if diff := cmp.Diff([]string{c.want}, got); diff != "" {
			t.Errorf("listen: %s (-want +got):\n%s", c.body, diff)
		}
		for _, s := range m.Syntheses {
			if s.Details().Listen != nil {
				t.Errorf("listen: %s gives a check: %+v", c.body, s.Details().Listen)
			}
		}
	}
}

// TestListenDefaultReplaced: a synthesis's own listen: replaces the
// default's whole, as every field does: its unset limits are the check's
// defaults, not the manifest default's.
func TestListenDefaultReplaced(t *testing.T) {
	m, ds := load(t, listenHead+`defaults:
  synthesis:
    listen: { max_run: 3, regenerate: 2 }
syntheses:
  inherits: { voice: v, text: hi, output: a.wav }
  own: { voice: v, text: hi, output: b.wav, listen: { max_cer: 0.3 } }
`, nil, LoadOptions{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	by := map[string]*Listen{}
	for _, s := range m.Syntheses {
		by[s.Name] = s.Details().Listen
	}
	if l := by["inherits"]; l == nil || l.Thresholds.MaxRun != 3 || l.Regenerate != 2 {
		t.Errorf("inherited listen = %+v, want the default's max_run 3, regenerate 2", l)
	}
	want := listen.DefaultThresholds()
	want.MaxCER = 0.3
	if l := by["own"]; l == nil || l.Thresholds != want || l.Regenerate != 0 {
		t.Errorf("own listen = %+v, want %+v and regenerate 0", l, want)
	}
}
