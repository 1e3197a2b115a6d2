package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmulatorSpeechFaultFlags: the speech fault and noise flags of
// 'voxform emulator' set their options; a rate out of 0..1, or speech
// fault rates adding up past 1, is a usage error naming the flags.
func TestEmulatorSpeechFaultFlags(t *testing.T) {
	env, _, _ := manifestEnv(t, nil)
	fs := newFlagSet(env, "emulator", emulatorUsage)
	var ef emulatorFlags
	ef.register(fs)
	err := parseFlags(fs, []string{"-truncate-rate", "0.1", "-replace-rate", "0.2", "-silence-rate", "0.3",
		"-drop-half-rate", "0.4", "-noise-rate", "0.02", "-seed", "7"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ef.options()
	if err != nil {
		t.Fatal(err)
	}
	type rates struct{ Truncate, Replace, Silence, DropHalf, Noise float64 }
	want := rates{0.1, 0.2, 0.3, 0.4, 0.02}
	if d := cmp.Diff(want, rates{got.TruncateRate, got.ReplaceRate, got.SilenceRate, got.DropHalfRate, got.NoiseRate}); d != "" || got.Seed != 7 {
		t.Errorf("seed %d, rates (-want +got):\n%s", got.Seed, d)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-silence-rate", "1.5"}, "voxform: -silence-rate 1.5: must be between 0 and 1\n"},
		{[]string{"-truncate-rate", "0.6", "-drop-half-rate", "0.6"},
			"voxform: -truncate-rate, -replace-rate, -silence-rate and -drop-half-rate add up to 1.2: must not exceed 1\n"},
		{[]string{"-noise-rate", "-0.1"}, "voxform: -noise-rate -0.1: must be between 0 and 1\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env, stdout, stderr := manifestEnv(t, nil)
			if code := runCmd(env, append([]string{"emulator", "-addr", "127.0.0.1:0"}, tc.args...)...); code != ExitError {
				t.Errorf("exit %d", code)
			}
			if want := tc.want + "hint: run with -h for usage\n"; stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("stderr %q, want %q (stdout %q)", stderr, want, stdout)
			}
		})
	}
}
