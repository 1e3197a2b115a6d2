package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// breakerProject declares n syntheses under the service block service.
func breakerProject(t *testing.T, e *emu, service string, n int) *project {
	t.Helper()
	p := newProject(t, "", e)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("p%c%c", 'a'+i/26, 'a'+i%26)
	}
	p.writeFile("voxform.yaml", `version: 1
service: `+service+`
voices:
  n: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  prompt:
    for_each: [`+strings.Join(keys, ", ")+`]
    voice: n
    text: "Prompt ${each.value}, please hold."
    output: "build/${each.key}.wav"
`)
	return p
}

// service.retries: 0 means one request: no retry at all (unset, the
// client's default of 5 holds).
func TestRetriesZeroSendsOnce(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Options{FailRate: 1, NoEspeak: true})
	p := breakerProject(t, e, "{ retries: 0 }", 1)
	if r := p.apply(); r.code != 1 {
		t.Fatalf("%s", r)
	}
	if n := e.stats(t).Requests["POST /api/v1/tts/inference"]; n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// An apply against a service that stops answering: what completed before
// is recorded, the breaker opens after 5 operations in a row failed,
// nothing new starts, and apply exits 1 saying the service appears down,
// naming its host and the last error. The next apply, against a service
// dead from its start, sends at most 5 + parallelism - 1 requests for its
// 40 syntheses; in -json, the skipped resources and the apply_summary say
// the service appears down.
func TestDeadServiceStopsApply(t *testing.T) {
	t.Parallel()
	var passed atomic.Int32
	e := startEmulatorBehind(t, emulator.Options{NoEspeak: true}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/") && passed.Add(1) > 10 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"success":false,"error":{"type":"SERVICE_UNAVAILABLE","message":"backend gone"}}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	host := strings.TrimPrefix(e.URL, "http://")
	p := breakerProject(t, e, "{ retries: 0, parallelism: 4 }", 50)
	r := p.apply()
	if r.code != 1 || !strings.Contains(r.stderr, "the service at "+host+" appears down") || !strings.Contains(r.stderr, "backend gone") {
		t.Fatalf("want exit 1 saying %s appears down, with the last error:\n%s", host, r)
	}
	if !strings.Contains(r.stdout, "the service appears down") {
		t.Errorf("no summary line:\n%s", r.stdout)
	}
	if n := passed.Load(); n >= 50 {
		t.Errorf("%d requests: the apply did not stop", n)
	}
	st := p.readState()
	if len(st.Resources) != 10 {
		t.Errorf("%d resources recorded, want the 10 that completed", len(st.Resources))
	}
	for _, o := range st.outputs() {
		if !strings.HasPrefix(o, "build/") {
			t.Errorf("output %s", o)
		}
	}
	p.verify()

	before := passed.Load()
	r = p.apply("-json")
	if r.code != 1 {
		t.Fatalf("%s", r)
	}
	if n := passed.Load() - before; n > 5+4-1 {
		t.Errorf("%d requests, want at most %d", n, 5+4-1)
	}
	var summary, skipped int
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m struct {
			Type        string `json:"type"`
			Skipped     bool   `json:"skipped"`
			Reason      string `json:"reason"`
			ServiceDown string `json:"service_down"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch {
		case m.Type == "apply_errored" && m.Skipped:
			skipped++
			if !strings.Contains(m.Reason, "appears down") {
				t.Errorf("skipped because %q", m.Reason)
			}
		case m.Type == "apply_summary":
			summary++
			if !strings.Contains(m.ServiceDown, host) || !strings.Contains(m.ServiceDown, "appears down") {
				t.Errorf("apply_summary: %s", line)
			}
		}
	}
	if summary != 1 || skipped < 40-(5+4-1) {
		t.Errorf("%d summaries, %d skipped:\n%s", summary, skipped, r.stdout)
	}
}
