package speechapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/voxform/voxform/internal/untrusted"
)

// redacted replaces the API key wherever a service, a proxy or a storage
// host echoed it.
const redacted = "[redacted]"

// redactor removes the API key from text that came from a server before
// that text enters an error: error bodies, event-stream error events,
// WebSocket error messages and close reasons, file and job messages,
// statuses, redirect targets. It knows the key as sent and the forms a
// server may echo it in: URL-encoded, JSON-escaped, base64.
type redactor struct {
	forms []string // longest first
}

func newRedactor(key string) redactor {
	return redactor{forms: KeyForms(key)}
}

// KeyForms are the forms a secret may be echoed in (as sent, URL-encoded,
// JSON-escaped, base64), longest first; none for "". Whatever must not
// hold a secret (an error, a provenance statement) is checked against
// them.
func KeyForms(key string) []string {
	if key == "" {
		return nil
	}
	quoted, _ := json.Marshal(key)
	forms := []string{
		key,
		url.QueryEscape(key),
		url.PathEscape(key),
		strings.Trim(string(quoted), `"`),
		base64.StdEncoding.EncodeToString([]byte(key)),
		base64.RawStdEncoding.EncodeToString([]byte(key)),
		base64.URLEncoding.EncodeToString([]byte(key)),
		base64.RawURLEncoding.EncodeToString([]byte(key)),
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(forms)
}

// text returns s without any form of the key.
func (r redactor) text(s string) string {
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, redacted)
		}
	}
	return s
}

// bytes returns b without any form of the key (b itself when it holds
// none).
func (r redactor) bytes(b []byte) []byte {
	for _, f := range r.forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	return b
}

// quote is server text s as it may enter an error message: without the
// key, and an untrusted excerpt (controls escaped, at most
// untrusted.MaxExcerpt characters).
func (r redactor) quote(s string) string { return untrusted.Excerpt(r.text(s)) }

// holds reports whether s shows the key in any form.
func (r redactor) holds(s string) bool {
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// ptr redacts the string p points to, if any.
func (r redactor) ptr(p *string) {
	if p != nil {
		*p = r.text(*p)
	}
}

// serviceError builds the *Error of a service answer (an HTTP error
// body, an event-stream error event, a WebSocket error message) with the
// key removed from everything the server wrote.
func (r redactor) serviceError(status int, retryAfter string, body []byte) *Error {
	e := &Error{StatusCode: status, RetryAfter: retryAfter}
	fillError(e, r.bytes(body), r)
	return e
}

// scrub makes sure an error can never carry the API key, whatever a lower
// layer put in it: an error that shows the key loses its type and keeps
// its text, redacted. The text of server answers is redacted where it
// enters an error; this is the last guard.
func (r redactor) scrub(err error) error {
	// A refused redirect stands alone: the *url.Error around it names the
	// target with its query (a signature, perhaps).
	var re *RedirectError
	if errors.As(err, &re) {
		return re
	}
	if err == nil || !r.holds(err.Error()) {
		return err
	}
	return errors.New(r.text(err.Error()))
}

// records redacts the text of a files listing's records. Identifiers are
// compared with what voxform sent and never legitimately hold the key, so
// redacting them changes nothing real.
func (r redactor) records(recs []FileRecord) {
	for i := range recs {
		rec := &recs[i]
		rec.FileID, rec.OriginalPath, rec.Status = r.text(rec.FileID), r.text(rec.OriginalPath), r.text(rec.Status)
		r.ptr(rec.ErrorMessage)
		r.ptr(rec.DurationSeconds)
	}
}

// job redacts the text of a job status.
func (r redactor) job(j *Job) {
	j.JobID, j.Status = r.text(j.JobID), r.text(j.Status)
	r.ptr(j.CancelReason)
}

// legacyJob redacts the text of an older batch status (not Raw: that is
// the service's document, kept as data).
func (r redactor) legacyJob(j *LegacyJob) {
	j.JobID, j.Status = r.text(j.JobID), r.text(j.Status)
	r.ptr(j.Error)
	for i := range j.Results {
		res := &j.Results[i]
		res.Filename, res.Status = r.text(res.Filename), r.text(res.Status)
		r.ptr(res.Error)
	}
}
