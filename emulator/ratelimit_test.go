package emulator_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/voxform/voxform/emulator"
)

// answer is what one request to the rate-limited emulator got.
type answer struct {
	status     int
	retryAfter string
	body       map[string]any
}

func (s *service) call(method, path, body string) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-API-Key-ID", "k")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") == "application/json" {
		a.body = object(s.t, b)
	}
	return a
}

const listJobs = "/stt/v3/batch/jobs"

// The -rps bucket admits its burst, then answers 429 with the documented
// body of each route's shape and a Retry-After computed from the bucket,
// does no work for it, and admits again once a token has accrued on the
// emulator's clock. Its 429s are counted apart from injected ones.
// conformance: ERR-006, ERR-034
func TestRateLimitBucket(t *testing.T) {
	s := newService(t, emulator.Options{RPS: 2, Burst: 3, NoEspeak: true, Keys: []string{"k"}})
	for i := range 3 {
		if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusOK {
			t.Fatalf("request %d of the burst of 3: %d %v", i+1, a.status, a.body)
		}
	}
	// Batch jobs shape: {"error": CODE, "message": M}.
	a := s.call(http.MethodGet, listJobs, "")
	if a.status != http.StatusTooManyRequests || a.retryAfter != "1" || a.body["error"] != "RATE_LIMIT_ERROR" || a.body["message"] == "" {
		t.Fatalf("past the burst: %d, Retry-After %q, %v; want 429, 1 (half a second, rounded up), RATE_LIMIT_ERROR", a.status, a.retryAfter, a.body)
	}
	// Synthesis shape: {"success": false, "error": {type, message}}, and
	// nothing synthesized or billed.
	a = s.call(http.MethodPost, "/api/v1/tts/inference", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "hi-IN"}`)
	e, _ := a.body["error"].(map[string]any)
	if a.status != http.StatusTooManyRequests || a.retryAfter != "1" || a.body["success"] != false || e["type"] != "RATE_LIMIT_ERROR" || e["message"] == "" {
		t.Fatalf("synthesis past the limit: %d, Retry-After %q, %v", a.status, a.retryAfter, a.body)
	}

	s.advance(499 * time.Millisecond)
	if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusTooManyRequests {
		t.Fatalf("499 ms later, before a token accrued: %d", a.status)
	}
	s.advance(time.Millisecond)
	if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusOK {
		t.Fatalf("500 ms later, one token at 2 a second: %d %v", a.status, a.body)
	}
	if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusTooManyRequests {
		t.Fatalf("right after, the token spent: %d", a.status)
	}

	var st struct {
		Requests           map[string]int64 `json:"requests"`
		FaultsInjected     map[string]int64 `json:"faults_injected"`
		RateLimited        int64            `json:"rate_limited"`
		RateLimitedByRoute map[string]int64 `json:"rate_limited_by_route"`
		BilledCharacters   int64            `json:"billed_characters"`
		Syntheses          int64            `json:"syntheses"`
	}
	if err := json.Unmarshal(s.srv.StatsJSON(), &st); err != nil {
		t.Fatal(err)
	}
	if st.RateLimited != 4 || st.RateLimitedByRoute["GET "+listJobs] != 3 || st.RateLimitedByRoute["POST /api/v1/tts/inference"] != 1 {
		t.Errorf("rate_limited %d by route %v; want 4: 3 list, 1 synthesis", st.RateLimited, st.RateLimitedByRoute)
	}
	if len(st.FaultsInjected) != 0 {
		t.Errorf("the rate limit's 429s counted as injected faults: %v", st.FaultsInjected)
	}
	if st.Requests["GET "+listJobs] != 7 || st.Requests["POST /api/v1/tts/inference"] != 1 {
		t.Errorf("requests %v: a refused request is still a request", st.Requests)
	}
	if st.BilledCharacters != 0 || st.Syntheses != 0 {
		t.Errorf("a refused synthesis billed %d characters, %d syntheses", st.BilledCharacters, st.Syntheses)
	}
}

// Retry-After is the time until the next token, in whole seconds rounded
// up: 4 at a quarter of a request a second, 3 once a second has passed.
func TestRateLimitRetryAfterFollowsTheBucket(t *testing.T) {
	s := newService(t, emulator.Options{RPS: 0.25, Burst: 1, Keys: []string{"k"}})
	if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusOK {
		t.Fatalf("first request: %d", a.status)
	}
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{{0, "4"}, {time.Second, "3"}, {2500 * time.Millisecond, "1"}} {
		s.advance(tc.after)
		if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusTooManyRequests || a.retryAfter != tc.want {
			t.Errorf("%v later: %d, Retry-After %q; want 429, %s", tc.after, a.status, a.retryAfter, tc.want)
		}
	}
	s.advance(500 * time.Millisecond)
	if a := s.call(http.MethodGet, listJobs, ""); a.status != http.StatusOK {
		t.Errorf("4 s after the first request: %d", a.status)
	}
}

// Start refuses a rate limit out of bounds, naming the bound.
func TestStartRefusesABadRate(t *testing.T) {
	for _, opts := range []emulator.Options{{RPS: -1}, {RPS: 1e12}, {RPS: 0.001}, {RPS: 5, Burst: -1}} {
		r, err := emulator.Start(opts, "127.0.0.1:0")
		if err == nil {
			r.Shutdown(t.Context())
			t.Errorf("Start(%+v) succeeded", opts)
			continue
		}
		if !strings.Contains(err.Error(), "must be") {
			t.Errorf("Start(RPS %v, Burst %d): %v does not name the bounds", opts.RPS, opts.Burst, err)
		}
	}
}
