package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// tourManifest names no profile and synthesizes with tts-v2.5, the
// documents' name of the model, as the README's tour does.
const tourManifest = `version: 1
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  hello: { voice: narrator, text: "Hello there", output: build/hello.wav }
`

// startEmulatorCommand runs 'voxform emulator -addr 127.0.0.1:0 args...'
// in-process, as a user starts it in a terminal, and returns its base URL
// and the line it announced itself with. It is stopped when the test ends.
func startEmulatorCommand(t *testing.T, args ...string) (base, banner string) {
	t.Helper()
	env, _, _ := manifestEnv(t, nil)
	pr, pw := io.Pipe()
	env.Stdout = pw
	ctx, cancel := context.WithCancel(context.Background())
	exit := make(chan int, 1)
	go func() {
		exit <- Run(ctx, env, append([]string{"emulator", "-addr", "127.0.0.1:0", "-no-espeak"}, args...))
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exit:
		case <-time.After(10 * time.Second):
			t.Error("the emulator did not stop")
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	select {
	case banner = <-lines:
	case code := <-exit:
		t.Fatalf("emulator exited %d before listening: %s", code, env.Stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("emulator did not announce itself")
	}
	const prefix = "voxform emulator listening on "
	if !strings.HasPrefix(banner, prefix) {
		t.Fatalf("first line %q", banner)
	}
	return strings.Fields(strings.TrimPrefix(banner, prefix))[0], banner
}

// towardEmulator points env at the emulator at base, with an API key and
// environ (VOXFORM_PROFILE, say) as the process environment.
func towardEmulator(env *Env, base string, environ ...string) {
	env.Getenv = func(k string) string {
		switch k {
		case "VOXFORM_BASE_URL":
			return base
		case "VOXFORM_API_KEY":
			return testKey
		}
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	env.Environ = func() []string { return environ }
}

// apiRequests asks the emulator at base how many API requests it answered.
func apiRequests(t *testing.T, base string) int64 {
	t.Helper()
	resp, err := http.Get(base + "/_emulator/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var s emuStats
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return requests(s)
}

// TestReadmeTour: the README's tour as a newcomer follows it: 'voxform
// emulator' with its defaults, VOXFORM_BASE_URL pointed at it, and a
// manifest that names no profile and synthesizes with tts-v2.5 (the
// documents' name): apply works. The emulator's default profile is the
// manifest's (contract.DefaultProfile), and it says which it serves.
func TestReadmeTour(t *testing.T) {
	base, banner := startEmulatorCommand(t)
	if !strings.Contains(banner, "(profile live;") {
		t.Errorf("the emulator does not say it serves the live profile: %q", banner)
	}
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": tourManifest})
	towardEmulator(env, base)
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply against 'voxform emulator': exit %d\n%s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(env.Dir, "build/hello.wav")); err != nil || !strings.HasPrefix(string(b), "RIFF") {
		t.Errorf("build/hello.wav: %v", err)
	}
}

// TestEmulatorProfileMismatch: voxform applying to an emulator of the
// other profile stops before the plan is shown, with an error naming both
// profiles and a hint saying how to make them agree, fitted to where the
// manifest's profile comes from; nothing is asked of the service's API.
func TestEmulatorProfileMismatch(t *testing.T) {
	documented, _ := startEmulatorCommand(t, "-profile", "documented")
	live, _ := startEmulatorCommand(t)
	const setProfile = "version: 1\nservice: { profile: documented }\n"
	for _, tc := range []struct {
		name, base, manifest string
		environ              []string
		want                 string
	}{
		{"default manifest, documented emulator", documented, tourManifest, nil,
			"voxform: check the service profile: the emulator at " + strings.TrimPrefix(documented, "http://") + " serves the documented profile, and voxform speaks live (the default)\n" +
				"hint: start the emulator with 'voxform emulator -profile live', or set profile: documented in the manifest's service block\n"},
		{"service.profile documented, live emulator", live, setProfile + strings.TrimPrefix(tourManifest, "version: 1\n"), nil,
			"voxform: check the service profile: the emulator at " + strings.TrimPrefix(live, "http://") + " serves the live profile, and voxform speaks documented (service.profile)\n" +
				"hint: start the emulator with 'voxform emulator -profile documented', or set service.profile: live in the manifest\n"},
		{"VOXFORM_PROFILE documented, live emulator", live, tourManifest, []string{"VOXFORM_PROFILE=documented"},
			"voxform: check the service profile: the emulator at " + strings.TrimPrefix(live, "http://") + " serves the live profile, and voxform speaks documented (VOXFORM_PROFILE)\n" +
				"hint: start the emulator with 'voxform emulator -profile documented', or set VOXFORM_PROFILE=live\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := apiRequests(t, tc.base)
			env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": tc.manifest})
			towardEmulator(env, tc.base, tc.environ...)
			if code := runCmd(env, "apply", "-auto-approve"); code != ExitError {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			if stderr.String() != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("the plan was shown before the mismatch was found:\n%s", stdout)
			}
			if after := apiRequests(t, tc.base); after != before {
				t.Errorf("%d API requests made to an emulator of the other profile", after-before)
			}
			if exists(env.Dir, "build/hello.wav") || exists(env.Dir, "voxform.state.json") {
				t.Error("something was written")
			}
		})
	}
}

// TestEmulateSpeaksTheManifestsProfile: the in-process emulator of
// -emulate serves the profile the manifest speaks, whichever it is: the
// synthesis reaches it under that profile's model name and succeeds.
func TestEmulateSpeaksTheManifestsProfile(t *testing.T) {
	var mu sync.Mutex
	var models []string
	saved := emulateOptions
	t.Cleanup(func() { emulateOptions = saved })
	emulateOptions.Received = func(route string, rq map[string]any) {
		if m, ok := rq["model"].(string); ok {
			mu.Lock()
			models = append(models, m)
			mu.Unlock()
		}
	}
	for _, tc := range []struct {
		environ []string
		want    string
	}{
		{nil, "timbre-v2.5"},
		{[]string{"VOXFORM_PROFILE=documented"}, "tts-v2.5"},
		{[]string{"VOXFORM_PROFILE=live"}, "timbre-v2.5"},
	} {
		mu.Lock()
		models = nil
		mu.Unlock()
		env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": tourManifest}, tc.environ...)
		if code := runCmd(env, "apply", "-emulate", "-auto-approve"); code != ExitOK {
			t.Fatalf("%v: apply -emulate: exit %d\n%s%s", tc.environ, code, stdout, stderr)
		}
		mu.Lock()
		if len(models) != 1 || models[0] != tc.want {
			t.Errorf("%v: the emulator was sent models %v, want [%s]", tc.environ, models, tc.want)
		}
		mu.Unlock()
	}
}

// oggManifest writes Ogg Opus as the documents do: container ogg.
const oggManifest = `version: 1
voices:
  narrator: { model: tts-v2.5, voice: Nalini, language: hi-IN }
syntheses:
  hello: { voice: narrator, text: "Hello there", output: build/hello.opus, audio_config: { container: ogg } }
`

// TestOggAsTheDocumentsWriteIt: a manifest that writes Ogg Opus as the
// documents do (container ogg) works under the default, live profile
// unchanged: the live spelling (container raw, encoding oggopus) is sent,
// as a model is sent by its live name, and the result is an Ogg file. The
// fingerprint is that of the output, not of its spelling: a state made
// under the documented profile plans no change under the live one, nor
// does the manifest spelled the live way.
func TestOggAsTheDocumentsWriteIt(t *testing.T) {
	var mu sync.Mutex
	var sent []any
	saved := emulateOptions
	t.Cleanup(func() { emulateOptions = saved })
	emulateOptions.Received = func(route string, rq map[string]any) {
		if ac, ok := rq["audio_config"]; ok {
			mu.Lock()
			sent = append(sent, ac)
			mu.Unlock()
		}
	}
	env, stdout, stderr := manifestEnv(t, map[string]string{"voxform.yaml": oggManifest})
	if code := runCmd(env, "apply", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply -emulate of container ogg under the live profile: exit %d\n%s%s", code, stdout, stderr)
	}
	mu.Lock()
	if len(sent) != 1 || !reflect.DeepEqual(sent[0], map[string]any{"container": "raw", "encoding": "oggopus", "sample_rate": 48000.0, "num_channels": 1.0}) {
		t.Errorf("audio_config sent: %v, want container raw with encoding oggopus", sent)
	}
	mu.Unlock()
	if b, err := os.ReadFile(filepath.Join(env.Dir, "build/hello.opus")); err != nil || !strings.HasPrefix(string(b), "OggS") {
		t.Errorf("build/hello.opus is not an Ogg file: %v", err)
	}
	live := strings.Replace(oggManifest, "{ container: ogg }", "{ container: raw, encoding: oggopus }", 1)
	if err := os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(live), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := runCmd(env, "plan", "-emulate", "-detailed-exitcode"); code != ExitOK {
		t.Errorf("the live spelling of the same output: exit %d\n%s%s", code, stdout, stderr)
	}

	// A state made under the documented profile, where container ogg was
	// always taken: the default profile replaces nothing.
	env, stdout, stderr = manifestEnv(t, map[string]string{"voxform.yaml": oggManifest}, "VOXFORM_PROFILE=documented")
	if code := runCmd(env, "apply", "-emulate", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply -emulate under the documented profile: exit %d\n%s%s", code, stdout, stderr)
	}
	env.Environ = func() []string { return nil }
	if code := runCmd(env, "plan", "-emulate", "-detailed-exitcode"); code != ExitOK {
		t.Errorf("a documented state under the live profile: exit %d\n%s%s", code, stdout, stderr)
	}
}
