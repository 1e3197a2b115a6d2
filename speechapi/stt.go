package speechapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// Recognition text formats (speech-recognition.md, "REST transcription").
const (
	FormatVerbatim   = "verbatim"
	FormatTranscribe = "transcribe"
)

// TranscribeOptions are the form fields of POST /stt/v3.
type TranscribeOptions struct {
	// LanguageCode is required, e.g. "hi-IN".
	LanguageCode string
	// Format is FormatVerbatim (default) or FormatTranscribe (ITN on).
	Format string
	// NativeNumerals sets itn_native_numerals (with FormatTranscribe).
	NativeNumerals bool
}

// TranscribeResult is the REST transcription response.
type TranscribeResult struct {
	Success   bool   `json:"success"`
	RequestID string `json:"request_id"`
	// Timestamp is YYYYMMDD_HHMMSS.mmm; the live service sends none.
	Timestamp  string `json:"timestamp"`
	Transcript string `json:"transcript"`
	// Model, ProcessingTime and EndToEndLatency are what the live service
	// adds to the documented answer: the model that transcribed, and how
	// long the work and the whole request took, as it reports them. A
	// figure that is not a number (or a string holding one) is left 0.
	Model           string  `json:"model"`
	ProcessingTime  Measure `json:"processing_time"`
	EndToEndLatency Measure `json:"end_to_end_latency"`
	// Raw is the response body exactly as the service sent it, to be kept
	// without re-encoding.
	Raw json.RawMessage `json:"-"`
}

// Measure is a figure the live service reports beside an answer, as it
// sent it (a number, or a string holding one). Reading it never fails an
// answer: it is information, and a transcribed clip is billed.
type Measure float64

// UnmarshalJSON reads a number or a string holding one; anything else is 0.
func (m *Measure) UnmarshalJSON(b []byte) error {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	switch x := v.(type) {
	case float64:
		*m = Measure(x)
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			*m = Measure(f)
		}
	}
	return nil
}

// Transcribe sends one clip (up to 60 s) to POST /stt/v3 as multipart
// audio_file, streaming it from audio.
//
// Every failure is a *FileError naming the file; a service answer stays
// reachable as an *Error with errors.As, its Deviation set when its body
// does not say "success": false. An answer cut mid-body is asked for
// again (counted among the retries): the clip was transcribed, and
// billed, but its transcript is lost, and the documents name no way to
// fetch it.
func (c *Client) Transcribe(ctx context.Context, audio Source, opts TranscribeOptions) (*TranscribeResult, error) {
	res, err := c.transcribe(ctx, audio, opts)
	return res, filesError("transcribe", []string{audio.Name}, err)
}

func (c *Client) transcribe(ctx context.Context, audio Source, opts TranscribeOptions) (*TranscribeResult, error) {
	if err := checkTextOptions(opts.LanguageCode, opts.Format); err != nil {
		return nil, err
	}
	parts := []part{
		{name: "language_code", value: opts.LanguageCode},
		{name: "format", value: orDefault(opts.Format, FormatVerbatim)},
		{name: "itn_native_numerals", value: strconv.FormatBool(opts.NativeNumerals)},
		{name: "audio_file", file: &audio},
	}
	body, ctype := formBody(parts)
	var out TranscribeResult
	raw := &rawJSON{v: &out}
	if err := c.call(ctx, http.MethodPost, c.url(EndpointSTT, ""), body, ctype, nil, raw); err != nil {
		return nil, restShape(err)
	}
	out.Raw = raw.data
	if !out.Success {
		return nil, errors.New("the service answered success=false")
	}
	return &out, nil
}

// checkTextOptions checks the language and format of a REST, realtime or
// older batch transcription: each takes one language code.
func checkTextOptions(lang, format string) error {
	if lang == "" {
		return fmt.Errorf("language_code is required")
	}
	if strings.Contains(lang, ",") {
		return fmt.Errorf("language_code %q: one language code per request", lang)
	}
	switch format {
	case "", FormatVerbatim, FormatTranscribe:
		return nil
	}
	return fmt.Errorf("format %q is not %s or %s", format, FormatVerbatim, FormatTranscribe)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// call sends a request (retry runs its attempts) and decodes a 2xx JSON
// answer into out (nil: discard). body is nil, []byte or a body func;
// headers are added to the request.
func (c *Client) call(ctx context.Context, method, url string, body any, ctype string, headers http.Header, out any) error {
	_, err := c.callHeaders(ctx, method, url, body, ctype, headers, out, nil)
	return err
}

// callHeaders is call that also returns the response headers. The answer
// is bounded by lim (nil: MaxJSONBytes); a larger one is a *LimitError.
//
// An answer cut mid-body (an *IncompleteError) is asked for again like
// any temporary failure, decoding each answer afresh: reading twice
// changes nothing, and each method that posts says why asking twice is
// safe (a call that starts billed work at once does not use it: see
// SubmitLegacy).
func (c *Client) callHeaders(ctx context.Context, method, url string, body any, ctype string, headers http.Header, out any, lim *answerLimit) (http.Header, error) {
	var h http.Header
	err := c.retry(ctx, url, func(int) error {
		fresh := out
		if out != nil {
			fresh = freshValue(out)
		}
		var err error
		if h, err = c.callOnce(ctx, method, url, body, ctype, headers, fresh, lim); err == nil && fresh != out {
			setValue(out, fresh)
		}
		return err
	})
	return h, err
}

// freshValue returns a new zero value of what out points to (a *rawJSON
// gets a fresh target too), so that a retried decode starts clean.
func freshValue(out any) any {
	if raw, ok := out.(*rawJSON); ok {
		return &rawJSON{v: freshValue(raw.v)}
	}
	return reflect.New(reflect.TypeOf(out).Elem()).Interface()
}

// setValue copies a decoded fresh value into out.
func setValue(out, fresh any) {
	if raw, ok := out.(*rawJSON); ok {
		f := fresh.(*rawJSON)
		setValue(raw.v, f.v)
		raw.data = f.data
		return
	}
	reflect.ValueOf(out).Elem().Set(reflect.ValueOf(fresh).Elem())
}

func (c *Client) callOnce(ctx context.Context, method, url string, body any, ctype string, headers http.Header, out any, lim *answerLimit) (http.Header, error) {
	req, err := c.newRequest(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer drain(resp.Body)
	answer := capAnswer(resp.Body, lim, "answer of "+req.URL.Path, req.URL.Host)
	if lim != nil {
		defer func() { lim.used += answer.n }()
	}
	if raw, ok := out.(*rawJSON); ok {
		if raw.data, err = io.ReadAll(answer); err != nil {
			return nil, answerError(req.URL.Path, "", err)
		}
		out = raw.v
		if err := json.Unmarshal(raw.data, out); err != nil {
			return nil, &IncompleteError{What: "response of " + req.URL.Path, Reason: "invalid JSON: " + err.Error()}
		}
		return resp.Header, nil
	}
	if out != nil {
		if err := json.NewDecoder(answer).Decode(out); err != nil {
			return nil, answerError(req.URL.Path, "invalid JSON: ", err)
		}
	}
	return resp.Header, nil
}

// capAnswer bounds a JSON answer by lim, or by MaxJSONBytes.
func capAnswer(body io.Reader, lim *answerLimit, what, host string) *cappedReader {
	if lim == nil {
		return newCappedReader(body, MaxJSONBytes, what, host)
	}
	r := newCappedReader(body, lim.max-lim.used, lim.what, host)
	r.err.Limit = sizeText(lim.max)
	return r
}

// answerError is the error of a JSON answer that could not be read: a
// *LimitError as it is; a stall, a cut, or JSON that ends early (prefix
// says which) as an *IncompleteError, so that a GET is sent again.
func answerError(path, prefix string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return le
	}
	if te := timeoutOf(err); te != nil {
		return &IncompleteError{What: "response of " + path, Reason: te.Error(), Err: te}
	}
	return &IncompleteError{What: "response of " + path, Reason: prefix + err.Error()}
}

// rawJSON asks callHeaders to keep the exact body as well as decode it.
type rawJSON struct {
	v    any
	data []byte
}
