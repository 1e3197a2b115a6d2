package emu

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Shape is the error body shape a route answers with (its documents differ).
type Shape int

// Error body shapes.
const (
	// ShapeREST is {"success": false, "error": {type, message}}: synthesis,
	// embeddings, REST recognition, older batch (SPEC section 8a).
	ShapeREST Shape = iota
	// ShapeBatch is {"error": CODE, "message": M}, with the 401 detail shape
	// for a missing key: batch jobs.
	ShapeBatch
)

// Route describes one endpoint.
type Route struct {
	// Pattern is a net/http pattern, "METHOD /path/{var}"; it is also the
	// key under which the route's requests are counted.
	Pattern string
	Shape   Shape
	// NoAuth marks routes that need no API key (presigned downloads).
	NoAuth bool
	// OwnAuth leaves the API key to the handler, which refuses it in its
	// own protocol (Env.KeyRefusal): the live realtime WebSocket answers a
	// bad key with an error message, not an HTTP status.
	OwnAuth bool
	// NoFaults exempts the route from injected faults.
	NoFaults bool
	// Storage marks a presigned storage address rather than the API: no
	// key, no latency and no injected error answers, but its connection may
	// be cut (DropRate) as any download's can.
	Storage bool
	Handler http.HandlerFunc
}

// Mux is the emulator's router. Every route is wrapped so that it is
// counted, delayed by Latency, authenticated and subject to injected faults.
type Mux struct {
	env *Env
	mux *http.ServeMux
}

// NewMux returns an empty router.
func NewMux(env *Env) *Mux { return &Mux{env: env, mux: http.NewServeMux()} }

// HeaderProfile is the header in which the emulator names the profile it
// serves (Options.Served) on every answer, WebSocket handshakes and
// errors included, so that a client speaking the other profile can say
// so. The service itself sends no such header.
const HeaderProfile = "X-Emulator-Profile"

// ServeHTTP implements http.Handler: every answer names the profile served.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(HeaderProfile, m.env.Opts.Served())
	m.mux.ServeHTTP(w, r)
}

// HandleRaw registers a handler with no wrapping (emulator control routes).
func (m *Mux) HandleRaw(pattern string, h http.HandlerFunc) { m.mux.HandleFunc(pattern, h) }

// Handle registers a documented endpoint.
func (m *Mux) Handle(rt Route) {
	env := m.env
	m.mux.HandleFunc(rt.Pattern, func(w http.ResponseWriter, r *http.Request) {
		env.Stats.Request(rt.Pattern)
		if d := env.Opts.Latency; d > 0 && !rt.Storage {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if !rt.NoAuth && !rt.OwnAuth && !rt.Storage && !m.authorize(w, r, rt.Shape) {
			return
		}
		if !rt.Storage && !m.admit(w, rt.Pattern, rt.Shape) {
			return
		}
		if !rt.NoFaults {
			if !rt.Storage && m.injectFault(w, rt.Pattern, rt.Shape) {
				return
			}
			if env.Opts.DropRate > 0 && env.Float64() < env.Opts.DropRate {
				w = &dropWriter{ResponseWriter: w, env: env, route: rt.Pattern}
				r = r.WithContext(withDrop(r.Context()))
			}
		}
		rt.Handler(w, r)
	})
}

// authorize checks X-API-Key-ID. A missing key is 401 MISSING_API_KEY on
// batch jobs and 403 FORBIDDEN elsewhere; a key outside Keys is 403
// FORBIDDEN (SPEC section 8a).
func (m *Mux) authorize(w http.ResponseWriter, r *http.Request, shape Shape) bool {
	key := r.Header.Get("X-API-Key-ID")
	msg := m.env.KeyRefusal(key)
	switch {
	case msg == "":
		return true
	case key == "" && shape == ShapeBatch:
		WriteMissingKey(w)
	case shape == ShapeBatch:
		WriteBatchError(w, http.StatusForbidden, Forbidden, msg)
	default:
		WriteRESTError(w, http.StatusForbidden, Forbidden, msg)
	}
	return false
}

// KeyRefusal says why an API key is refused: it is missing, or not among
// Opts.Keys. It is empty for a key that is accepted.
func (e *Env) KeyRefusal(key string) string {
	switch {
	case key == "":
		return "missing API key: send it in the X-API-Key-ID header"
	case len(e.Opts.Keys) > 0 && !slices.Contains(e.Opts.Keys, key):
		return "the API key is not valid for this organization"
	}
	return ""
}

// admit takes a token of the service's rate limit (Options.RPS), or
// answers 429 RATE_LIMIT_ERROR with the documented body of the route's
// shape and a Retry-After from the bucket (service documents, Errors).
func (m *Mux) admit(w http.ResponseWriter, route string, shape Shape) bool {
	ok, secs := m.env.Admit()
	if ok {
		return true
	}
	m.env.Stats.RateLimit(route)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeFault(w, shape, http.StatusTooManyRequests, RateLimitError, "rate limit exceeded; try again later")
	return false
}

// injectFault answers with an injected 500/503/429 according to the knobs.
func (m *Mux) injectFault(w http.ResponseWriter, route string, shape Shape) bool {
	env := m.env
	if env.Opts.FailRate <= 0 && env.Opts.RateLimit <= 0 {
		return false
	}
	roll := env.Float64()
	switch {
	case roll < env.Opts.FailRate:
		status, typ, msg := http.StatusInternalServerError, APIError, "unexpected processing error (injected)"
		if env.Float64() < 0.5 {
			status, typ, msg = http.StatusServiceUnavailable, ServiceUnavailable, "service temporarily unavailable (injected)"
		}
		env.Stats.RouteFault(route, strconv.Itoa(status))
		writeFault(w, shape, status, typ, msg)
		return true
	case roll < env.Opts.FailRate+env.Opts.RateLimit:
		env.Stats.RouteFault(route, "429")
		secs := int(env.Opts.RetryAfter.Round(time.Second) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeFault(w, shape, http.StatusTooManyRequests, RateLimitError, "rate limit exceeded; try again later (injected)")
		return true
	}
	return false
}

func writeFault(w http.ResponseWriter, shape Shape, status int, typ, msg string) {
	if shape == ShapeBatch {
		WriteBatchError(w, status, typ, msg)
		return
	}
	WriteRESTError(w, status, typ, msg)
}

// dropWriter cuts the connection once part of a successful body is written:
// it lets roughly the first half of the first large write (or the second
// write) through, then aborts the handler, which makes net/http close the
// connection without finishing the body.
type dropWriter struct {
	http.ResponseWriter
	env     *Env
	route   string
	status  int
	written int
	writes  int
}

func (d *dropWriter) WriteHeader(status int) {
	d.status = status
	d.ResponseWriter.WriteHeader(status)
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if d.status != 0 && d.status >= 300 {
		return d.ResponseWriter.Write(p) // errors are never dropped
	}
	d.writes++
	if d.writes == 1 && len(p) > 1 {
		n, _ := d.ResponseWriter.Write(p[:len(p)/2])
		d.written += n
		d.abort()
	}
	if d.writes > 1 {
		d.abort()
	}
	n, err := d.ResponseWriter.Write(p)
	d.written += n
	return n, err
}

func (d *dropWriter) abort() {
	d.env.Stats.RouteFault(d.route, "drop")
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// Flush implements http.Flusher.
func (d *dropWriter) Flush() {
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (d *dropWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

func (d *dropWriter) String() string { return fmt.Sprintf("dropWriter(%d bytes)", d.written) }

// Hijack lets a WebSocket upgrade through the wrapper.
func (d *dropWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := d.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("emu: response writer cannot hijack")
	}
	return h.Hijack()
}
