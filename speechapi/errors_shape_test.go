package speechapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// restCalls are the calls whose endpoints document the REST error body,
// {"success": false, "error": {"type", "message"}}: the two HTTP synthesis
// endpoints and REST recognition.
func restCalls(t *testing.T, c *speechapi.Client) map[string]func() error {
	t.Helper()
	ctx := context.Background()
	synth := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "Namaste", Model: "tts-v2.5", Voice: "Nobody", Language: "hi-IN"}}
	clip := []byte("hello, this is text and not audio at all")
	return map[string]func() error{
		"synthesize": func() error { _, err := c.Synthesize(ctx, synth, &memFile{}); return err },
		"sse":        func() error { _, err := c.SynthesizeStream(ctx, synth, &memFile{}); return err },
		"transcribe": func() error {
			src := speechapi.ReaderSource("a.wav", bytes.NewReader(clip), int64(len(clip)))
			_, err := c.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
			return err
		},
	}
}

// TestRESTErrorBodySaysFailure: a synthesis or REST recognition error body
// must say "success": false. The emulator's do, on every such call and
// for every error it gives (a bad request, a missing key, an injected
// fault); a server whose body does not is caught by the client, which
// says so in the error and still reports the status, type and message it
// sent. Batch jobs errors have a shape of their own and are not held to it.
//
// conformance: ERR-004, ERR-013
func TestRESTErrorBodySaysFailure(t *testing.T) {
	t.Run("emulator", func(t *testing.T) {
		s := emulator.New(emulator.Options{NoEspeak: true})
		srv := httptest.NewServer(s)
		defer func() { srv.Close(); s.Close() }()
		faulty := emulator.New(emulator.Options{FailRate: 1, NoEspeak: true})
		fsrv := httptest.NewServer(faulty)
		defer func() { fsrv.Close(); faulty.Close() }()
		for _, tc := range []struct {
			name, url, key string
			status         int
			typ            string
		}{
			{"bad request", srv.URL, "k", http.StatusBadRequest, speechapi.TypeInvalidRequest},
			{"no key", srv.URL, "", http.StatusForbidden, speechapi.TypeForbidden},
			{"fault", fsrv.URL, "k", 0, ""},
		} {
			c, err := speechapi.New(speechapi.Config{BaseURL: tc.url, APIKey: tc.key, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			for name, call := range restCalls(t, c) {
				se := serviceError(t, call())
				if tc.status != 0 && (se.StatusCode != tc.status || se.Type != tc.typ) {
					t.Errorf("%s %s: %v, want %d %s", tc.name, name, se, tc.status, tc.typ)
				}
				if se.Deviation != "" || se.Type == "" || se.Message == "" {
					t.Errorf("%s %s: the emulator's error body departs from the documented shape: %v", tc.name, name, se)
				}
			}
		}
		c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "k", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetJob(context.Background(), "job_nope")
		if se := serviceError(t, err); se.StatusCode != http.StatusNotFound || se.Deviation != "" {
			t.Errorf("batch jobs 404: %v, want JOB_NOT_FOUND with nothing to note", se)
		}
	})

	inner := `"error": {"type": "INVALID_REQUEST_ERROR", "message": "voice Nobody is not supported"}`
	for _, tc := range []struct {
		name, body string
		status     int
		deviates   bool
	}{
		{"documented", `{"success": false, ` + inner + `}`, http.StatusBadRequest, false},
		{"no success", `{` + inner + `}`, http.StatusBadRequest, true},
		{"success true", `{"success": true, ` + inner + `}`, http.StatusBadRequest, true},
		{"success as a string", `{"success": "false", ` + inner + `}`, http.StatusBadRequest, true},
		{"null success", `{"success": null, ` + inner + `}`, http.StatusServiceUnavailable, true},
		{"json under 200 without success", `{` + inner + `}`, http.StatusOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "k", Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			for name, call := range restCalls(t, c) {
				if tc.status == http.StatusOK && name != "synthesize" {
					continue // only the complete response reads JSON under 200 here
				}
				err := call()
				se := serviceError(t, err)
				if se.StatusCode != tc.status || se.Type != speechapi.TypeInvalidRequest || se.Message != "voice Nobody is not supported" {
					t.Errorf("%s: %v: the status, type or message was lost", name, se)
				}
				said := strings.Contains(err.Error(), `does not say "success": false`)
				if (se.Deviation != "") != tc.deviates || said != tc.deviates {
					t.Errorf("%s: deviation %q in %q, want one: %v", name, se.Deviation, err, tc.deviates)
				}
			}
		})
	}

	t.Run("batch jobs shape", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error": "JOB_NOT_FOUND", "message": "job job_1 was not found"}`))
		}))
		defer srv.Close()
		c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: "k", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetJob(context.Background(), "job_1")
		if se := serviceError(t, err); se.Type != speechapi.CodeJobNotFound || se.Deviation != "" {
			t.Errorf("batch jobs error %v: held to the REST shape", se)
		}
	})
}
