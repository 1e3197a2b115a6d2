package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"github.com/voxform/voxform/speechapi"
)

// finalClient is a client of url with 3 retries and short waits that
// counts the retries it makes.
func finalClient(t *testing.T, url, key string, retried *atomic.Int32) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: url, APIKey: key, Retries: 3, Timeout: 5 * time.Second,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond,
		OnRetry: func(string, int, error) { retried.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A service whose certificate the client does not trust is not asked
// again: the next handshake would meet the same certificate. One
// connection per call, on HTTP as on the WebSocket handshake (which
// always stopped at once), and the error says why.
func TestUntrustedCertificateIsNotRetried(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		t.Error("a request went through a connection the client does not trust")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	var retried atomic.Int32
	c := finalClient(t, srv.URL, testKey, &retried)
	for name, call := range map[string]func() error{
		"rest": func() error { _, err := c.Synthesize(context.Background(), retrySynthesis, &memFile{}); return err },
		"sse": func() error {
			_, err := c.SynthesizeStream(context.Background(), retrySynthesis, &memFile{})
			return err
		},
		"websocket": func() error {
			_, err := c.SynthesizeRealtime(context.Background(), retrySynthesis, &memFile{})
			return err
		},
	} {
		conns.Store(0)
		retried.Store(0)
		err := call()
		if err == nil || !strings.Contains(err.Error(), "certificate") || speechapi.IsTemporary(err) {
			t.Errorf("%s: %v (temporary %v), want a final certificate error", name, err, speechapi.IsTemporary(err))
		}
		if n := conns.Load(); n != 1 || retried.Load() != 0 {
			t.Errorf("%s: %d connection(s), %d retries; want one connection and none", name, n, retried.Load())
		}
	}
}

// A presigned download whose storage redirects in a loop stops at the
// tenth redirect and is not fetched again: another attempt meets the same
// loop.
func TestPresignedRedirectLoopIsNotRetried(t *testing.T) {
	var asked atomic.Int32
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, "/t.json?sig=secret", http.StatusFound)
	}))
	defer storage.Close()
	var retried atomic.Int32
	c := finalClient(t, storage.URL, testKey, &retried)
	link := storage.URL + "/t.json?sig=secret"
	rec := speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &link}
	_, err := c.DownloadTranscript(context.Background(), "job_1", rec, &memFile{})
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") || speechapi.IsTemporary(err) {
		t.Fatalf("%v (temporary %v), want a final redirect loop", err, speechapi.IsTemporary(err))
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the link's signature is in the error: %v", err)
	}
	if n := asked.Load(); n != 10 || retried.Load() != 0 {
		t.Errorf("storage asked %d times with %d retries; want 10 (one attempt) and none", n, retried.Load())
	}
}

// An API key that net/http refuses to send in a header (a key read from a
// file with its CRLF) fails the call at once: no attempt could send it.
// The key stays out of the error.
func TestUnsendableKeyIsNotRetried(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { asked.Add(1) }))
	defer srv.Close()
	var retried atomic.Int32
	c := finalClient(t, srv.URL, testKey+"\r", &retried)
	for name, call := range map[string]func() error{
		"rest": func() error { _, err := c.Synthesize(context.Background(), retrySynthesis, &memFile{}); return err },
		"embedding": func() error {
			_, err := c.CreateEmbedding(context.Background(), "ref.wav", bytes.NewReader(referenceWAV(1, 6)))
			return err
		},
	} {
		retried.Store(0)
		err := call()
		if err == nil || !strings.Contains(err.Error(), "invalid header field value") || speechapi.IsTemporary(err) {
			t.Errorf("%s: %v (temporary %v), want a final header error", name, err, speechapi.IsTemporary(err))
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: the key is in the error: %v", name, err)
		}
		if retried.Load() != 0 || asked.Load() != 0 {
			t.Errorf("%s: %d retries, %d requests received; want none", name, retried.Load(), asked.Load())
		}
	}
}

// TestStatusesRetriedAreTheDocumented: the client sends a call again after
// the temporary answers the documents name (429, 500, 503) and the two a
// gateway gives (502, 504), as go-retryablehttp's DefaultRetryPolicy does;
// other 5xx are final, where DefaultRetryPolicy retries every 5xx but 501
// (a 505, 507 or 511 does not mend in the seconds between attempts, and the
// documents name none of them). This is why Error.Temporary, not the
// library, judges status codes.
func TestStatusesRetriedAreTheDocumented(t *testing.T) {
	for _, tc := range []struct {
		status        int
		voxform, libr bool
	}{
		{429, true, true}, {500, true, true}, {502, true, true}, {503, true, true}, {504, true, true},
		{400, false, false}, {501, false, false},
		{505, false, true}, {507, false, true}, {511, false, true},
	} {
		var asked atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			w.WriteHeader(tc.status)
		}))
		var retried atomic.Int32
		c := finalClient(t, srv.URL, testKey, &retried)
		_, err := c.Synthesize(context.Background(), retrySynthesis, &memFile{})
		srv.Close()
		want := int32(1)
		if tc.voxform {
			want = 4
		}
		if asked.Load() != want || speechapi.IsTemporary(err) != tc.voxform {
			t.Errorf("%d: %d request(s), temporary %v; want %d", tc.status, asked.Load(), speechapi.IsTemporary(err), want)
		}
		lib, _ := retryablehttp.DefaultRetryPolicy(context.Background(), &http.Response{StatusCode: tc.status, Status: http.StatusText(tc.status)}, nil)
		if lib != tc.libr {
			t.Errorf("%d: DefaultRetryPolicy says retry %v; the difference documented here is gone", tc.status, lib)
		}
	}
}

// TestRetryAfterWhereDefaultBackoffDiffers: go-retryablehttp's
// DefaultBackoff reads Retry-After only on a 429 or 503, in whole seconds
// or an RFC 1123 date, multiplies the seconds into a time.Duration that
// wraps past 292 years, and waits any length asked; it adds no jitter.
// voxform reads Retry-After on every temporary answer, in each of the
// three date forms HTTP requires a recipient to accept, keeps a value too
// large for a Duration as long as can be (a *RetryLaterError, never no
// wait), and refuses a wait over Config.RetryAfterMax. Each case shows the
// two side by side, so that the reason for voxform's own parser is checked
// rather than remembered.
func TestRetryAfterWhereDefaultBackoffDiffers(t *testing.T) {
	now := time.Now()
	inAnHour := now.Add(time.Hour).UTC()
	const min, max = time.Millisecond, 10 * time.Millisecond
	for _, tc := range []struct {
		name, header string
		status       int
		lib          func(time.Duration) bool // what DefaultBackoff gives
	}{
		{"seconds beyond a Duration", "10000000000", 429, func(d time.Duration) bool { return d < 0 }},
		{"a 500 that asks", "3600", 500, func(d time.Duration) bool { return d == min }},
		{"an RFC 850 date", inAnHour.Format("Monday, 02-Jan-06 15:04:05 GMT"), 429, func(d time.Duration) bool { return d == min }},
		{"an asctime date", inAnHour.Format(time.ANSIC), 503, func(d time.Duration) bool { return d == min }},
		{"fractional seconds", "3600.5", 429, func(d time.Duration) bool { return d == min }},
		{"a wait over RetryAfterMax", "86400", 429, func(d time.Duration) bool { return d == 24*time.Hour }},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Retry-After": {tc.header}}}
		if d := retryablehttp.DefaultBackoff(min, max, 0, resp); !tc.lib(d) {
			t.Errorf("%s: DefaultBackoff gives %v; the difference documented here is gone", tc.name, d)
		}
		d, ok := speechapi.RetryAfter(tc.header, now)
		if !ok || d < 59*time.Minute {
			t.Errorf("%s: voxform reads %q as %v, %v; want at least the hour asked", tc.name, tc.header, d, ok)
		}
	}
	// Without Retry-After: DefaultBackoff's exponential, jittered into its
	// upper half, so that calls that failed together do not return together.
	seen := map[time.Duration]bool{}
	for range 100 {
		d := speechapi.Backoff(time.Second, 30*time.Second, 3)
		if d < 4*time.Second || d > 8*time.Second {
			t.Fatalf("Backoff(1s, 30s, 3) = %v, want within [4s, 8s]", d)
		}
		seen[d] = true
	}
	if lib := retryablehttp.DefaultBackoff(time.Second, 30*time.Second, 3, nil); lib != 8*time.Second || len(seen) < 50 {
		t.Errorf("DefaultBackoff gives %v, voxform %d distinct waits in 100; want 8s and a spread", lib, len(seen))
	}
	if d := speechapi.Backoff(time.Second, 30*time.Second, 200); d < 15*time.Second || d > 30*time.Second {
		t.Errorf("Backoff at attempt 200 = %v, want within [15s, 30s]", d)
	}
}

// The voxform errors a retry cannot mend stay final whatever
// DefaultRetryPolicy would say of them: it retries every error that is not
// one of net/http's four it knows.
func TestLocalFailuresStayFinal(t *testing.T) {
	for _, err := range []error{
		&speechapi.RedirectError{Status: 302, To: "http://elsewhere"},
		&speechapi.LimitError{What: "transcript", Host: "h", Limit: "1 MiB"},
		errors.New("decode answer: invalid character"),
	} {
		if lib, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); !lib {
			t.Errorf("DefaultRetryPolicy no longer retries %v; the difference documented here is gone", err)
		}
		if speechapi.IsTemporary(err) {
			t.Errorf("%v counts as temporary", err)
		}
	}
}

// An untrusted certificate is the same for every call: it is not sent
// again, but it counts towards the breaker as a service's failure, so a
// project's operations stop after the threshold's handshakes rather than
// each making its own.
func TestUntrustedCertificateOpensTheBreaker(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		t.Error("a request went through a connection the client does not trust")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	calls := map[string]func(*speechapi.Client) error{
		"rest": func(c *speechapi.Client) error {
			_, err := c.Synthesize(context.Background(), retrySynthesis, &memFile{})
			return err
		},
		"websocket": func(c *speechapi.Client) error {
			_, err := c.SynthesizeRealtime(context.Background(), retrySynthesis, &memFile{})
			return err
		},
	}
	for name, call := range calls {
		c := retryClient(t, srv.URL, 3, speechapi.NewBreaker(2))
		for range 2 {
			if err := call(c); err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Fatalf("%s: %v, want a certificate error", name, err)
			}
		}
		var down *speechapi.DownError
		if err := call(c); !errors.As(err, &down) {
			t.Errorf("%s: third call %v, want the breaker open", name, err)
		}
	}
}

// A job status outside the documented set is refused when it is read:
// a job whose status voxform cannot read would be polled for ever, as
// never terminal. The status is quoted escaped, and never shows the key.
func TestUndocumentedJobStatusRefused(t *testing.T) {
	status, _ := json.Marshal("done\x1b[2J " + testKey)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"job_id":"job_1","status":%s,"total_files":1,"completed_files":1,"failed_files":0,"overall_progress":100,"results":null,"error":null}`, status)
	}))
	defer srv.Close()
	var retried atomic.Int32
	c := finalClient(t, srv.URL, testKey, &retried)
	for name, call := range map[string]func() error{
		"job": func() error { _, err := c.GetJob(context.Background(), "job_1"); return err },
		"older": func() error {
			_, err := c.LegacyStatus(context.Background(), "job_1", "")
			return err
		},
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "not one of the documented") {
			t.Errorf("%s: %v, want the status refused", name, err)
			continue
		}
		if strings.Contains(err.Error(), testKey) || strings.ContainsRune(err.Error(), '\x1b') {
			t.Errorf("%s: %q shows the key or a control character", name, err)
		}
	}
}
