package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

func TestMain(m *testing.M) {
	// -emulate's in-process emulator: speech content does not matter in
	// these tests, only that files are produced.
	emulateOptions.NoEspeak = true
	os.Exit(m.Run())
}

const testKey = "sk-test-key-123"

// emuEnv returns an Env for files whose service is a fresh in-process
// emulator (VOXFORM_BASE_URL and the API key set), and the emulator.
func emuEnv(t *testing.T, files map[string]string, opts emulator.Options) (*Env, *bytes.Buffer, *bytes.Buffer, *emulator.Running) {
	t.Helper()
	env, stdout, stderr := manifestEnv(t, files)
	opts.NoEspeak, opts.Seed = true, 1
	if opts.Profile == "" {
		opts.Profile = string(contract.DefaultProfile) // the service a manifest speaks to by default
	}
	run, err := emulator.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Shutdown waits for open connections; one that apply left open
		// (a spare one its transport dialled, say) would hold it for five
		// seconds, as it would hold the end of apply -emulate.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := run.Shutdown(ctx); err != nil {
			t.Errorf("emulator shutdown: %v (did voxform leave a connection open?)", err)
		}
	})
	env.Getenv = func(k string) string {
		switch k {
		case "VOXFORM_BASE_URL":
			return run.URL
		case "VOXFORM_API_KEY":
			return testKey
		}
		return ""
	}
	return env, stdout, stderr, run
}

// emuStats is the part of GET /_emulator/stats these tests read.
type emuStats struct {
	Requests         map[string]int64 `json:"requests"`
	Syntheses        int64            `json:"syntheses"`
	BilledCharacters int64            `json:"billed_characters"`
}

func statsOf(t *testing.T, run *emulator.Running) emuStats {
	t.Helper()
	var s emuStats
	if err := json.Unmarshal(run.StatsJSON(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func requests(s emuStats) int64 {
	var n int64
	for _, c := range s.Requests {
		n += c
	}
	return n
}

// recorded lists the addresses in the state of dir.
func recorded(t *testing.T, dir string) []string {
	t.Helper()
	st, err := state.NewLocal(dir).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Addresses()
}

func exists(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, rel))
	return err == nil
}

// blockingStdin is a terminal that nobody types on: its first Read calls
// onRead (an interrupt arriving at the prompt, say), then blocks until the
// test ends.
type blockingStdin struct {
	onRead  func()
	release chan struct{}
	once    sync.Once
}

func (b *blockingStdin) Read([]byte) (int, error) {
	b.once.Do(b.onRead)
	<-b.release
	return 0, os.ErrClosed
}

// TestApplyConfirmation: the 'yes' prompt. Anything but yes cancels with
// nothing changed; without a terminal apply refuses unless -auto-approve;
// an interrupt at the prompt exits 130; yes applies.
func TestApplyConfirmation(t *testing.T) {
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	nothingChanged := func(when string) {
		t.Helper()
		if n := requests(statsOf(t, run)); n != 0 {
			t.Errorf("%s: %d API calls", when, n)
		}
		if got := recorded(t, env.Dir); len(got) != 0 {
			t.Errorf("%s: recorded %v", when, got)
		}
		if exists(env.Dir, "build/bye.wav") || exists(env.Dir, "build/hello.wav") {
			t.Errorf("%s: an output was written", when)
		}
	}

	// No terminal on stdin: refused, with the way out.
	if code := runCmd(env, "apply"); code != ExitError {
		t.Errorf("apply without a terminal: exit %d", code)
	}
	if want := "voxform: apply needs confirmation, and there is no terminal to ask on\nhint: pass -auto-approve, or apply a plan saved with 'voxform plan -out FILE'\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	nothingChanged("apply without a terminal")

	env.Interactive, env.Terminal = true, true
	for _, answer := range []string{"no\n", "y\n", "YES\n", "\n", ""} {
		env.Stdin = strings.NewReader(answer)
		if code := runCmd(env, "apply"); code != ExitError {
			t.Errorf("answer %q: exit %d", answer, code)
		}
		if !strings.Contains(stdout.String(), "Do you want to perform these actions? Only 'yes' will be accepted.") {
			t.Errorf("answer %q: no question on stdout:\n%s", answer, stdout)
		}
		if want := "voxform: apply cancelled: nothing was changed\n"; stderr.String() != want {
			t.Errorf("answer %q: stderr %q, want %q", answer, stderr, want)
		}
	}
	nothingChanged("apply answered other than yes")

	// An interrupt while the question waits.
	ctx, cancel := context.WithCancel(context.Background())
	stdin := &blockingStdin{onRead: cancel, release: make(chan struct{})}
	defer close(stdin.release)
	env.Stdin = stdin
	stdout.Reset()
	stderr.Reset()
	if code := Run(ctx, env, []string{"apply"}); code != ExitInterrupted {
		t.Errorf("interrupt at the prompt: exit %d", code)
	}
	if want := "voxform: interrupted\nhint: nothing was changed\n"; stderr.String() != want {
		t.Errorf("interrupt at the prompt: stderr %q, want %q", stderr, want)
	}
	nothingChanged("apply interrupted at the prompt")

	// stdin a terminal, stdout not (apply > log): the question goes to
	// stderr, where it is seen.
	env.Terminal = false
	env.Stdin = strings.NewReader("nope\n")
	runCmd(env, "apply")
	if !strings.Contains(stderr.String(), "Do you want to perform these actions?") || strings.Contains(stdout.String(), "Do you want") {
		t.Errorf("question with stdout redirected: stdout %q stderr %q", stdout, stderr)
	}

	env.Terminal = true
	env.Stdin = strings.NewReader("yes\n")
	if code := runCmd(env, "apply"); code != ExitOK {
		t.Fatalf("apply answered yes: exit %d: %s", code, stderr)
	}
	if got := recorded(t, env.Dir); !slices.Equal(got, []string{"synthesis.bye", "synthesis.hello"}) {
		t.Errorf("recorded %v after yes", got)
	}
	if !exists(env.Dir, "build/bye.wav") || !exists(env.Dir, "build/hello.wav") {
		t.Error("outputs missing after yes")
	}
	if !strings.Contains(stdout.String(), "Apply complete! Resources: 2 done, 0 failed, 0 skipped.") {
		t.Errorf("no summary:\n%s", stdout)
	}

	// Nothing left to do: no question, no calls, and -detailed-exitcode 0.
	before := requests(statsOf(t, run))
	env.Stdin = strings.NewReader("")
	if code := runCmd(env, "apply"); code != ExitOK || strings.Contains(stdout.String(), "Do you want") {
		t.Errorf("apply with no changes: exit %d:\n%s%s", code, stdout, stderr)
	}
	if code := runCmd(env, "plan", "-detailed-exitcode"); code != ExitOK || !strings.Contains(stdout.String(), "No changes.") {
		t.Errorf("plan -detailed-exitcode with no changes: exit %d:\n%s", code, stdout)
	}
	if after := requests(statsOf(t, run)); after != before {
		t.Errorf("%d API calls with nothing to do", after-before)
	}
}

// TestApplySavedPlan: apply PLANFILE does exactly what was planned (its
// -target included) and refuses a plan the state or manifest has moved on
// from.
func TestApplySavedPlan(t *testing.T) {
	env, stdout, stderr, run := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "plan", "-target", "synthesis.hello", "-out", "hello.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, stderr)
	}
	// A saved plan needs no 'yes' and no terminal.
	if code := runCmd(env, "apply", "hello.plan"); code != ExitOK {
		t.Fatalf("apply hello.plan: exit %d: %s%s", code, stdout, stderr)
	}
	if got := recorded(t, env.Dir); !slices.Equal(got, []string{"synthesis.hello"}) {
		t.Errorf("recorded %v, want exactly the planned synthesis.hello", got)
	}
	if exists(env.Dir, "build/bye.wav") || !exists(env.Dir, "build/hello.wav") {
		t.Error("outputs are not exactly the planned one")
	}
	if s := statsOf(t, run); s.Syntheses != 1 {
		t.Errorf("%d syntheses for a plan of one", s.Syntheses)
	}

	// Applied once, the plan is stale: the state moved on.
	if code := runCmd(env, "apply", "hello.plan"); code != ExitError || !strings.Contains(stderr.String(), "the state changed since it was made") {
		t.Errorf("second apply of the same plan: exit %d: %s", code, stderr)
	}

	// A manifest edited after the plan was saved: refused, nothing done.
	if code := runCmd(env, "plan", "-out", "rest.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, stderr)
	}
	edited := strings.Replace(planManifest, `"Goodbye"`, `"Goodbye, friend"`, 1)
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(edited), 0o644)
	code := runCmd(env, "apply", "rest.plan")
	want := "voxform: rest.plan: the saved plan is stale: the manifest changed since it was made\nhint: run 'voxform plan -out rest.plan' again\n"
	if code != ExitError || stderr.String() != want {
		t.Errorf("apply of a stale plan: exit %d, stderr %q, want %q", code, stderr, want)
	}
	if s := statsOf(t, run); s.Syntheses != 1 || exists(env.Dir, "build/bye.wav") {
		t.Errorf("a stale plan was applied: %d syntheses", s.Syntheses)
	}

	// Unchanged since: applied, exactly the one planned create.
	os.WriteFile(filepath.Join(env.Dir, "voxform.yaml"), []byte(planManifest), 0o644)
	if code := runCmd(env, "plan", "-out", "rest.plan"); code != ExitOK {
		t.Fatalf("plan -out: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "apply", "rest.plan"); code != ExitOK {
		t.Fatalf("apply rest.plan: exit %d: %s", code, stderr)
	}
	if got := recorded(t, env.Dir); !slices.Equal(got, []string{"synthesis.bye", "synthesis.hello"}) {
		t.Errorf("recorded %v", got)
	}
	if s := statsOf(t, run); s.Syntheses != 2 {
		t.Errorf("%d syntheses in all, want 2 (each output once)", s.Syntheses)
	}
}

// sgr matches an ANSI colour (select graphic rendition) sequence.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestApplyDisplay: stdout being a terminal alone decides the live display
// (apply -auto-approve < /dev/null on a terminal still gets it); otherwise
// plain log lines with no escape sequences at all.
func TestApplyDisplay(t *testing.T) {
	t.Run("stdout a terminal, stdin not", func(t *testing.T) {
		env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
		env.Interactive, env.Terminal = false, true
		if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		out := stdout.String()
		if !strings.Contains(out, "\r\x1b[2K") || !strings.Contains(out, "[0/2]") {
			t.Errorf("no live status line:\n%q", out)
		}
		if !sgr.MatchString(out) {
			t.Errorf("no colours on a terminal:\n%q", out)
		}
	})
	t.Run("stdout not a terminal", func(t *testing.T) {
		env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
		env.Interactive, env.Terminal = true, false
		if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		out := stdout.String()
		if strings.Contains(out, "\x1b") || strings.Contains(out, "\r") {
			t.Errorf("escape sequences in plain output:\n%q", out)
		}
		for _, re := range []string{`(?m)^synthesis\.bye: created \(\d+\.\d kB, \d`, `(?m)^synthesis\.hello: created \(`} {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("no plain line %s:\n%s", re, out)
			}
		}
	})
}

// TestNoColor: NO_COLOR and -no-color leave plan and apply without colours,
// even on a terminal (which otherwise gets them).
func TestNoColor(t *testing.T) {
	for _, tt := range []struct {
		name    string
		noColor string // the NO_COLOR variable
		flags   []string
		colored bool
	}{
		{name: "terminal", colored: true},
		{name: "NO_COLOR", noColor: "1"},
		{name: "-no-color", flags: []string{"-no-color"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
			getenv := env.Getenv
			env.Getenv = func(k string) string {
				if k == "NO_COLOR" {
					return tt.noColor
				}
				return getenv(k)
			}
			env.Terminal = true
			for _, cmd := range [][]string{{"plan"}, {"apply", "-auto-approve"}} {
				if code := runCmd(env, append(cmd, tt.flags...)...); code != ExitOK {
					t.Fatalf("%s: exit %d: %s", cmd[0], code, stderr)
				}
				if got := sgr.MatchString(stdout.String()); got != tt.colored {
					t.Errorf("%s: colours %v, want %v:\n%q", cmd[0], got, tt.colored, stdout)
				}
			}
		})
	}
}

// TestVerifyDrift: verify exits 1 and names each output modified or
// deleted since apply; an intact tree passes.
func TestVerifyDrift(t *testing.T) {
	env, stdout, stderr, _ := emuEnv(t, map[string]string{"voxform.yaml": planManifest}, emulator.Options{})
	if code := runCmd(env, "apply", "-auto-approve"); code != ExitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	if code := runCmd(env, "verify"); code != ExitOK || stdout.String() != "Verified 2 recorded file(s) of 2 resource(s): 0 drifted.\n" {
		t.Errorf("verify of an intact tree: exit %d: %q %s", code, stdout, stderr)
	}
	f, err := os.OpenFile(filepath.Join(env.Dir, "build/hello.wav"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	os.Remove(filepath.Join(env.Dir, "build/bye.wav"))
	code := runCmd(env, "verify")
	wantOut := "synthesis.bye: build/bye.wav: missing\nsynthesis.hello: build/hello.wav: modified\nVerified 2 recorded file(s) of 2 resource(s): 2 drifted.\n"
	wantErr := "voxform: 2 recorded output(s) are missing or modified\nhint: 'voxform plan' shows them as repairs; 'voxform apply' restores them\n"
	if code != ExitError || stdout.String() != wantOut || stderr.String() != wantErr {
		t.Errorf("verify after drift: exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", code, stdout, wantOut, stderr, wantErr)
	}
	if code := runCmd(env, "verify", "-json"); code != ExitError {
		t.Errorf("verify -json after drift: exit %d", code)
	}
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var d workspace.Drift
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("verify -json line %q: %v", line, err)
		}
		problems = append(problems, d.Address+" "+d.Problem)
	}
	if !slices.Equal(problems, []string{"synthesis.bye missing", "synthesis.hello modified"}) {
		t.Errorf("verify -json: %v", problems)
	}
}
