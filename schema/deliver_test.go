package schema_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/schema"
)

// TestDeliverFanOut: a default deliver: reaching 20,000 instances is
// evaluated once (its profiles resolved once, a mistake in it reported
// once), each instance places its own outputs, and the whole load stays
// within the fan-out limit with every delivered path in the output check.
func TestDeliverFanOut(t *testing.T) {
	const n = 20_000
	var b strings.Builder
	b.WriteString(fanOutHead + "defaults:\n  synthesis:\n    deliver: [telephony, acx, { profile: podcast, output: \"p/${each.key}.mp3\" }]\nsyntheses:\n  rows:\n    for_each: [")
	for i := range n {
		fmt.Fprintf(&b, "k%d, ", i)
	}
	b.WriteString("]\n    voice: v\n    text: t\n    output: \"o/${each.key}.wav\"\n")
	b.WriteString("  bad:\n    for_each: [a, b, c]\n    voice: v\n    text: t\n    output: \"b/${each.key}.wav\"\n    deliver: [telephone]\n")
	dir := t.TempDir()
	writeFile(t, dir, "voxform.yaml", b.String())
	start := time.Now()
	m, ds := manifest.Load(dir, manifest.LoadOptions{NoProbe: true}, schema.Validator{})
	if d := time.Since(start); d > fanOutLimit {
		t.Errorf("load took %v, over %v", d, fanOutLimit)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.Pos.String()+": "+d.Message)
	}
	want := `voxform.yaml:19:15: deliver: unknown delivery profile "telephone" (built-in: acx, amazon-connect, broadcast, podcast, telephony; delivery_profiles: none)`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("diagnostics %q, want one: %s", got, want)
	}
	if len(m.Syntheses) != n {
		t.Fatalf("%d syntheses", len(m.Syntheses))
	}
	last := m.Syntheses[n-1]
	var outs []string
	for _, d := range last.Details().Deliver {
		outs = append(outs, d.Output)
	}
	if w := "o/telephony/" + last.Key + ".wav o/acx/" + last.Key + ".mp3 p/" + last.Key + ".mp3"; strings.Join(outs, " ") != w {
		t.Errorf("%s delivers %v, want %s", last.Address, outs, w)
	}
}
