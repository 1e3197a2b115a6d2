package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// retryClient is a client of url with retries retries (-1: none), short
// backoff and breaker b (nil: none).
func retryClient(t *testing.T, url string, retries int, b *speechapi.Breaker) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: url, APIKey: "test-key", Retries: retries, Timeout: 5 * time.Second,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond, Breaker: b})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var retrySynthesis = &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{
	Text: "Your call matters to us, please stay on the line.", Model: "tts-v2.5", Voice: "Nalini", Language: "en-IN",
	AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 16000}}}

// operation is one call of every kind the executor makes, and the
// emulator route it reaches.
type operation struct {
	route string
	call  func(context.Context, *speechapi.Client) error
}

func operations(t *testing.T) []operation {
	clip := wavBytes(t, 5, 0.5, 16000, kindSpeech)
	src := writeAudioFile(t, t.TempDir(), "a.wav", clip)
	cfg := speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "en-IN"}
	synth := func(call func(*speechapi.Client, context.Context, *speechapi.SynthesisRequest, *memFile) (*speechapi.SynthesisResult, error)) func(context.Context, *speechapi.Client) error {
		return func(ctx context.Context, c *speechapi.Client) error {
			_, err := call(c, ctx, retrySynthesis, &memFile{})
			return err
		}
	}
	return []operation{
		{"POST /api/v1/tts/inference", synth(transports[0].call)},
		{"POST /api/v1/tts/sse", synth(transports[1].call)},
		{"GET /api/v1/tts", synth(transports[2].call)},
		{"POST /api/v1/tts/voice-clone/embeddings", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.CreateEmbedding(ctx, "ref.wav", bytes.NewReader(referenceWAV(1, 6)))
			return err
		}},
		{"POST /stt/v3", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "en-IN"})
			return err
		}},
		{"GET /stt/v3", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "en-IN"})
			return err
		}},
		{"POST /stt/v3/batch/jobs", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.CreateJobUpload(ctx, cfg, []speechapi.Source{src}, "")
			return err
		}},
		{"POST /stt/v3/batch/jobs/{job_id}/start", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.StartJob(ctx, "job_1")
			return err
		}},
		{"GET /stt/v3/batch/jobs/{job_id}", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.GetJob(ctx, "job_1")
			return err
		}},
		{"GET /stt/v3/batch/jobs/{job_id}/files", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.AllJobFiles(ctx, "job_1", "")
			return err
		}},
		{"GET /stt/v3/batch/jobs", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.ListJobs(ctx, speechapi.JobsQuery{Status: speechapi.JobCreated})
			return err
		}},
		{"POST /stt/v3/batch/jobs/{job_id}/cancel", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.CancelJob(ctx, "job_1", "")
			return err
		}},
		{"POST /stt/v3/batch/submit", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.SubmitLegacy(ctx, []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "en-IN"})
			return err
		}},
		{"GET /stt/v3/batch/status/{job_id}", func(ctx context.Context, c *speechapi.Client) error {
			_, err := c.LegacyStatus(ctx, "job_1", "")
			return err
		}},
	}
}

// With service.retries N, one operation of any kind against a service
// that answers every request 500 or 503 makes exactly N+1 requests: the
// client is the one retry layer.
// conformance: ERR-007, ERR-018
func TestRetriesBoundEveryOperation(t *testing.T) {
	for _, n := range []int{0, 2, 5} {
		e := newRecogEmu(t, emulator.Options{FailRate: 1, NoEspeak: true})
		retries := n
		if n == 0 {
			retries = -1
		}
		c := retryClient(t, e.http.URL, retries, nil)
		for _, op := range operations(t) {
			err := op.call(context.Background(), c)
			var se *speechapi.Error
			if !errors.As(err, &se) || se.StatusCode < 500 {
				t.Errorf("retries %d, %s: %v, want the service's 5xx", n, op.route, err)
			}
			if got := e.stats(t).Requests[op.route]; got != int64(n+1) {
				t.Errorf("retries %d, %s: %d requests, want %d", n, op.route, got, n+1)
			}
		}
	}
}

// A stream cut mid-body is sent again from an empty output, and counts
// among the retries: with retries 2, a synthesis whose every answer is
// cut makes exactly 3 requests, over every transport. Into a writer that
// cannot be emptied it is sent once.
func TestCutStreamCountsAmongRetries(t *testing.T) {
	e := newEmu(t, emulator.Options{DropRate: 1, NoEspeak: true}, speechapi.Config{Retries: 2})
	routes := []string{"POST /api/v1/tts/inference", "POST /api/v1/tts/sse", "GET /api/v1/tts"}
	for i, tr := range transports {
		_, err := tr.call(e.client, context.Background(), retrySynthesis, &memFile{})
		var ie *speechapi.IncompleteError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an *IncompleteError", tr.name, err)
		}
		if got := e.stats().Requests[routes[i]]; got != 3 {
			t.Errorf("%s: %d requests, want 3", tr.name, got)
		}
	}
	var plain bytes.Buffer
	if _, err := e.client.Synthesize(context.Background(), retrySynthesis, &plain); err == nil {
		t.Fatal("a cut synthesis succeeded")
	}
	if got := e.stats().Requests[routes[0]]; got != 3+1 {
		t.Errorf("into a bytes.Buffer: %d requests, want 1", got-3)
	}
}

// front answers each request to the emulator by its script, in order: a
// 503, an answer cut mid-body, or the emulator's own ("pass", also once
// the script is done). It counts requests by method and path.
type front struct {
	next http.Handler
	mu   sync.Mutex
	plan []string
	seen map[string]int
}

func newFront(t *testing.T, opts emulator.Options, script ...string) (*front, string) {
	opts.NoEspeak = true
	f := &front{next: emulator.New(opts), plan: script, seen: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func (f *front) script(steps ...string) {
	f.mu.Lock()
	f.plan = steps
	f.mu.Unlock()
}

func (f *front) count(method, path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[method+" "+path]
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen[r.Method+" "+r.URL.Path]++
	step := "pass"
	if len(f.plan) > 0 {
		step, f.plan = f.plan[0], f.plan[1:]
	}
	f.mu.Unlock()
	switch step {
	case "503":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"success":false,"error":{"type":"SERVICE_UNAVAILABLE","message":"try later"}}`))
	case "cut":
		rec := httptest.NewRecorder()
		f.next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection is closed mid-body
	default:
		f.next.ServeHTTP(w, r)
	}
}

// A 503 and then a cut answer are two of the same budget: with retries 2
// a synthesis answered 503, then cut, then whole succeeds on the third
// request with exactly the clean audio; with retries 1 it fails after two.
func TestFailureAndCutShareOneBudget(t *testing.T) {
	clean := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{})
	var want memFile
	if _, err := clean.client.Synthesize(context.Background(), retrySynthesis, &want); err != nil {
		t.Fatal(err)
	}
	for _, retries := range []int{1, 2} {
		f, url := newFront(t, emulator.Options{}, "503", "cut")
		c := retryClient(t, url, retries, nil)
		var got memFile
		_, err := c.Synthesize(context.Background(), retrySynthesis, &got)
		n := f.count(http.MethodPost, "/api/v1/tts/inference")
		switch {
		case n != retries+1:
			t.Errorf("retries %d: %d requests, want %d", retries, n, retries+1)
		case retries == 1 && err == nil:
			t.Error("retries 1: succeeded after a 503 and a cut answer")
		case retries == 2 && (err != nil || !bytes.Equal(got.Bytes(), want.Bytes())):
			t.Errorf("retries 2: %v, %d bytes, want the clean %d", err, len(got.Bytes()), len(want.Bytes()))
		}
	}
}

// A status read whose answers alternate between 503 and cut makes exactly
// retries+1 requests in all, not (retries+1) squared.
func TestReadRetriesDoNotMultiply(t *testing.T) {
	f, url := newFront(t, emulator.Options{TimeScale: 1000})
	c := retryClient(t, url, 2, nil)
	ctx := context.Background()
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 3, 0.3, 16000, kindSpeech))
	job, err := c.CreateJobUpload(ctx, speechapi.JobConfig{Model: "stt-v2.5", LanguageCode: "en-IN"}, []speechapi.Source{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.script("503", "cut", "503", "cut", "503", "cut", "503", "cut", "503")
	if _, err := c.GetJob(ctx, job.JobID); err == nil {
		t.Fatal("a status read answered only by 503s and cut answers succeeded")
	}
	if n := f.count(http.MethodGet, "/stt/v3/batch/jobs/"+job.JobID); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// An older batch submit starts the job, billed, when the service answers:
// an answer cut mid-body is not sent again (the documents name no way to
// find the first job), whatever the retries.
func TestCutLegacySubmitIsNotSentAgain(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{DropRate: 1})
	c := retryClient(t, e.http.URL, 5, nil)
	src := writeAudioFile(t, t.TempDir(), "a.wav", wavBytes(t, 4, 0.3, 16000, kindSpeech))
	_, err := c.SubmitLegacy(context.Background(), []speechapi.Source{src}, speechapi.LegacyOptions{LanguageCode: "en-IN"})
	var ie *speechapi.IncompleteError
	if !errors.As(err, &ie) {
		t.Fatalf("%v, want an *IncompleteError", err)
	}
	if st := e.stats(t); st.Requests["POST /stt/v3/batch/submit"] != 1 || st.LegacyJobsSubmitted != 1 {
		t.Errorf("%d submits, %d jobs: want one", st.Requests["POST /stt/v3/batch/submit"], st.LegacyJobsSubmitted)
	}
}

// The breaker opens after threshold operations in a row failed for a
// reason of the service's, each after its retries: the next call fails at
// once, sends nothing, and names the host and the last failure.
func TestBreakerOpensAfterFailuresInARow(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{FailRate: 1})
	b := speechapi.NewBreaker(3)
	c := retryClient(t, e.http.URL, 1, b)
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.GetJob(ctx, "job_1"); err == nil || b.Err() != nil != (i == 2) {
			t.Fatalf("call %d: %v, breaker %v", i+1, err, b.Err())
		}
	}
	select {
	case <-b.Open():
	default:
		t.Fatal("Open's channel is not closed")
	}
	_, err := c.Synthesize(ctx, retrySynthesis, &memFile{})
	var down *speechapi.DownError
	if !errors.As(err, &down) || speechapi.IsTemporary(err) {
		t.Fatalf("%v, want a *DownError", err)
	}
	host := strings.TrimPrefix(e.http.URL, "http://")
	var se *speechapi.Error
	if down.Host != host || down.Failures != 3 || !errors.As(down.Last, &se) || se.StatusCode < 500 ||
		!strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "appears down") {
		t.Errorf("%+v: %v", down, err)
	}
	st := e.stats(t)
	if st.Requests["GET /stt/v3/batch/jobs/{job_id}"] != 6 || st.Requests["POST /api/v1/tts/inference"] != 0 {
		t.Errorf("requests %v: want 6 status reads and no synthesis", st.Requests)
	}
}

// What is not the service failing leaves the count as it is: 429s (the
// service is busy: the caller slows down), a 400 (the request's fault);
// and a success sets it back to zero.
func TestBreakerIgnoresRateLimitsAndRequestErrors(t *testing.T) {
	ctx := context.Background()
	limited := newRecogEmu(t, emulator.Options{RateLimit: 1, RetryAfter: 0})
	b := speechapi.NewBreaker(2)
	c := retryClient(t, limited.http.URL, 1, b)
	for range 6 {
		if _, err := c.GetJob(ctx, "job_1"); !speechapi.IsCode(err, speechapi.TypeRateLimit) {
			t.Fatalf("%v, want a 429", err)
		}
	}
	bad := *retrySynthesis
	bad.Voice = "Nobody"
	e := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{Breaker: b})
	for range 6 {
		var se *speechapi.Error
		if _, err := e.client.Synthesize(ctx, &bad, &memFile{}); !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest {
			t.Fatalf("%v, want a 400", err)
		}
	}
	if err := b.Err(); err != nil {
		t.Fatalf("429s and 400s opened the breaker: %v", err)
	}

	f, url := newFront(t, emulator.Options{}, "503", "pass", "503", "pass", "503", "503")
	b = speechapi.NewBreaker(2)
	c = retryClient(t, url, -1, b)
	for i := range 6 {
		c.Synthesize(ctx, retrySynthesis, &memFile{})
		if open := b.Err() != nil; open != (i == 5) {
			t.Fatalf("after call %d the breaker is open=%v", i+1, open)
		}
	}
	if n := f.count(http.MethodPost, "/api/v1/tts/inference"); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}

// A refused connection and a connection reset before any answer are the
// service failing: each is sent again, retries+1 times in all, and both
// open the breaker. The breaker names the host.
func TestBreakerCountsRefusedAndResetConnections(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	reset, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reset.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := reset.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.(*net.TCPConn).SetLinger(0) // close with a RST
			buf := make([]byte, 1)
			conn.Read(buf)
			conn.Close()
		}
	}()
	for name, host := range map[string]string{"refused": refused, "reset": reset.Addr().String()} {
		b := speechapi.NewBreaker(2)
		c := retryClient(t, "http://"+host, 2, b)
		for range 2 {
			_, err := c.GetJob(context.Background(), "job_1")
			if err == nil || !speechapi.IsTemporary(err) {
				t.Fatalf("%s: %v", name, err)
			}
		}
		var down *speechapi.DownError
		if err := b.Err(); !errors.As(err, &down) || down.Host != host {
			t.Fatalf("%s: breaker %v, want it open naming %s", name, err, host)
		}
		if name == "refused" && !errors.Is(down.Last, syscall.ECONNREFUSED) {
			t.Errorf("refused: the last failure is %v", down.Last)
		}
	}
	if n := accepted.Load(); n != 2*3 {
		t.Errorf("the resetting host took %d connections, want 6", n)
	}
}

// A call in flight when the breaker opens is not sent again: it ends with
// its own failure after the request it had sent.
func TestBreakerStopsRetriesInFlight(t *testing.T) {
	var asked atomic.Int32
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/job_a") && asked.Add(1) == 1 {
			defer close(first)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"SERVICE_UNAVAILABLE","message":"down"}`))
	}))
	t.Cleanup(srv.Close)
	b := speechapi.NewBreaker(1)
	slow, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "test-key", Retries: 5,
		RetryWaitMin: 200 * time.Millisecond, RetryWaitMax: 200 * time.Millisecond, Breaker: b})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := slow.GetJob(context.Background(), "job_a"); done <- err }()
	<-first // job_a failed once and waits for its retry
	if _, err := retryClient(t, srv.URL, -1, b).GetJob(context.Background(), "job_b"); err == nil || b.Err() == nil {
		t.Fatalf("%v; breaker %v", err, b.Err())
	}
	err = <-done
	var se *speechapi.Error
	if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable || asked.Load() != 1 {
		t.Errorf("%v after %d requests: want its 503 after one", err, asked.Load())
	}
}
