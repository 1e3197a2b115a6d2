package speechapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"github.com/voxform/voxform/contract"
)

// HeaderAPIKey carries the API key on every HTTP request; WebSocket
// handshakes send it in lower case (x-api-key-id), which HTTP treats alike.
const HeaderAPIKey = "X-API-Key-ID"

// Config configures a Client.
type Config struct {
	// BaseURL is the https base address; http is allowed only for loopback.
	BaseURL string
	// WSBaseURL is the wss base address; empty derives it from BaseURL.
	WSBaseURL string
	// APIKey is sent as X-API-Key-ID. It is never logged or put in errors.
	APIKey string
	// Timeout is the longest a host may stay silent (0: 60 s; the
	// manifest's service.timeout): to connect, to answer a request, between
	// two pieces of a body (a long stream may last longer, as long as it
	// keeps delivering), to open a WebSocket and between two of its
	// messages. Presigned storage downloads are bound alike. A silent host
	// gives a *TimeoutError.
	Timeout time.Duration
	// Retries is how many times an operation (one method call) is sent
	// again after its first request: at most Retries+1 requests in all,
	// cut answers sent again included (0: 5; -1: none).
	Retries int
	// RetryWaitMin and RetryWaitMax bound the backoff when the service
	// sent no Retry-After (0: 500 ms and 30 s).
	RetryWaitMin, RetryWaitMax time.Duration
	// RetryAfterMax is the longest Retry-After waited for (0: 10 minutes).
	// A Retry-After up to it is waited exactly, whatever RetryWaitMax says;
	// a longer one fails at once with a *RetryLaterError that says when
	// the service asked to be called again.
	RetryAfterMax time.Duration
	// Paths overrides endpoint paths by endpoint name (see DefaultPaths).
	Paths map[string]string
	// HTTPClient is the underlying client (nil: a fresh one). Tests pass
	// their own transport through it.
	HTTPClient *http.Client
	// OnRetry, if set, is told of each retry (for progress and statistics):
	// the endpoint's path, the attempt that follows (from 1) and the
	// failure before it.
	OnRetry func(endpoint string, attempt int, err error)
	// Breaker, if set, is told the outcome of every operation on the
	// service and refuses new ones once it opens (the service appears
	// down). Presigned downloads from another host do not count.
	Breaker *Breaker
	// Profile is the service spoken to (empty: contract.ProfileDocumented).
	// With contract.ProfileLive, realtime recognition speaks the live
	// protocol at /stt/v3/stream (TranscribeRealtime) and takes the live
	// sample rates; the REST recognition answer is read either way.
	Profile contract.Profile
	// RealtimePace is the pace of TranscribeRealtime when its options name
	// none (RealtimeOptions.Pace; 0: the profile's).
	RealtimePace float64
}

// Client is a typed client of the speech service. It is safe for concurrent use.
type Client struct {
	cfg Config
	// plain sends every call that carries the API key, one request an
	// attempt (retry runs the attempts): an idle timeout on the exchange,
	// no redirect followed.
	plain *http.Client
	// storage fetches presigned transcript URLs: no API key, redirects
	// followed only to https (or loopback) addresses.
	storage *http.Client
	// red removes the key from whatever a server sends back.
	red redactor
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("speech service base url is not set")
	}
	if err := checkScheme(cfg.BaseURL, "https"); err != nil {
		return nil, fmt.Errorf("base url: %w", err)
	}
	if cfg.WSBaseURL == "" {
		cfg.WSBaseURL = deriveWS(cfg.BaseURL)
	}
	if err := checkScheme(cfg.WSBaseURL, "wss"); err != nil {
		return nil, fmt.Errorf("websocket base url: %w", err)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = 5
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.RetryWaitMin == 0 {
		cfg.RetryWaitMin = 500 * time.Millisecond
	}
	if cfg.RetryWaitMax == 0 {
		cfg.RetryWaitMax = 30 * time.Second
	}
	if cfg.RetryAfterMax <= 0 {
		cfg.RetryAfterMax = DefaultRetryAfterMax
	}
	switch cfg.Profile {
	case "":
		cfg.Profile = contract.ProfileDocumented
	case contract.ProfileDocumented, contract.ProfileLive:
	default:
		return nil, fmt.Errorf("profile %q is not live or documented", cfg.Profile)
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	// Go copies a request's headers to a redirect's target, the API key
	// among them: calls that carry the key follow no redirect at all.
	red := newRedactor(cfg.APIKey)
	plain, storage := *base, *base
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	plain.Transport = &timeoutTransport{next: next, limit: cfg.Timeout}
	storage.Transport = plain.Transport
	plain.CheckRedirect = red.refuseRedirect
	storage.CheckRedirect = red.secureRedirect
	return &Client{cfg: cfg, plain: &plain, storage: &storage, red: red}, nil
}

// RedirectError is a redirect voxform did not follow: the service answered a
// call that carries the API key with a redirect (the key is never sent to
// another address), or storage redirected a transcript download to an
// insecure address. It is not temporary.
type RedirectError struct {
	Status int
	To     string // the target, without its query
}

// Error names the status and the target.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("answered %d redirecting to %s: not followed", e.Status, e.To)
}

// refuseRedirect is the redirect policy of calls that carry the API key.
func (r redactor) refuseRedirect(req *http.Request, _ []*http.Request) error {
	return &RedirectError{Status: req.Response.StatusCode, To: r.text(withoutQuery(req.URL.String()))}
}

// secureRedirect follows a presigned download's redirects to https (or
// loopback) addresses only, at most ten, never with the API key.
func (r redactor) secureRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if err := checkScheme(req.URL.String(), "https"); err != nil {
		return &RedirectError{Status: req.Response.StatusCode, To: r.text(withoutQuery(req.URL.String()))}
	}
	req.Header.Del(HeaderAPIKey)
	return nil
}

// DefaultRetryAfterMax is the longest Retry-After a Client waits for unless
// Config.RetryAfterMax says otherwise.
const DefaultRetryAfterMax = 10 * time.Minute

// Profile returns the service profile the client speaks.
func (c *Client) Profile() contract.Profile { return c.cfg.Profile }

// BaseURL returns the configured base URL.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// Breaker returns the client's Config.Breaker (nil: none).
func (c *Client) Breaker() *Breaker { return c.cfg.Breaker }

// checkScheme allows secure scheme, or the insecure one for loopback hosts.
func checkScheme(raw, secure string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("invalid url %q", withoutQuery(raw))
	}
	insecure := map[string]string{"https": "http", "wss": "ws"}[secure]
	switch u.Scheme {
	case secure:
		return nil
	case insecure:
		if contract.IsLoopback(u.Host) {
			return nil
		}
		return &InsecureURLError{Scheme: insecure, Host: u.Host, Secure: secure}
	default:
		return fmt.Errorf("url %q must use %s", withoutQuery(raw), secure)
	}
}

// InsecureURLError refuses an http or ws URL whose host is not a loopback
// address: the API key and the audio travel only over TLS.
type InsecureURLError struct {
	Scheme string // http or ws
	Host   string
	Secure string // https or wss
}

// Error names the scheme, the host and what to use instead.
func (e *InsecureURLError) Error() string {
	return fmt.Sprintf("%s is not allowed for %s: use %s (only loopback addresses may use %s)", e.Scheme, e.Host, e.Secure, e.Scheme)
}

func deriveWS(base string) string {
	switch {
	case strings.HasPrefix(base, "https://"):
		return "wss://" + strings.TrimPrefix(base, "https://")
	case strings.HasPrefix(base, "http://"):
		return "ws://" + strings.TrimPrefix(base, "http://")
	}
	return base
}

// newRequest builds one attempt's request with the API key header. body
// is nil, a []byte, or a func() (io.Reader, error) that makes the body
// afresh for each attempt.
func (c *Client) newRequest(ctx context.Context, method, rawURL string, body any) (*http.Request, error) {
	var r io.Reader
	var again func() (io.ReadCloser, error)
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case func() (io.Reader, error):
		var err error
		if r, err = b(); err != nil {
			return nil, fmt.Errorf("build request: %w", err)
		}
		// With GetBody, net/http can consult the redirect policy (which
		// refuses) instead of handing back the redirect itself.
		again = func() (io.ReadCloser, error) {
			r, err := b()
			if err != nil {
				return nil, err
			}
			if rc, ok := r.(io.ReadCloser); ok {
				return rc, nil
			}
			return io.NopCloser(r), nil
		}
	default:
		return nil, fmt.Errorf("build request: a body of type %T", body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, r)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if again != nil {
		req.GetBody = again
	}
	req.Header.Set(HeaderAPIKey, c.cfg.APIKey)
	req.Header.Set("User-Agent", "voxform")
	return req, nil
}

// do sends req once and returns a 2xx response, or an *Error built from
// the service's error body (a *RetryLaterError when it asks for too long
// a wait), or the *TimeoutError of a host that did not answer. The caller
// closes the body; retry sends it again when it may.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.plain.Do(req)
	if err != nil {
		if te := timeoutOf(err); te != nil {
			return nil, te
		}
		return nil, c.red.scrub(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, c.responseError(resp)
	}
	return resp, nil
}

// responseError turns a non-2xx response into an *Error, or into a
// *RetryLaterError when its Retry-After asks for more than RetryAfterMax.
func (c *Client) responseError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := c.red.serviceError(resp.StatusCode, resp.Header.Get("Retry-After"), body)
	if d, ok := RetryAfter(e.RetryAfter, time.Now()); ok && d > c.cfg.RetryAfterMax && e.Temporary() {
		return &RetryLaterError{Err: e, Wait: d, At: time.Now().Add(d), Max: c.cfg.RetryAfterMax}
	}
	return e
}

// Backoff returns the wait before retry number attempt (0-based): d,
// go-retryablehttp's exponential backoff (min doubled attempt times, at
// most max), with jitter in [d/2, d], which the library does not add.
func Backoff(min, max time.Duration, attempt int) time.Duration {
	d := retryablehttp.DefaultBackoff(min, max, attempt, nil)
	return d/2 + time.Duration(rand.Float64()*float64(d-d/2))
}

// RetryAfter parses a Retry-After value: delay seconds or an HTTP date.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		if s >= float64(math.MaxInt64)/float64(time.Second) { // beyond time.Duration: as long as can be
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// drain discards what is left of a body so that the connection can be reused.
func drain(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
	rc.Close()
}
