package speechapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// fakeSSE serves body as an event stream under 200 and returns a client.
func fakeSSE(t *testing.T, body string) *speechapi.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key-ID") != testKey {
			t.Errorf("request without the key header")
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func chunk(i int, audio []byte) string {
	return fmt.Sprintf("event: chunk\ndata: {\"chunk_index\": %d, \"audio\": %q, \"is_final\": false}\n\n", i, b64(audio))
}

func complete(i int) string {
	return fmt.Sprintf("event: complete\ndata: {\"chunk_index\": %d, \"audio\": \"\", \"is_final\": true}\n\n", i)
}

const start = "event: start\ndata: {\"status\": \"streaming_started\", \"text\": \"hi\"}\n\n"

var rawReq = &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hi", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 8000}}}

// conformance: TTS-061, TTS-062, TTS-069, TTS-070, TTS-071, TTS-072, TTS-073, TTS-074, TTS-075
func TestSynthesizeStreamParsesBothForms(t *testing.T) {
	a, b := bytes.Repeat([]byte{1, 2}, 40000), bytes.Repeat([]byte{3, 4}, 100) // a's line is over 64 KiB
	multi := b64(b)
	multiLine := "event: chunk\r\ndata: {\"chunk_index\": 2,\r\ndata: \"audio\": \"" + multi + "\", \"is_final\": false}\r\n\r\n"
	cases := []struct{ name, body string }{
		{"reference form", start + chunk(1, a) + chunk(2, b) + complete(3)},
		{"complete index of last chunk", start + chunk(1, a) + chunk(2, b) + complete(2)},
		{"crlf, comments, multi-line data", ": hello\r\n" + strings.ReplaceAll(start+chunk(1, a), "\n", "\r\n") + multiLine + complete(3)},
		{"quick-start form", "event: audio_chunk\ndata: " + b64(a) + "\n\nevent: audio_chunk\ndata: " + b64(b) + "\n\nevent: completed\ndata: {\"status\": \"success\"}\n\n"},
		{"events named in data", "data: {\"type\": \"chunk\", \"chunk_index\": 1, \"audio\": \"" + b64(a) + "\"}\n\ndata: {\"type\": \"chunk\", \"chunk_index\": 2, \"audio\": \"" + b64(b) + "\"}\n\ndata: {\"type\": \"complete\", \"chunk_index\": 3}\n\n"},
	}
	want := append(append([]byte{}, a...), b...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := fakeSSE(t, c.body).SynthesizeStream(context.Background(), rawReq, &out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) || res.Chunks != 2 || res.Bytes != int64(len(want)) {
				t.Fatalf("got %d bytes in %d chunks, want %d bytes in 2", out.Len(), res.Chunks, len(want))
			}
		})
	}
}

// conformance: TTS-061, TTS-062, TTS-071, TTS-074
func TestSynthesizeStreamFailures(t *testing.T) {
	a := bytes.Repeat([]byte{1, 2}, 100)
	cases := []struct {
		name, body string
		status     int // 0: an *IncompleteError
	}{
		{"error event under 200", start + chunk(1, a) + "event: error\ndata: {\"type\": \"API_ERROR\", \"message\": \"synthesis failed\"}\n\n", 500},
		{"invalid request error event", start + "event: error\ndata: {\"type\": \"INVALID_REQUEST_ERROR\", \"message\": \"bad\"}\n\n", 400},
		{"no complete", start + chunk(1, a) + chunk(2, a), 0},
		{"cut mid-event", start + chunk(1, a) + "event: complete\ndata: {\"chunk_in", 0},
		{"gap", start + chunk(1, a) + chunk(3, a) + complete(4), 0},
		{"duplicate", start + chunk(1, a) + chunk(1, a) + complete(2), 0},
		{"first chunk missing", start + chunk(2, a) + complete(3), 0},
		{"complete after missing chunks", start + chunk(1, a) + complete(5), 0},
		{"no audio", start + complete(1), 0},
		{"half a frame", start + chunk(1, a[:3]) + complete(2), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := fakeSSE(t, c.body).SynthesizeStream(context.Background(), rawReq, &bytes.Buffer{})
			var se *speechapi.Error
			var ie *speechapi.IncompleteError
			switch {
			case c.status != 0 && (!errors.As(err, &se) || se.StatusCode != c.status || se.Message == ""):
				t.Fatalf("want an *Error with status %d, got %v", c.status, err)
			case c.status == 0 && !errors.As(err, &ie):
				t.Fatalf("want an *IncompleteError, got %v", err)
			}
		})
	}
}

// wavPiece is a whole WAV file holding pcm (8 kHz mono 16-bit).
func wavPiece(pcm []byte) []byte {
	var b bytes.Buffer
	f := audio.Format{SampleRate: 8000, Channels: 1, BitsPerSample: 16}
	_ = audio.WriteWAVHeader(&b, f, int64(len(pcm)))
	b.Write(pcm)
	return b.Bytes()
}

// conformance: TTS-073
func TestSynthesizeStreamJoinsWAVPieces(t *testing.T) {
	a, b := bytes.Repeat([]byte{1, 2}, 500), bytes.Repeat([]byte{3, 4}, 700)
	body := start + chunk(1, wavPiece(nil)) + chunk(2, wavPiece(a)) + chunk(3, wavPiece(b)) + complete(4)
	req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hi", Model: "tts-v2.5", Voice: "Kaveri", Language: "hi-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 8000}}}
	var f memFile
	if _, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &f); err != nil {
		t.Fatal(err)
	}
	want := wavPiece(append(append([]byte{}, a...), b...))
	if !bytes.Equal(f.Bytes(), want) {
		t.Fatalf("joined file is %d bytes, want one WAV of %d", len(f.Bytes()), len(want))
	}
	_, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "io.WriteSeeker") {
		t.Fatalf("a plain writer cannot join WAV pieces: want an error saying so, got %v", err)
	}
	// One header for the whole stream works with a plain writer.
	whole := wavPiece(append(append([]byte{}, a...), b...))
	body = start + chunk(1, whole[:600]) + chunk(2, whole[600:]) + complete(3)
	var out bytes.Buffer
	if _, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &out); err != nil || !bytes.Equal(out.Bytes(), whole) {
		t.Fatalf("single-header stream to a plain writer: %v, %d bytes", err, out.Len())
	}
	// Chunks that fall short of the single header's size are incomplete.
	body = start + chunk(1, whole[:600]) + complete(2)
	var ie *speechapi.IncompleteError
	if _, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &memFile{}); !errors.As(err, &ie) {
		t.Fatalf("short single-header stream: want an *IncompleteError, got %v", err)
	}
	if _, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &bytes.Buffer{}); !errors.As(err, &ie) {
		t.Fatalf("short single-header stream to a plain writer: want an *IncompleteError, got %v", err)
	}
	// A WAV piece in another format is refused.
	other := wavPiece(a)
	other[24] = 0x80 // sample rate 8064
	body = start + chunk(1, wavPiece(nil)) + chunk(2, other) + complete(3)
	if _, err := fakeSSE(t, body).SynthesizeStream(context.Background(), req, &memFile{}); err == nil {
		t.Fatal("a piece in another format must be refused")
	}
}

func TestSynthesizeStreamJSONErrorUnder200(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"success": false, "error": {"type": "SERVICE_UNAVAILABLE", "message": "down"}}`)
	}))
	defer srv.Close()
	c, _ := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Retries: -1})
	_, err := c.SynthesizeStream(context.Background(), rawReq, &bytes.Buffer{})
	var se *speechapi.Error
	if !errors.As(err, &se) || se.Type != "SERVICE_UNAVAILABLE" {
		t.Fatalf("want the service error, got %v", err)
	}
}
