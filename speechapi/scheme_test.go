package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/voxform/voxform/speechapi"
)

// recordingTransport answers every request with a small transcript JSON
// and records the hosts it was asked for, so that a test can tell whether a
// refused URL ever reached the network.
type recordingTransport struct {
	mu    sync.Mutex
	hosts []string
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.hosts = append(rt.hosts, r.URL.Host)
	rt.mu.Unlock()
	body := `{"file_id": "f1", "full_transcript": "ok"}`
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

func (rt *recordingTransport) asked() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]string(nil), rt.hosts...)
}

// TestInsecureURLsOnlyForLoopback: http and ws are refused for any host but
// a loopback address (127.0.0.1, ::1, localhost), for the base URL, the
// WebSocket base URL and a presigned transcript URL; a refused presigned
// URL is never requested. https and wss are accepted for any host.
func TestInsecureURLsOnlyForLoopback(t *testing.T) {
	refused := []struct{ name, base, ws string }{
		{"http base", "http://api.example.com", ""},
		{"http base, private address", "http://10.0.0.5:8080", ""},
		{"ws base", "https://api.example.com", "ws://api.example.com"},
		{"ws base beside a loopback http base", "http://127.0.0.1:9000", "ws://api.example.com"},
		{"http base with a loopback-looking name", "http://127.0.0.1.example.com", ""},
	}
	for _, tc := range refused {
		_, err := speechapi.New(speechapi.Config{BaseURL: tc.base, WSBaseURL: tc.ws, APIKey: "k"})
		var ie *speechapi.InsecureURLError
		if !errors.As(err, &ie) {
			t.Errorf("%s: New accepted it or failed otherwise: %v", tc.name, err)
			continue
		}
		if ie.Scheme != "http" && ie.Scheme != "ws" || !strings.Contains(err.Error(), "only loopback") {
			t.Errorf("%s: error %q", tc.name, err)
		}
	}
	accepted := []struct{ base, ws string }{
		{"http://127.0.0.1:8080", ""},
		{"http://[::1]:8080", ""},
		{"http://localhost:8080", ""},
		{"http://LOCALHOST", "ws://127.0.0.1:9"},
		{"http://127.0.0.2:80", "ws://[::1]:9"},
		{"https://api.example.com", "wss://ws.example.com"},
	}
	for _, tc := range accepted {
		if _, err := speechapi.New(speechapi.Config{BaseURL: tc.base, WSBaseURL: tc.ws, APIKey: "k"}); err != nil {
			t.Errorf("%s %s: %v", tc.base, tc.ws, err)
		}
	}

	rt := &recordingTransport{}
	c, err := speechapi.New(speechapi.Config{BaseURL: "https://api.example.com", APIKey: "k",
		HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	record := func(u string) speechapi.FileRecord {
		return speechapi.FileRecord{FileID: "f1", OriginalPath: "a.wav", Status: speechapi.FileCompleted, TranscriptURL: &u}
	}
	for _, u := range []string{"http://storage.example.com/t/f1.json?sig=abc", "http://192.168.1.9/t.json"} {
		var out bytes.Buffer
		_, err := c.DownloadTranscript(context.Background(), "job-1", record(u), &out)
		var ie *speechapi.InsecureURLError
		if !errors.As(err, &ie) || out.Len() != 0 {
			t.Errorf("%s: want an *InsecureURLError and nothing written, got %v (%d bytes)", u, err, out.Len())
		}
		var fe *speechapi.FileError
		if !errors.As(err, &fe) || fe.Path != "a.wav" {
			t.Errorf("%s: the error %v does not name the file", u, err)
		}
		if strings.Contains(err.Error(), "sig=abc") {
			t.Errorf("%s: the error %q carries the URL's signature", u, err)
		}
	}
	if hosts := rt.asked(); len(hosts) != 0 {
		t.Fatalf("refused URLs were requested: %v", hosts)
	}
	for _, u := range []string{"http://127.0.0.1:9/t.json", "http://[::1]:9/t.json", "http://localhost:9/t.json", "https://storage.example.com/t.json"} {
		var out bytes.Buffer
		if _, err := c.DownloadTranscript(context.Background(), "job-1", record(u), &out); err != nil || !strings.Contains(out.String(), `"ok"`) {
			t.Errorf("%s: %v, %q", u, err, out.String())
		}
	}
	if hosts := rt.asked(); len(hosts) != 4 {
		t.Errorf("accepted URLs requested: %v, want 4", hosts)
	}
}
