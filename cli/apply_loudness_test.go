package cli

import (
	"strings"
	"testing"

	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/state"
)

const twoLoudnessPrompts = `version: 1
voices:
  n: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  a: { voice: n, text: "नमस्ते, आपका स्वागत है।", output: build/a.wav }
  b: { voice: n, text: "कृपया प्रतीक्षा करें।", output: build/b.raw, audio_config: { container: raw, sample_rate: 8000 } }
`

// loudnessDeclared are a manifest without loudness: and one with it:
// whether what apply or pull writes has its loudness recorded.
var loudnessDeclared = []struct {
	name, extra string
	recorded    bool
}{
	{"no loudness block", "", false},
	{"loudness block", "loudness: { max_deviation: 3 }\n", true},
}

// TestApplyMeasuresLoudnessWhereDeclared: apply records the loudness of
// its outputs only when the manifest declares loudness: (the limits
// verify -loudness holds them to); without it the state has no figures
// and verify -loudness measures the files, saying so.
func TestApplyMeasuresLoudnessWhereDeclared(t *testing.T) {
	for _, c := range loudnessDeclared {
		t.Run(c.name, func(t *testing.T) {
			env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": twoLoudnessPrompts + c.extra}, emulator.Options{})
			if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
				t.Fatalf("apply: exit %d: %s", code, stderr)
			}
			st := readState(t, env.Dir)
			for _, addr := range []string{"synthesis.a", "synthesis.b"} {
				l := st.Resources[addr].Outputs[0].Loudness
				if got := l != nil && l.Integrated != nil && l.TruePeak != nil; got != c.recorded {
					t.Errorf("%s: loudness %+v recorded, want figures: %v", addr, l, c.recorded)
				}
			}
			stdout.Reset()
			if code := runCmd(env, "verify", "-loudness"); code != ExitOK {
				t.Fatalf("verify -loudness: exit %d: %s %s", code, stdout, stderr)
			}
			if measured := strings.Contains(stdout.String(), "2 measured now"); measured == c.recorded {
				t.Errorf("verify -loudness, figures recorded %v:\n%s", c.recorded, stdout)
			}
		})
	}
}

// TestPullMeasuresLoudnessWhereDeclared: a cache entry kept by an apply
// that measured nothing (no loudness: then) is pulled into a project that
// declares loudness: with its figures measured, as apply would record
// them; without loudness: it is pulled without.
func TestPullMeasuresLoudnessWhereDeclared(t *testing.T) {
	for _, c := range loudnessDeclared {
		t.Run(c.name, func(t *testing.T) {
			a, _, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": twoLoudnessPrompts}, emulator.Options{})
			if code := runCmd(a, "apply", "-auto-approve"); code != ExitOK {
				t.Fatalf("apply: exit %d: %s", code, stderr)
			}
			b, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": twoLoudnessPrompts + c.extra}, emulator.Options{})
			b.CacheDir = a.CacheDir
			if code := runCmd(b, "pull"); code != ExitOK {
				t.Fatalf("pull: exit %d: %s %s", code, stdout, stderr)
			}
			if !strings.Contains(stdout.String(), "Restored 2 resource(s)") {
				t.Fatalf("pull restored other than both:\n%s", stdout)
			}
			st := readState(t, b.Dir)
			for _, addr := range []string{"synthesis.a", "synthesis.b"} {
				l := st.Resources[addr].Outputs[0].Loudness
				if got := l != nil && l.Integrated != nil && l.TruePeak != nil; got != c.recorded {
					t.Errorf("%s: loudness %+v recorded, want figures: %v", addr, l, c.recorded)
				}
			}
		})
	}
}

// TestPullLeavesHashCacheWarm: the plan after a pull trusts the hash cache
// for the files pull restored, as after an apply, instead of reading each
// of them again.
func TestPullLeavesHashCacheWarm(t *testing.T) {
	a, _, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": twoLoudnessPrompts}, emulator.Options{})
	if code := runCmd(a, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	b, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": twoLoudnessPrompts}, emulator.Options{})
	b.CacheDir = a.CacheDir
	if code := runCmd(b, "pull"); code != ExitOK || !strings.Contains(stdout.String(), "Restored 2 resource(s)") {
		t.Fatalf("pull: exit %d: %s %s", code, stdout, stderr)
	}
	c := state.OpenHashCache(b.Dir)
	for _, out := range []string{"build/a.wav", "build/b.raw"} {
		if !c.Fresh(out) {
			t.Errorf("%s: the hash cache pull left would have the next plan read it again", out)
		}
	}
}
