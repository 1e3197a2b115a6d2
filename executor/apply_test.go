package executor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/executor"
	"github.com/voxform/voxform/manifest"
	"github.com/voxform/voxform/planner"
	"github.com/voxform/voxform/speechapi"
	"github.com/voxform/voxform/state"
	"github.com/voxform/voxform/workspace"
)

// harness applies manifests in a directory against an emulator, through
// the same steps as the apply command.
type harness struct {
	t   *testing.T
	dir string
	emu *emulator.Running
	cl  *speechapi.Client
	// hook, when set, sees every HTTP request of the client and decides
	// what becomes of it (see hookTransport).
	hook func(req *http.Request, next http.RoundTripper) (*http.Response, error)
}

// hookTransport sends requests through the harness's hook, if any.
type hookTransport struct{ h *harness }

func (t hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if hook := t.h.hook; hook != nil {
		return hook(req, http.DefaultTransport)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func newHarness(t *testing.T, opts emulator.Options, files map[string]string) *harness {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts.NoEspeak = true
	if opts.Profile == "" {
		opts.Profile = string(contract.DefaultProfile) // the service a manifest speaks to by default
	}
	if opts.TimeScale == 0 {
		opts.TimeScale = 1000
	}
	run, err := emulator.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Shutdown(context.Background()) })
	h := &harness{t: t, dir: dir, emu: run}
	cl, err := speechapi.New(speechapi.Config{BaseURL: run.URL, APIKey: "test-key", RetryWaitMin: 1, RetryWaitMax: 10,
		Profile:    contract.Profile(opts.Profile),
		HTTPClient: &http.Client{Transport: hookTransport{h}}})
	if err != nil {
		t.Fatal(err)
	}
	h.cl = cl
	return h
}

// plan loads the manifest and computes the plan against the locked
// state, through the workflow the commands use. done saves and unlocks.
func (h *harness) plan() (*planner.Plan, *state.Recorder, func()) {
	h.t.Helper()
	return h.planWith(planner.Options{})
}

// planWith is plan with options.
func (h *harness) planWith(opts planner.Options) (*planner.Plan, *state.Recorder, func()) {
	h.t.Helper()
	ws := workspace.New(h.dir)
	m, ds := ws.Load(manifest.LoadOptions{})
	if m == nil {
		h.t.Fatalf("manifest: %v", ds)
	}
	sess, err := ws.Lock("apply")
	if err != nil {
		h.t.Fatal(err)
	}
	p, err := sess.Plan(context.Background(), m, opts)
	if err != nil {
		sess.Close()
		h.t.Fatal(err)
	}
	rec, err := sess.Recorder()
	if err != nil {
		sess.Close()
		h.t.Fatal(err)
	}
	return p, rec, func() { sess.Close() }
}

// apply plans and applies once, returning the summary.
func (h *harness) apply() *executor.Summary {
	h.t.Helper()
	return h.applyWith(func(*executor.Options) {})
}

// applyWith plans and applies once with options adjusted by set.
func (h *harness) applyWith(set func(*executor.Options)) *executor.Summary {
	h.t.Helper()
	p, rec, done := h.plan()
	defer done()
	opts := executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec}
	set(&opts)
	s, err := executor.Apply(context.Background(), p, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// state reads the state as the next plan will.
func (h *harness) state() *state.File {
	h.t.Helper()
	f, err := state.NewLocal(h.dir).Read()
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

func (h *harness) stats() map[string]any {
	h.t.Helper()
	resp, err := http.Get(h.emu.URL + "/_emulator/stats")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var s map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) counter(name string) float64 {
	v, _ := h.stats()[name].(float64)
	return v
}

// recording makes a short WAV with sox (which the tests require).
func recording(t *testing.T, seconds string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.wav")
	out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", p, "synth", seconds, "sine", "300-900", "tremolo", "3", "90").CombinedOutput()
	if err != nil {
		t.Fatalf("sox (install it with scripts/deps.sh): %v: %s", err, out)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const batchManifest = `
version: 1
service: { base_url: https://speech.example.com }
transcriptions:
  calls:
    inputs: ["rec/*.wav"]
    api: batch
    model: stt-v2.5
    language_code: hi-IN
    output_dir: out
    formats: [json, txt]
`

// helloSynthesis declares one REST synthesis, out/hello.wav.
const helloSynthesis = `
voices:
  v: { model: tts-v2.5, voice: Kaveri, language: hi-IN }
syntheses:
  hello:
    voice: v
    text: "नमस्ते"
    output: out/hello.wav
`

// A second apply with nothing changed makes no API call at all.
func TestSecondApplyMakesNoCalls(t *testing.T) {
	wav := recording(t, "1")
	h := newHarness(t, emulator.Options{}, map[string]string{
		"main.yaml": batchManifest + helloSynthesis, "rec/a.wav": wav,
	})
	if s := h.apply(); s.Done != 2 || s.Failed != 0 {
		t.Fatalf("first apply: %+v", s)
	}
	before := h.stats()["requests"]
	p, _, done := h.plan()
	done()
	if p.HasChanges() {
		t.Fatalf("second plan has changes: %+v", p.Actions[0])
	}
	if s := h.apply(); s.Done != 0 {
		t.Fatalf("second apply did work: %+v", s)
	}
	after := h.stats()["requests"]
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(after)
	if string(b1) != string(b2) {
		t.Errorf("second apply made calls:\nbefore %s\nafter  %s", b1, b2)
	}
}
