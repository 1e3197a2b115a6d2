package cli

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
)

// TestEmulatorProfileFlag: -profile picks the service the emulator
// behaves as (unless told, the one a manifest speaks by default), and
// -live-quirks is -profile live.
func TestEmulatorProfileFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		live bool
	}{
		{nil, contract.DefaultProfile == contract.ProfileLive},
		{[]string{"-profile", "documented"}, false},
		{[]string{"-profile", "live"}, true},
		{[]string{"-live-quirks"}, true},
		{[]string{"-live-quirks", "-profile", "live"}, true},
	} {
		env, _, _ := manifestEnv(t, nil)
		fs := newFlagSet(env, "emulator", emulatorUsage)
		var ef emulatorFlags
		ef.register(fs)
		if err := parseFlags(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		opts, err := ef.options()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if opts.Live() != tc.live || opts.CheckProfile() != nil || (tc.args == nil && opts.Served() != string(contract.DefaultProfile)) {
			t.Errorf("%v: options %+v, want live %v", tc.args, opts, tc.live)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-profile", "staging"}, "voxform: -profile staging: must be documented or live\nhint: run with -h for usage\n"},
		{[]string{"-profile", "documented", "-live-quirks"}, "voxform: -live-quirks is -profile live, which contradicts -profile documented\nhint: run with -h for usage\n"},
	} {
		env, stdout, stderr := manifestEnv(t, nil)
		if code := runCmd(env, append([]string{"emulator", "-addr", "127.0.0.1:0"}, tc.args...)...); code != ExitError {
			t.Errorf("%v: exit %d", tc.args, code)
		}
		if stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q, want %q", tc.args, stderr, tc.want)
		}
	}
	env, _, _ := manifestEnv(t, nil)
	fs := newFlagSet(env, "emulator", emulatorUsage)
	var ef emulatorFlags
	ef.register(fs)
	var usage strings.Builder
	fs.SetOutput(&usage)
	fs.PrintDefaults()
	if !strings.Contains(usage.String(), "the same as -profile live") || !strings.Contains(emulatorUsage, "-live-quirks is -profile live") {
		t.Errorf("usage does not say -live-quirks is -profile live:\n%s", usage.String())
	}
}
