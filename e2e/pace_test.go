package e2e_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// TestRealtimePace: service.realtime_pace sets how fast realtime
// recognition sends a recording, as a multiple of real time. Paced, 20 s
// of audio cannot go out in less than 20 s divided by the pace; unlimited,
// it goes out as fast as the connection takes it, well under its length.
func TestRealtimePace(t *testing.T) {
	t.Parallel()
	const seconds = 20
	for _, tc := range []struct {
		pace     string
		min, max time.Duration
	}{
		{"unlimited", 0, seconds * time.Second},
		{"4", seconds * time.Second / 4, seconds * time.Second},
	} {
		t.Run(tc.pace, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, emulator.Options{Seed: 7})
			p := newProject(t, "", e)
			p.writeFile("voxform.yaml", `version: 1
service: { realtime_pace: `+tc.pace+` }
transcriptions:
  call:
    inputs: ["rec/call.wav"]
    api: realtime
    language_code: en-IN
    output_dir: out
`)
			p.writeFile("rec/call.wav", "")
			if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", p.path("rec/call.wav"),
				"synth", "20", "sine", "300-900", "tremolo", "3", "90").CombinedOutput(); err != nil {
				t.Fatalf("sox (install it with scripts/deps.sh): %v: %s", err, out)
			}
			start := time.Now()
			if r := p.apply(); r.code != 0 {
				t.Fatalf("%s", r)
			}
			if el := time.Since(start); el < tc.min || el >= tc.max {
				t.Errorf("%d s of audio at pace %s took %v, want at least %v and under %v", seconds, tc.pace, el, tc.min, tc.max)
			}
			if s := e.stats(t); s.Requests["GET /stt/v3/stream"]+s.Requests["GET /stt/v3"] != 1 {
				t.Errorf("requests %v, want one realtime session", s.Requests)
			}
		})
	}
}
