package executor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
)

const spokenAmount = `
version: 1
service: { base_url: https://speech.example.com }
voices:
  hi: { model: timbre-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  amount:
    voice: hi
    text: "मुझे दो लाख रुपये मिले।"
    audio_config: { container: wav, sample_rate: 16000 }
    output: rec/amount.wav
`

// A realtime transcription under the live profile asks for inverse text
// normalization as the live service takes it (its x-format and
// itn_native_numerals headers): the transcript has the amount in digits,
// native digits when asked; verbatim, the default, is the words spoken.
// Adding ITN to a realtime transcription is new work; a verbatim one keeps
// the request it had before realtime took a format.
func TestLiveRealtimeITN(t *testing.T) {
	h := newHarness(t, emulator.Options{}, map[string]string{"main.yaml": spokenAmount})
	if s := h.apply(); s.Done != 1 || s.Failed != 0 {
		t.Fatalf("synthesis: %+v %v", s, s.Failures)
	}
	// The recording, copied where the transcriptions read it (an output is
	// never another resource's input).
	rec, err := os.ReadFile(filepath.Join(h.dir, "rec/amount.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "clips.wav"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	transcribe := func(name, format string) string {
		return "  " + name + ":\n    inputs: [\"clips.wav\"]\n    api: realtime\n    language_code: hi-IN\n" +
			format + "    output_dir: out/" + name + "\n    formats: [txt]\n"
	}
	manifest := spokenAmount + "transcriptions:\n" +
		transcribe("verbatim", "") +
		transcribe("latin", "    format: transcribe\n") +
		transcribe("native", "    format: transcribe\n    itn_native_numerals: true\n")
	if err := os.WriteFile(filepath.Join(h.dir, "main.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := h.apply(); s.Done != 3 || s.Failed != 0 {
		t.Fatalf("transcriptions: %+v %v", s, s.Failures)
	}
	for name, want := range map[string]string{
		"verbatim": "मुझे दो लाख रुपये मिले।",
		"latin":    "मुझे ₹2,00,000 मिले।",
		"native":   "मुझे ₹२,००,००० मिले।",
	} {
		b, err := os.ReadFile(filepath.Join(h.dir, "out", name, "clips.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	st := h.state()
	verbatim := st.Resources[`transcription.verbatim["clips.wav"]`]
	latin := st.Resources[`transcription.latin["clips.wav"]`]
	if verbatim == nil || latin == nil {
		t.Fatal("transcriptions not recorded")
	}
	if req := verbatim.RequestFields(); req["sample_rate"] == nil || req["format"] != nil {
		t.Errorf("a verbatim realtime request: %v", req)
	}
	if req := latin.RequestFields(); req["format"] != "transcribe" || req["itn_native_numerals"] != false {
		t.Errorf("an ITN realtime request: %v", req)
	}
}
