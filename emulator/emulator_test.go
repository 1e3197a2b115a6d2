package emulator_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// faultSequence sends n requests one after another to an emulator with
// every fault knob on and returns what each got: "200", "429", "500",
// "503", or "drop" for a body cut short.
func faultSequence(t *testing.T, seed uint64, n int) []string {
	t.Helper()
	s := emulator.New(emulator.Options{FailRate: 0.2, RateLimit: 0.2, DropRate: 0.3, Seed: seed, Keys: []string{"k"}})
	srv := httptest.NewServer(s)
	defer func() { srv.Close(); s.Close() }()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var out []string
	for i := range n {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/stt/v3/batch/jobs?limit=5", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key-ID", "k")
		resp, err := client.Do(req)
		if err != nil {
			out = append(out, "drop") // cut before the headers were read
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil || (resp.StatusCode == 200 && !json.Valid(body)):
			out = append(out, "drop")
		default:
			out = append(out, fmt.Sprint(resp.StatusCode))
		}
		if resp.StatusCode == 429 && resp.Header.Get("Retry-After") == "" {
			t.Errorf("request %d: 429 without Retry-After", i)
		}
	}
	var st struct {
		FaultsInjected map[string]int64            `json:"faults_injected"`
		FaultsByRoute  map[string]map[string]int64 `json:"faults_by_route"`
	}
	if err := json.Unmarshal(s.StatsJSON(), &st); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"429", "500", "503", "drop"} {
		if got, want := st.FaultsInjected[kind], int64(strings.Count(strings.Join(out, " "), kind)); got != want {
			t.Errorf("seed %d: stats count %d %s faults, the client saw %d", seed, got, kind, want)
		}
		if st.FaultsByRoute["GET /stt/v3/batch/jobs"][kind] != st.FaultsInjected[kind] {
			t.Errorf("seed %d: %s faults by route %v, in all %d", seed, kind, st.FaultsByRoute, st.FaultsInjected[kind])
		}
	}
	return out
}

// TestSeedMakesFaultsRepeatable: the same seed gives the same sequence of
// injected faults, request by request; another seed another sequence. All
// kinds of fault occur, and the statistics count each, by route too.
func TestSeedMakesFaultsRepeatable(t *testing.T) {
	const n = 60
	a, b, c := faultSequence(t, 7, n), faultSequence(t, 7, n), faultSequence(t, 8, n)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 twice:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same sequence %v", a)
	}
	for _, kind := range []string{"200", "429", "500", "503", "drop"} {
		if !slices.Contains(a, kind) {
			t.Errorf("no %s among %v", kind, a)
		}
	}
}

// TestLatencyDelaysEveryAPIResponse: with -latency every API answer, an
// error included, comes no sooner than the latency after the request.
func TestLatencyDelaysEveryAPIResponse(t *testing.T) {
	const latency = 150 * time.Millisecond
	s := emulator.New(emulator.Options{Latency: latency, Keys: []string{"k"}})
	srv := httptest.NewServer(s)
	defer func() { srv.Close(); s.Close() }()
	for _, tc := range []struct {
		method, path, key string
		status            int
	}{
		{"GET", "/stt/v3/batch/jobs", "k", 200},
		{"GET", "/stt/v3/batch/jobs/job_unknown", "k", 404},
		{"POST", "/api/v1/tts/inference", "", 403},
		{"GET", "/stt/v3/batch/status/batch_x", "k", 404},
	} {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if tc.key != "" {
			req.Header.Set("X-API-Key-ID", tc.key)
		}
		begin := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if d := time.Since(begin); d < latency || resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d after %v, want %d after at least %v", tc.method, tc.path, resp.StatusCode, d, tc.status, latency)
		}
	}
}
