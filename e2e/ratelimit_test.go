package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/emulator"
)

// rateManifest is a for_each of syntheses, one request each.
const rateManifest = `version: 1
service:
  base_url: https://speech.example.com
  parallelism: 16
voices:
  narrator: { model: tts-v2.5, voice: Kaveri, language: en-IN }
syntheses:
  prompts:
    for_each: prompts.csv
    voice: narrator
    text: "${each.value.text}"
    output: "build/${each.key}.wav"
`

// An apply against a service with a rate limit of its own (-rps) learns
// its pace: every resource completes in one apply, each synthesized and
// billed once, a request sent again after a 429 is the very request
// refused (same body), and few requests are refused.
func TestApplyUnderServiceRateLimit(t *testing.T) {
	t.Parallel()
	const n, rps = 60, 20
	var mu sync.Mutex
	bodies := map[[32]byte]int{}
	e := startEmulatorBehind(t, emulator.Options{RPS: rps, NoEspeak: true}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/v1/tts") {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				mu.Lock()
				bodies[sha256.Sum256(b)]++
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	p := newProject(t, "", e)
	p.writeFile("main.yaml", rateManifest)
	var csv strings.Builder
	csv.WriteString("key,text\n")
	chars := 0
	for i := range n {
		text := fmt.Sprintf("Prompt number %d is ready.", i)
		fmt.Fprintf(&csv, "p%02d,%s\n", i, text)
		chars += len(text)
	}
	p.writeFile("prompts.csv", csv.String())
	if r := p.apply(); r.code != 0 {
		t.Fatalf("apply: %v", r)
	}
	st := e.stats(t)
	var limited struct {
		RateLimited int64 `json:"rate_limited"`
	}
	if err := json.Unmarshal(e.StatsJSON(), &limited); err != nil {
		t.Fatal(err)
	}
	requests := st.calls()
	t.Logf("%d requests, %d answered 429", requests, limited.RateLimited)
	if st.Syntheses != n || st.BilledCharacters != int64(chars) {
		t.Errorf("%d syntheses, %d characters billed; want %d and %d, each once", st.Syntheses, st.BilledCharacters, n, chars)
	}
	if limited.RateLimited == 0 {
		t.Fatalf("no request was refused at %d a second: the test proved nothing", rps)
	}
	if requests != n+limited.RateLimited {
		t.Errorf("%d requests for %d syntheses and %d refusals", requests, n, limited.RateLimited)
	}
	if share := float64(limited.RateLimited) / float64(requests); share > 0.2 {
		t.Errorf("%.0f%% of requests refused", 100*share)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != n {
		t.Errorf("%d distinct synthesis bodies for %d syntheses: a request sent again differs from the one refused", len(bodies), n)
	}
	if _, sum := p.plan(); sum.changes() != 0 {
		t.Errorf("plan after the apply: %d changes", sum.changes())
	}
}
