package speechapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// TimeoutError is a host that let Config.Timeout (the manifest's
// service.timeout) pass without a sign of life: no connection, no answer
// to a request, no byte of a body that had begun, no WebSocket message.
//
// A call that got no answer at all is sent again by the client, as a
// refused connection is (Config.Retries times); Attempts says how often it
// was sent. A stream that stalled after it began is an *IncompleteError
// wrapping a TimeoutError, sent again like a stream that was cut.
type TimeoutError struct {
	// Host is the host (and port) that did not answer.
	Host string
	// Limit is the timeout that passed.
	Limit time.Duration
	// While says what was awaited, e.g. "waiting for the response".
	While string
	// Attempts is how many times the client sent the call (0: not counted).
	Attempts int
}

// Error names the host, the limit and what was awaited.
func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("no answer from %s within %v (service.timeout)", e.Host, e.Limit)
	if e.While != "" {
		s += " while " + e.While
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(", %d attempts", e.Attempts)
	}
	return s
}

// Timeout reports true, as net.Error values do for a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// What a call was waiting for when its timeout passed.
const (
	whileConnecting = "connecting"
	whileSending    = "sending the request"
	whileAnswer     = "waiting for the response"
	whileBody       = "reading the response body"
	whileWSOpen     = "opening the websocket"
	whileWSMessage  = "waiting for a websocket message"
	whileWSSend     = "sending on the websocket"
)

// timeoutTransport bounds every HTTP exchange with an idle timer: from the
// moment the transport looks for a connection (so that time queued in a
// limiter before it does not count) until the response headers, each step
// (connected, a piece of the request body sent, request written) restarts
// the timer; then every Read of the response body must deliver within the
// limit. Time the caller spends between two Reads does not count. When the
// timer fires, the exchange's context is cancelled and the call fails with
// a *TimeoutError naming the host.
type timeoutTransport struct {
	next  http.RoundTripper
	limit time.Duration
}

// RoundTrip sends req under a watchdog.
func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w, ctx := newWatchdog(req.Context(), req.URL.Host, t.limit)
	out := req.WithContext(httptrace.WithClientTrace(ctx, w.trace()))
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = &sendingBody{ReadCloser: req.Body, w: w}
	}
	resp, err := t.next.RoundTrip(out)
	w.answered()
	if err != nil {
		err = w.explain(err)
		w.close()
		return nil, err
	}
	resp.Body = &watchedBody{rc: resp.Body, w: w}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the transport
// underneath, as http.Client.CloseIdleConnections expects.
func (t *timeoutTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// watchdog is the idle timer of one HTTP exchange.
type watchdog struct {
	parent context.Context
	cancel context.CancelCauseFunc
	host   string
	limit  time.Duration

	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time // zero while disarmed
	while    string
	request  bool // before the response: transport events restart the timer
	fired    *TimeoutError
	closed   bool
}

func newWatchdog(parent context.Context, host string, limit time.Duration) (*watchdog, context.Context) {
	ctx, cancel := context.WithCancelCause(parent)
	return &watchdog{parent: parent, cancel: cancel, host: host, limit: limit, request: true}, ctx
}

// trace restarts the timer at each step of sending the request.
func (w *watchdog) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn:          func(string) { w.step(whileConnecting) },
		ConnectDone:      func(string, string, error) { w.step(whileConnecting) },
		TLSHandshakeDone: func(tls.ConnectionState, error) { w.step(whileConnecting) },
		GotConn:          func(httptrace.GotConnInfo) { w.step(whileSending) },
		WroteHeaders:     func() { w.step(whileSending) },
		WroteRequest:     func(httptrace.WroteRequestInfo) { w.step(whileAnswer) },
	}
}

// step restarts the timer while the request is on its way.
func (w *watchdog) step(while string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.request {
		w.armLocked(while)
	}
}

// arm starts the timer for a body Read.
func (w *watchdog) arm(while string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armLocked(while)
}

func (w *watchdog) armLocked(while string) {
	if w.fired != nil || w.closed {
		return
	}
	w.while = while
	w.deadline = time.Now().Add(w.limit)
	if w.timer == nil {
		w.timer = time.AfterFunc(w.limit, w.expire)
	} else {
		w.timer.Reset(w.limit)
	}
}

// disarm stops the timer until the next arm.
func (w *watchdog) disarm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = time.Time{}
	if w.timer != nil {
		w.timer.Stop()
	}
}

// answered ends the request phase: the response (or an error) is here.
func (w *watchdog) answered() {
	w.mu.Lock()
	w.request = false
	w.mu.Unlock()
	w.disarm()
}

// expire fires the watchdog unless it was disarmed or re-armed since the
// timer was set (a timer's function may run after Stop or Reset).
func (w *watchdog) expire() {
	w.mu.Lock()
	if w.closed || w.fired != nil || w.deadline.IsZero() || time.Now().Before(w.deadline) {
		w.mu.Unlock()
		return
	}
	te := &TimeoutError{Host: w.host, Limit: w.limit, While: w.while}
	w.fired = te
	w.mu.Unlock()
	w.cancel(te)
}

// explain returns the *TimeoutError for an error caused by the watchdog
// (not by the caller's own context), or err.
func (w *watchdog) explain(err error) error {
	if err == nil || w.parent.Err() != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired != nil {
		return w.fired
	}
	return err
}

// close stops the timer for good and releases the exchange's context.
func (w *watchdog) close() {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}

// sendingBody restarts the timer each time the transport reads a piece of
// the request body: an upload progresses.
type sendingBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *sendingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.w.step(whileSending)
	return n, err
}

// watchedBody is a response body whose every Read must deliver within the
// limit.
type watchedBody struct {
	rc io.ReadCloser
	w  *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.arm(whileBody)
	n, err := b.rc.Read(p)
	b.w.disarm()
	if err != nil && err != io.EOF {
		err = b.w.explain(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.w.close()
	return err
}

// timeoutOf returns the *TimeoutError in err's chain, or nil.
func timeoutOf(err error) *TimeoutError {
	var te *TimeoutError
	if errors.As(err, &te) {
		return te
	}
	return nil
}

// timeoutCause is timeoutOf as an error: nil (not a nil pointer) when err
// holds no timeout.
func timeoutCause(err error) error {
	if te := timeoutOf(err); te != nil {
		return te
	}
	return nil
}

// stalled wraps the timeout of a stream that had begun in an
// *IncompleteError (retried as a whole operation); other errors are
// returned as they are.
func stalled(what string, err error) error {
	if te := timeoutOf(err); te != nil {
		return &IncompleteError{What: what, Reason: te.Error(), Err: te}
	}
	return err
}

// isNetTimeout reports whether err is a deadline that passed on a
// connection (a WebSocket read or write, a dial).
func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}
