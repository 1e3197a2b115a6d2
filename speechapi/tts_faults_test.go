package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// conformance: ERR-007, ERR-008
func TestSynthesisRetriesInjectedServerErrors(t *testing.T) {
	e := newEmu(t, emulator.Options{FailRate: 0.5, Seed: 7, NoEspeak: true}, speechapi.Config{Retries: 20})
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Please hold.", Model: "tts-v2.5", Voice: "Poorvi", Language: "en-IN"}}
	for i := 0; i < 10; i++ {
		for _, tr := range transports {
			var f memFile
			if _, err := tr.call(e.client, context.Background(), req, &f); err != nil {
				t.Fatalf("%s: %v", tr.name, err)
			}
		}
	}
	s := e.stats()
	if s.FaultsInjected["500"] == 0 || s.FaultsInjected["503"] == 0 || s.Syntheses != 30 {
		t.Fatalf("want injected 500s and 503s and 30 syntheses, got %+v", s)
	}
	total := s.Requests["POST /api/v1/tts/inference"] + s.Requests["POST /api/v1/tts/sse"] + s.Requests["GET /api/v1/tts"]
	if total != 30+s.FaultsInjected["500"]+s.FaultsInjected["503"] {
		t.Fatalf("requests %d: want 30 plus one per fault (%+v)", total, s.FaultsInjected)
	}
}

// conformance: ERR-006
func TestSynthesisHonoursRetryAfter(t *testing.T) {
	e := newEmu(t, emulator.Options{}, speechapi.Config{})
	// The emulator's own 429 carries Retry-After.
	limited := emulator.New(emulator.Options{RateLimit: 1, RetryAfter: 2 * time.Second})
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/api/v1/tts/inference", bytes.NewReader([]byte(`{}`)))
	r.Header.Set("X-API-Key-ID", testKey)
	limited.ServeHTTP(rec, r)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "2" || !bytes.Contains(rec.Body.Bytes(), []byte("RATE_LIMIT_ERROR")) {
		t.Fatalf("emulator 429: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// The client waits as long as Retry-After says, on HTTP and on the
	// WebSocket handshake.
	var hits atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1)%2 == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"success": false, "error": {"type": "RATE_LIMIT_ERROR", "message": "slow down"}}`)
			return
		}
		e.srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	c, err := speechapi.New(speechapi.Config{BaseURL: front.URL, APIKey: testKey, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "One moment.", Model: "tts-v2.5", Voice: "Poorvi", Language: "en-IN"}}
	for _, tr := range []string{"rest", "websocket"} {
		start := time.Now()
		var err error
		if tr == "rest" {
			_, err = c.Synthesize(context.Background(), req, &memFile{})
		} else {
			_, err = c.SynthesizeRealtime(context.Background(), req, &memFile{})
		}
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("%s: retried after %v, before Retry-After's 1 s", tr, d)
		}
	}
}

// conformance: TTS-060, TTS-076
func TestSynthesisDroppedStreamsAreIncompleteAndBilled(t *testing.T) {
	e := newEmu(t, emulator.Options{DropRate: 1, NoEspeak: true}, speechapi.Config{Retries: -1})
	text := "<laugh> Namaste, this is long enough to be cut in the middle of its audio."
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v3.0", Voice: "Shivani", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 48000}}}
	for _, tr := range transports {
		_, err := tr.call(e.client, context.Background(), req, &memFile{})
		var ie *speechapi.IncompleteError
		if !errors.As(err, &ie) || !speechapi.IsTemporary(err) {
			t.Errorf("%s: want an *IncompleteError, got %v", tr.name, err)
		}
	}
	s := e.stats()
	if s.FaultsInjected["drop"] != 3 || s.BilledCharacters != int64(3*utf8.RuneCountInString(text)) {
		t.Fatalf("want 3 drops billed at %d characters each, got %+v", utf8.RuneCountInString(text), s)
	}
}

// TestSynthesisUnderAllFaultsEndsWithEveryFileCorrect runs a few hundred
// syntheses over every transport with 500/503s, 429s and cut connections
// all injected (and the live service's quirks on), which the client
// retries (a cut stream from an empty output), and compares each output
// with the same request served without faults or quirks.
//
// conformance: ERR-006, ERR-007, ERR-008
func TestSynthesisUnderAllFaultsEndsWithEveryFileCorrect(t *testing.T) {
	calls := 300
	if testing.Short() {
		calls = 60
	}
	var mu sync.Mutex
	var retries int
	faulty := newEmu(t, emulator.Options{FailRate: 0.1, RateLimit: 0.1, DropRate: 0.15, Seed: 3, NoEspeak: true, Profile: emulator.ProfileLive},
		speechapi.Config{Retries: 11, OnRetry: func(string, int, error) { mu.Lock(); retries++; mu.Unlock() }})
	clean := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{})
	containers := []string{"wav", "raw", "mulaw", "alaw", "mp3"}
	type job struct {
		tr  transport
		req *speechapi.SynthesisRequest
	}
	var jobs []job
	for i := 0; i < calls; i++ {
		tr := transports[i%3]
		c := containers[(i%40)%len(containers)] // each text keeps its container
		if tr.name == "websocket" && !websocketContainers[c] {
			c = "wav"
		}
		jobs = append(jobs, job{tr, &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: fmt.Sprintf("Prompt number %d for the menu.", i%40), Model: "tts-v2.5", Voice: "Nalini", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: c, SampleRate: 8000}}}})
	}
	references := map[string][]byte{} // fault-free output per transport and request
	work := make(chan job)
	var wg sync.WaitGroup
	failures := make(chan error, len(jobs))
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				var got memFile
				_, err := j.tr.call(faulty.client, context.Background(), liveNamed(j.req), &got)
				key := j.tr.name + j.req.AudioConfig.Container + j.req.Text
				mu.Lock()
				want, ok := references[key]
				mu.Unlock()
				if err == nil && !ok {
					var f memFile
					_, err = j.tr.call(clean.client, context.Background(), j.req, &f)
					want = f.Bytes()
					mu.Lock()
					references[key] = want
					mu.Unlock()
				}
				if err == nil && !bytes.Equal(got.Bytes(), want) {
					err = fmt.Errorf("%s %s %q: output differs from the fault-free one", j.tr.name, j.req.AudioConfig.Container, j.req.Text)
				}
				if err != nil {
					failures <- err
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	s := faulty.stats()
	t.Logf("faults %v, retries %d, syntheses %d", s.FaultsInjected, retries, s.Syntheses)
	for _, k := range []string{"429", "drop"} {
		if s.FaultsInjected[k] == 0 {
			t.Errorf("no %s fault was injected: %+v", k, s.FaultsInjected)
		}
	}
	if s.FaultsInjected["500"]+s.FaultsInjected["503"] == 0 || retries == 0 || s.Syntheses < int64(calls) {
		t.Errorf("stats do not show the retries: %+v, %d retries", s, retries)
	}
}
