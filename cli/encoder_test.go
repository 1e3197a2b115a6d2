package cli

import (
	"os/exec"
	"testing"

	"github.com/voxform/voxform/audio/encode"
	"github.com/voxform/voxform/deliver"
	"github.com/voxform/voxform/emulator"
)

// An apply that masters and packages nothing does not run ffmpeg: its
// -version took a quarter of a second of CPU, a quarter of a millisecond
// of each synthesis of an apply of 1,000 (issue 26's T1). Where ffmpeg is
// on PATH the apply still has it as its encoder, found on first use.
func TestApplyRunsNoEncoderItDoesNotNeed(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is not on PATH (scripts/deps.sh installs it): this test needs an encoder apply could run needlessly")
	}
	found := findTool
	calls := 0
	findTool = func() (*encode.Tool, error) { calls++; return found() }
	t.Cleanup(func() { findTool = found })
	env, _, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if calls != 0 {
		t.Errorf("apply of two syntheses without deliveries looked for ffmpeg %d times", calls)
	}
	if e := encoderOnPath(); e == nil || e.Identity(deliver.Encoding{Container: "mp3", Codec: deliver.CodecMP3, SampleRate: 44100, Channels: 1, BitrateMode: deliver.CBR, Bitrate: 64000}) == "no encoder" {
		t.Errorf("the encoder of apply with ffmpeg on PATH: %v", e)
	}
	if calls != 1 {
		t.Errorf("the encoder's identity looked for ffmpeg %d times, want once", calls)
	}
}
