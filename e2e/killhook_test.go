package e2e_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"sync"
)

// moment is when, in one exchange with the service, a kill lands.
type moment int

const (
	// onArrival: the request reached the service, which has done nothing
	// yet.
	onArrival moment = iota
	// midRequest: part of the request body arrived; the rest never does
	// (an upload cut short).
	midRequest
	// midResponse: the service did the work and billed it, and part of
	// its answer is on the wire.
	midResponse
	// answered: the service answered in full; voxform may not have
	// recorded it yet.
	answered
)

// killPoint is a phase of an apply where a kill is aimed: the nth request
// of one kind, at one moment of its exchange.
type killPoint struct {
	phase  string
	method string
	path   *regexp.Regexp
	at     moment
	// most bounds n: a full apply makes at least most such requests, so a
	// kill aimed at a fresh apply always lands.
	most int
}

func (k *killPoint) matches(r *http.Request) bool {
	return r.Method == k.method && k.path.MatchString(r.URL.Path)
}

// killer sits in front of the emulator and kills the voxform process under
// test with SIGKILL when the request it is armed for arrives.
type killer struct {
	mu     sync.Mutex
	proc   *os.Process
	point  *killPoint
	n      int // the request of point to kill at (1-based)
	seen   int
	killed bool
}

// arm aims the next kill at the nth request of point made by proc.
func (k *killer) arm(proc *os.Process, point *killPoint, n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.proc, k.point, k.n, k.seen, k.killed = proc, point, n, 0, false
}

// disarm ends the aim and reports whether the kill landed.
func (k *killer) disarm() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	killed := k.killed
	k.proc, k.point = nil, nil
	return killed
}

// due counts r and reports whether it is the request to kill at.
func (k *killer) due(r *http.Request) (moment, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.point == nil || k.killed || !k.point.matches(r) {
		return 0, false
	}
	k.seen++
	return k.point.at, k.seen == k.n
}

func (k *killer) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc != nil && !k.killed {
		_ = k.proc.Kill()
		k.killed = true
	}
}

// wrap puts the killer in front of the emulator.
func (k *killer) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at, ok := k.due(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		switch at {
		case onArrival:
			k.kill()
			next.ServeHTTP(w, r)
		case midRequest:
			cut := int64(64 << 10)
			if r.ContentLength > 0 {
				cut = r.ContentLength / 2
			}
			r.Body = &cutBody{ReadCloser: r.Body, left: cut, k: k}
			next.ServeHTTP(w, r)
		case midResponse:
			next.ServeHTTP(&killWriter{ResponseWriter: w, k: k}, r)
		case answered:
			next.ServeHTTP(w, r)
			k.kill()
		}
	})
}

// cutBody passes the first left bytes of a request body, then kills the
// client and ends the body as a dropped connection would.
type cutBody struct {
	io.ReadCloser
	left int64
	k    *killer
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.k.kill()
		return 0, io.ErrUnexpectedEOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if errors.Is(err, io.EOF) {
		// The body was shorter than the cut: kill at its end instead.
		b.k.kill()
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// killWriter sends the first half of the first piece of a response body,
// then kills the client.
type killWriter struct {
	http.ResponseWriter
	k    *killer
	done bool
}

func (w *killWriter) Write(p []byte) (int, error) {
	if w.done {
		return w.ResponseWriter.Write(p)
	}
	w.done = true
	n, err := w.ResponseWriter.Write(p[:len(p)/2])
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	w.k.kill()
	if err != nil {
		return n, err
	}
	m, err := w.ResponseWriter.Write(p[len(p)/2:])
	return n + m, err
}

// Flush lets streamed answers (SSE) through as they are written.
func (w *killWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *killWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// killPoints are the phases of the kill project's apply that
// TestKill9Converges aims at, each at least once.
func killPoints(bp *bigProject, perBlock, cloned int) []*killPoint {
	path := regexp.MustCompile
	return []*killPoint{
		{"a synthesis mid-body (rest)", "POST", path(`^/api/v1/tts/inference$`), midResponse, perBlock + cloned},
		{"a synthesis mid-stream (sse)", "POST", path(`^/api/v1/tts/sse$`), midResponse, perBlock},
		{"a synthesis answered (websocket)", "GET", path(`^/api/v1/tts$`), answered, perBlock},
		{"an embedding answered", "POST", path(`^/api/v1/tts/voice-clone/embeddings$`), answered, 1},
		{"a batch upload mid-body", "POST", path(`^/stt/v3/batch/jobs$`), midRequest, 1},
		{"a batch job created, not yet recorded", "POST", path(`^/stt/v3/batch/jobs$`), answered, 1},
		{"a batch job started", "POST", path(`^/stt/v3/batch/jobs/[^/]+/start$`), answered, 1},
		{"a batch status poll", "GET", path(`^/stt/v3/batch/jobs/[^/]+$`), onArrival, 2},
		{"a transcript download mid-body", "GET", path(`^/_storage/transcripts/`), midResponse, bp.batchFiles},
		{"an older batch submission answered", "POST", path(`^/stt/v3/batch/submit$`), answered, int(bp.legacyJobs())},
		{"an older batch status poll", "GET", path(`^/stt/v3/batch/status/`), onArrival, 1},
		{"a REST transcription answered", "POST", path(`^/stt/v3$`), answered, bp.clips},
	}
}
