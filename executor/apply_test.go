package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	sess, err := ws.Lock(context.Background(), "apply")
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
	f, err := state.NewLocal(h.dir).Read(context.Background())
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

// TestBatchJobsInFlight: a block of more files than one job takes is split
// into jobs of at most 100, up to parallelism of them in flight at once:
// every job is followed before the first of them is collected.
func TestBatchJobsInFlight(t *testing.T) {
	wav := recording(t, "1")
	files := map[string]string{"main.yaml": batchManifest}
	for i := range 250 {
		files[fmt.Sprintf("rec/%03d.wav", i)] = wav
	}
	// A twentieth of real time: a job of 100 one-second files takes about
	// 3 s, far longer than uploading its files, so jobs in flight together
	// are seen so.
	h := newHarness(t, emulator.Options{TimeScale: 20}, files)
	var mu sync.Mutex
	followed := map[string]bool{}
	var order []string // job ids as each is first followed, "done" as a resource completes
	s := h.applyWith(func(o *executor.Options) {
		o.Parallelism = 3
		o.Events = func(e executor.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case e.Kind == executor.EventProgress && e.JobID != "" && !followed[e.JobID]:
				followed[e.JobID] = true
				order = append(order, e.JobID)
			case e.Kind == executor.EventDone:
				order = append(order, "done")
			}
		}
	})
	if s.Done != 250 || s.Failed != 0 {
		t.Fatalf("summary %+v, want 250 done", s)
	}
	if n := h.counter("batch_jobs_created"); len(followed) != 3 || n != 0 && n != 3 {
		t.Errorf("%d jobs followed (emulator: %v created), want 3 of at most 100 files", len(followed), n)
	}
	if len(order) < 3 || slices.Contains(order[:3], "done") {
		t.Errorf("a resource completed before every job was in flight: %v", order[:min(len(order), 5)])
	}
}

// TestLegacySubmissionsOneAtATime: older batch submissions, which start
// work at once and cannot be found again after a kill, go one at a time
// whatever the parallelism: each is done before the next is followed.
func TestLegacySubmissionsOneAtATime(t *testing.T) {
	wav := recording(t, "1")
	files := map[string]string{"main.yaml": strings.Replace(batchManifest, "api: batch\n    model: stt-v2.5\n", "api: batch_legacy\n", 1)}
	for i := range 25 {
		files[fmt.Sprintf("rec/%03d.wav", i)] = wav
	}
	h := newHarness(t, emulator.Options{TimeScale: 20}, files)
	var mu sync.Mutex
	followed := map[string]bool{}
	var order []string
	s := h.applyWith(func(o *executor.Options) {
		o.Parallelism = 3
		o.Events = func(e executor.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case e.Kind == executor.EventProgress && e.JobID != "" && !followed[e.JobID]:
				followed[e.JobID] = true
				order = append(order, "job")
			case e.Kind == executor.EventDone:
				order = append(order, "done")
			}
		}
	})
	if s.Done != 25 || s.Failed != 0 {
		t.Fatalf("summary %+v, want 25 done", s)
	}
	if len(followed) != 3 {
		t.Fatalf("%d submissions followed, want 3 of at most 10 files", len(followed))
	}
	// job, its resources done, job, ..., never two jobs in a row.
	for i := 1; i < len(order); i++ {
		if order[i] == "job" && order[i-1] == "job" {
			t.Errorf("a submission was followed while another was in flight: %v", order)
			break
		}
	}
}

// TestUnderivableRequestFailsBeforeTheCall: a synthesis whose canonical
// request can no longer be made as it was fingerprinted (its typed request
// changed after planning) fails before anything is sent or paid for, and
// nothing is recorded for it.
func TestUnderivableRequestFailsBeforeTheCall(t *testing.T) {
	// The documented profile sends the request its fingerprint covers.
	h := newHarness(t, emulator.Options{Profile: string(contract.ProfileDocumented)}, map[string]string{
		"main.yaml": "version: 1\nservice: { base_url: https://speech.example.com, profile: documented }\n" + helloSynthesis})
	var calls int
	h.hook = func(req *http.Request, next http.RoundTripper) (*http.Response, error) {
		calls++
		return next.RoundTrip(req)
	}
	p, rec, done := h.plan()
	defer done()
	if len(p.Actions) != 1 || p.Actions[0].Desired == nil {
		t.Fatalf("plan: %+v", p.Actions)
	}
	w := *p.Actions[0].Desired.Wire.Synthesis
	w.Text = "something else"
	p.Actions[0].Desired.Wire.Synthesis = &w
	s, err := executor.Apply(context.Background(), p, executor.Options{Dir: h.dir, Client: h.cl, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 1 || s.Done != 0 || calls != 0 {
		t.Fatalf("apply of an underivable request: %+v, %d calls", s, calls)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out/hello.wav")); !os.IsNotExist(err) {
		t.Fatalf("an output was written: %v", err)
	}
}
