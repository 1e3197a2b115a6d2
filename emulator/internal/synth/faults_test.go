package synth

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// TestFaultedLongRenderingStreams: a faulted job too long to render whole
// streams as a clean one does: cut, it says (and registers) the faulty
// text; silent, it is silence as long as the clean speech.
func TestFaultedLongRenderingStreams(t *testing.T) {
	const body = `{"text": "This sentence is long enough to be streamed. So is the second one here.", "model": "tts-v2.5", "voice": "Deepak", "language": "en-IN"}`
	for name, opts := range engines(t) {
		t.Run(name, func(t *testing.T) {
			clean := render(t, newRenderer(emu.NewEnv(opts)), mustJob(t, body), 8000)
			for _, kind := range []string{emu.FaultDropHalf, emu.FaultSilence} {
				o := opts
				o.DropHalfRate, o.SilenceRate = 0, 0
				if kind == emu.FaultDropHalf {
					o.DropHalfRate = 1
				} else {
					o.SilenceRate = 1
				}
				env := emu.NewEnv(o)
				s := &service{env: env, r: newRenderer(env)}
				s.r.maxEntry = 8000 // a second at 8 kHz counts as long here
				j := mustJob(t, body)
				s.fault(j, routeInference)
				samples := render(t, s.r, j, 8000)
				if kind == emu.FaultSilence {
					if len(samples) != len(clean) || slices.ContainsFunc(samples, func(v int16) bool { return v != 0 }) {
						t.Errorf("silence: %d samples, not all zero; the speech has %d", len(samples), len(clean))
					}
					continue
				}
				e := emu.NewEnvelope(8000)
				for _, v := range samples {
					e.Add(float64(v) / 32768)
				}
				got, ok := env.Registry.Lookup(e.Values())
				if want := "This sentence is long enough to be"; !ok || got.Text != want || len(samples) >= len(clean) {
					t.Errorf("%s: %d samples (clean %d) say %q (%v), want %q", kind, len(samples), len(clean), got.Text, ok, want)
				}
			}
		})
	}
}

// TestFaultParts: what each fault makes of a text: the cut ones drop the
// tags after the cut, replacing keeps them; a fault that would leave
// nothing, or change nothing, does not apply.
func TestFaultParts(t *testing.T) {
	tagged := parseTags("<excited> One two three. Four five <laugh> six seven!", true)
	tests := []struct {
		kind  string
		parts []part
		want  string // spoken; "-" when the fault does not apply
	}{
		{emu.FaultTruncate, tagged, "One two three. Four five"},
		{emu.FaultDropHalf, tagged, "One two three."},
		{emu.FaultTruncate, parseTags("Alone.", false), "-"},
		{emu.FaultDropHalf, parseTags("Alone.", false), "-"},
		{emu.FaultTruncate, parseTags("Two words", false), "-"}, // would lose one word only
		{emu.FaultTruncate, parseTags("Three short words", false), "Three"},
		{emu.FaultReplace, parseTags("...", false), "-"},
		{emu.FaultReplace, parseTags("Two words", false), "-"}, // a run of two is what noise may look like
	}
	for _, tc := range tests {
		got, ok := faultParts(tc.kind, tc.parts, rand.New(rand.NewPCG(1, 2)))
		spoken := "-"
		if ok {
			spoken = spokenText(got)
		}
		if spoken != tc.want {
			t.Errorf("%s of %q: %q, want %q", tc.kind, spokenText(tc.parts), spoken, tc.want)
		}
		if ok && tc.kind == emu.FaultTruncate && tc.parts[0].Tag != "" && (got[0].Tag != "excited" || hasTag(got, "laugh")) {
			t.Errorf("%s kept tags %+v", tc.kind, got)
		}
	}
	got, ok := faultParts(emu.FaultReplace, tagged, rand.New(rand.NewPCG(1, 2)))
	if !ok || !hasTag(got, "excited") || !hasTag(got, "laugh") || len(wordsOf(got)) != len(wordsOf(tagged)) {
		t.Errorf("replace made %+v of %+v", got, tagged)
	}
}

func hasTag(parts []part, tag string) bool {
	return slices.ContainsFunc(parts, func(p part) bool { return p.Tag == tag })
}
