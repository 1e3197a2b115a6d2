package speechapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"github.com/voxform/voxform/internal/untrusted"
)

// Error is an error answered by the service. The documents define three body
// shapes and all become an Error:
//   - REST: {"success": false, "error": {"type": T, "message": M}}
//   - batch jobs: {"error": CODE, "message": M}
//   - batch jobs 401: {"detail": {"error_code": CODE, "message": M, "status_code": N}}
//
// A body that is not JSON keeps a short, printable excerpt as Message;
// Type and Message are always such excerpts (untrusted.Excerpt), whatever
// the server sent.
type Error struct {
	StatusCode int
	// Type is error.type (REST shape), the batch error code, or
	// detail.error_code; empty when the body named none.
	Type    string
	Message string
	// RetryAfter is the raw Retry-After header, if any.
	RetryAfter string
	// Deviation says how the body departs from the error shape its
	// endpoint documents: a synthesis or REST recognition error body that
	// does not say "success": false (both documents, "Errors"). Empty when
	// it does not, or when the endpoint documents no shape.
	Deviation string

	// object and failure are what fillError saw: a JSON object body,
	// and whether it said "success": false. restShape reads them.
	object, failure bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "service answered %d", e.StatusCode)
	if e.Type != "" {
		b.WriteString(" " + e.Type)
	}
	switch {
	case e.Message != "":
		b.WriteString(": " + e.Message)
	case e.Type == "" && http.StatusText(e.StatusCode) != "":
		b.WriteString(" " + http.StatusText(e.StatusCode) + " with no error body")
	}
	if e.Deviation != "" {
		b.WriteString(" (" + e.Deviation + ")")
	}
	return b.String()
}

// Temporary reports whether the same request may succeed later
// (429, 500, 502, 503, 504).
func (e *Error) Temporary() bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Error types and codes named by the documents.
const (
	TypeInvalidRequest     = "INVALID_REQUEST_ERROR"
	TypeRateLimit          = "RATE_LIMIT_ERROR"
	TypeAPI                = "API_ERROR"
	TypeServiceUnavailable = "SERVICE_UNAVAILABLE"
	TypeForbidden          = "FORBIDDEN"

	CodeMissingAPIKey       = "MISSING_API_KEY"
	CodeUnsupportedLanguage = "UNSUPPORTED_LANGUAGE"
	CodeJobNotFound         = "JOB_NOT_FOUND"
	CodeJobAlreadyStarted   = "JOB_ALREADY_STARTED"
	CodeJobCancelled        = "JOB_CANCELLED"
	CodeJobNotCancellable   = "JOB_NOT_CANCELLABLE"
	CodeAudioTooLong        = "AUDIO_TOO_LONG"
)

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// fillError decodes any of the documented error shapes from body into e.
// It never fails: an unreadable or non-JSON body still gives an Error
// with the status. Server text reaches an *Error only through
// redactor.serviceError, which calls it with the body redacted and r to
// redact what JSON escapes hid; every text is then an untrusted excerpt
// (at most untrusted.MaxExcerpt characters, controls escaped).
func fillError(e *Error, body []byte, r redactor) {
	var shapes struct {
		Success json.RawMessage `json:"success"`
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Detail  json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(body, &shapes); err != nil {
		e.Message = untrusted.Body(body)
		return
	}
	e.object = bytes.HasPrefix(bytes.TrimSpace(body), []byte("{"))
	e.failure = string(shapes.Success) == "false"
	var rest struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}
	var code string
	switch {
	case len(shapes.Error) > 0 && json.Unmarshal(shapes.Error, &code) == nil:
		e.Type, e.Message = code, shapes.Message
	case len(shapes.Error) > 0 && json.Unmarshal(shapes.Error, &rest) == nil:
		e.Type, e.Message = rest.Type, rest.Message
		if e.Type == "" {
			e.Type = rest.Code
		}
	case len(shapes.Detail) > 0:
		var d struct {
			ErrorCode string `json:"error_code"`
			Message   string `json:"message"`
		}
		if json.Unmarshal(shapes.Detail, &d) == nil {
			e.Type, e.Message = d.ErrorCode, d.Message
		} else {
			var s string
			_ = json.Unmarshal(shapes.Detail, &s)
			e.Message = s
		}
	default:
		e.Type, e.Message = shapes.Type, shapes.Message
	}
	if e.Message == "" && e.Type == "" {
		e.Message = untrusted.Body(body)
		return
	}
	// JSON escapes (\u0073k-...) decode to the key itself: redacted before
	// the excerpt could cut it.
	e.Type, e.Message = untrusted.Excerpt(r.text(e.Type)), untrusted.Excerpt(r.text(e.Message))
}

// restShape notes on the service *Error in err, if any, that its JSON
// body does not say "success": false: the error shape the synthesis
// endpoints and REST recognition document (speech-synthesis.md and
// speech-recognition.md, "Errors"). The error stays what it is, for
// retries and for callers that branch on its type; its text says how the
// answer departs. A body that is not JSON (a proxy's page) is not the
// service's and is left alone. It returns err.
func restShape(err error) error {
	var se *Error
	if errors.As(err, &se) && se.object && !se.failure {
		se.Deviation = `its error body does not say "success": false`
	}
	return err
}

// IncompleteError reports a stream or body that ended before its documented
// completion (an SSE stream without its final event, a WebSocket closed
// early or with a chunk gap, a truncated body). Such an operation produced
// no usable output; it may be retried.
type IncompleteError struct {
	What   string // which stream, e.g. "sse stream"
	Reason string
	// Err is the cause when there is one to branch on (a *TimeoutError
	// when the stream stalled).
	Err error
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%s incomplete: %s", e.What, e.Reason)
}

// Unwrap returns the cause, if any.
func (e *IncompleteError) Unwrap() error { return e.Err }

// RetryLaterError is a temporary service answer (429, 503...) whose
// Retry-After asks for a longer wait than Config.RetryAfterMax. The client
// neither retries earlier than asked nor waits so long in silence: it
// fails at once, saying when the service will take the call again. The
// service's *Error stays reachable with errors.As.
type RetryLaterError struct {
	Err  *Error
	Wait time.Duration // what Retry-After asked for
	At   time.Time     // when the service said to retry
	Max  time.Duration // the longest wait the client accepts
}

// Error says what the service answered and when it asked to be called again.
func (e *RetryLaterError) Error() string {
	return fmt.Sprintf("%v; it asks to retry in %v (at %s), longer than the %v voxform waits",
		e.Err, e.Wait.Round(time.Second), e.At.UTC().Format(time.RFC3339), e.Max)
}

// Unwrap returns the service's *Error.
func (e *RetryLaterError) Unwrap() error { return e.Err }

// IsTemporary reports whether err is of the kind the client sends again
// itself, within Config.Retries: a temporary service error, an incomplete
// stream, or a connection failure (not a redirect loop, an untrusted
// certificate or a header net/http refuses). A *RetryLaterError is not
// (the service asked for a longer wait than voxform accepts), nor a
// *DownError (the service appears down). Callers do not retry on top of the client: a
// failure they see is one its retries did not mend.
func IsTemporary(err error) bool {
	if err == nil {
		return false
	}
	var rl *RetryLaterError
	if errors.As(err, &rl) {
		return false
	}
	var de *DownError
	if errors.As(err, &de) {
		return false
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Temporary()
	}
	var ie *IncompleteError
	if errors.As(err, &ie) {
		return true
	}
	// A call that got no answer is sent again, unless it already was (its
	// Attempts say so); a limit is exceeded again by the same answer.
	var te *TimeoutError
	if errors.As(err, &te) {
		return te.Attempts <= 1
	}
	var le *LimitError
	if errors.As(err, &le) {
		return false
	}
	// A local file's error (a full disk, a path that cannot be written)
	// carries a syscall.Errno, which passes for a net.Error: sending the
	// paid call again cannot mend it.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false
	}
	var re *RedirectError
	if errors.As(err, &re) {
		return false
	}
	// A failure of net/http's is judged by go-retryablehttp's policy: sent
	// again, except a redirect loop, a scheme or header net/http refuses
	// and a certificate that is not trusted, which a retry cannot mend.
	// (Its context is retry's to check, which it does first.)
	var ue *url.Error
	if errors.As(err, &ue) {
		again, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, ue)
		return again
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
