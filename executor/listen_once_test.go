package executor_test

import (
	"math"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// TestListenSameCheckOncePerApply: two prompts with the same request make
// the same audio, so the same check (one fingerprint): one apply makes it
// once, bills its seconds once (the summary as the emulator billed), and
// records it for both outputs.
func TestListenSameCheckOncePerApply(t *testing.T) {
	again := "  again:\n    voice: v3\n    text: \"गाँव के पुराने घर में आज सुबह से बहुत चहल-पहल थी, क्रमांक 0 के लोग मेले की तैयारी कर रहे थे।\"\n    output: out/again.wav\n"
	h := newHarness(t, emulator.Options{Seed: 3}, map[string]string{"main.yaml": listenPrompts(1, 0) + again})
	checks := countChecks(h)
	s := h.apply()
	if s.Done != 2 || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	st := h.state()
	a, b := st.Resources["synthesis.p0"].Outputs[0], st.Resources["synthesis.again"].Outputs[0]
	if a.SHA256 != b.SHA256 || a.Listen == nil || b.Listen == nil || a.Listen.Fingerprint != b.Listen.Fingerprint {
		t.Fatalf("the two prompts are not the same check: %+v %+v", a, b)
	}
	if n := checks.Load(); n != 1 {
		t.Errorf("the same check was transcribed %d times in one apply, want once", n)
	}
	billed := h.counter("billed_audio_seconds")
	if math.Abs(s.BilledAudioSeconds-billed) > 0.01 || math.Abs(s.BilledAudioSeconds-a.Listen.Seconds) > 0.01 {
		t.Errorf("billed %.3f s for checks, the emulator billed %.3f s for the one check of %.3f s", s.BilledAudioSeconds, billed, a.Listen.Seconds)
	}
	recorded := st.Resources["synthesis.p0"].Details().BilledAudioSeconds + st.Resources["synthesis.again"].Details().BilledAudioSeconds
	if math.Abs(recorded-a.Listen.Seconds) > 0.01 {
		t.Errorf("the state records %.3f s billed for checks of the one check of %.3f s", recorded, a.Listen.Seconds)
	}
}
