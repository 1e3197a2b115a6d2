package executor_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/state"
)

const recordedSyntheses = `
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  copied:
    voice: v
    text: "नमस्ते"
    output: out/copied.wav
    audio_config: { sample_rate: 16000 }
    recorded: studio/x.wav
  widened:
    voice: v
    text: "नमस्ते"
    output: out/widened.raw
    audio_config: { container: raw, sample_rate: 16000, sample_width: 3 }
    recorded: studio/x.wav
  phone:
    voice: v
    text: "नमस्ते"
    output: out/phone.ulaw
    audio_config: { container: mulaw }
    recorded: { path: studio/x.wav, convert: true }
`

// TestRecordedOutputs: a recorded synthesis's output is made from its
// recording with no call to the service: copied byte for byte when it is
// of the declared format, widened sample for sample (16-bit WAV to 24-bit
// raw), converted with convert: true (16 kHz to 8 kHz mu-law); each is
// recorded with origin recorded, its loudness measured, and validated. A recording changed
// between plan and apply is refused, nothing written.
func TestRecordedOutputs(t *testing.T) {
	wav := recording(t, "0.5")
	h := newHarness(t, emulator.Options{}, map[string]string{"voxform.yaml": "version: 1\n" + recordedSyntheses, "studio/x.wav": wav})
	if s := h.applyWith(measuringLoudness); s.Done != 3 || s.Failed != 0 {
		t.Fatalf("apply: %+v", s)
	}
	requests, _ := h.stats()["requests"].(map[string]any)
	if len(requests) != 0 || h.counter("syntheses") != 0 || h.counter("billed_characters") != 0 {
		t.Errorf("recorded syntheses asked the service: requests %v, %v syntheses, %v characters billed", requests, h.counter("syntheses"), h.counter("billed_characters"))
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(h.dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read("out/copied.wav"), []byte(wav)) {
		t.Errorf("out/copied.wav is not the recording byte for byte")
	}
	_, pcm, err := audio.ParseWAV([]byte(wav))
	if err != nil {
		t.Fatal(err)
	}
	wide := read("out/widened.raw")
	if len(wide) != len(pcm)/2*3 {
		t.Fatalf("out/widened.raw: %d bytes, want %d", len(wide), len(pcm)/2*3)
	}
	for i := 0; i < len(pcm)/2; i++ {
		v := int16(binary.LittleEndian.Uint16(pcm[2*i:]))
		w := int32(uint32(wide[3*i])<<8|uint32(wide[3*i+1])<<16|uint32(wide[3*i+2])<<24) >> 8
		if w != int32(v)*256 {
			t.Fatalf("sample %d: %d widened to %d, want %d", i, v, w, int32(v)*256)
		}
	}
	if n := len(read("out/phone.ulaw")); n < len(pcm)/4-2 || n > len(pcm)/4+2 {
		t.Errorf("out/phone.ulaw: %d bytes, want about %d (8 kHz of 16 kHz)", n, len(pcm)/4)
	}
	st := h.state()
	for _, a := range []string{"synthesis.copied", "synthesis.widened", "synthesis.phone"} {
		r := st.Resources[a]
		if r == nil || r.Origin != state.OriginRecorded || r.BilledCharacters != 0 || len(r.Outputs) != 1 {
			t.Errorf("%s: recorded %+v", a, r)
			continue
		}
		if l := r.Outputs[0].Loudness; l == nil || l.Integrated == nil {
			t.Errorf("%s: no loudness measured: %+v", a, l)
		}
	}

	// A recording changed after the plan is refused.
	os.WriteFile(filepath.Join(h.dir, "voxform.yaml"), []byte("version: 1\n"+strings.ReplaceAll(recordedSyntheses, "studio/x.wav", "studio/y.wav")), 0o644)
	os.WriteFile(filepath.Join(h.dir, "studio/y.wav"), []byte(wav), 0o644)
	p, rec, done := h.plan()
	defer done()
	os.WriteFile(filepath.Join(h.dir, "studio/y.wav"), []byte(recording(t, "0.6")), 0o644)
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 3 || !strings.Contains(s.Failures[0].Err.Error(), "changed since the plan") {
		t.Fatalf("a recording changed after the plan: %+v", s)
	}
	if !bytes.Equal(read("out/copied.wav"), []byte(wav)) {
		t.Errorf("out/copied.wav changed by a refused apply")
	}
}
