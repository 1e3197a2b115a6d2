package speechapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// What the live-profile client makes of live servers that the emulator
// never is: one that expects another sample rate, one that does not open
// with connected, one that echoes the key in an error message and keeps
// the connection open, one that keeps talking after the audio.

// fakeLive serves /stt/v3/stream with session and counts the sessions.
type fakeLive struct {
	url string

	mu       sync.Mutex
	sessions int
	closed   []int // the close codes the client sent
}

func newFakeLive(t *testing.T, session func(conn *websocket.Conn, r *http.Request)) *fakeLive {
	t.Helper()
	f := &fakeLive{}
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stt/v3/stream" {
			http.NotFound(w, r)
			return
		}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		f.mu.Lock()
		f.sessions++
		f.mu.Unlock()
		conn.SetCloseHandler(func(code int, _ string) error {
			f.mu.Lock()
			f.closed = append(f.closed, code)
			f.mu.Unlock()
			return nil
		})
		session(conn, r)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *fakeLive) client(t *testing.T) *speechapi.Client {
	t.Helper()
	c, err := speechapi.New(speechapi.Config{BaseURL: f.url, APIKey: testKey, Profile: contract.ProfileLive, Retries: 2,
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func connected(rate int) map[string]any {
	return map[string]any{"type": "connected", "message": "ok", "timestamp": "2025-01-01T00:00:00Z",
		"config": map[string]any{"sample_rate": rate, "chunk_size": 512}}
}

// TestLiveRealtimeConnectedChecked: the client takes audio to a live
// session only after a connected message naming the rate it asked for;
// otherwise it says what the service said, and does not try again.
func TestLiveRealtimeConnectedChecked(t *testing.T) {
	clip := wavBytes(t, 1, 0.5, 16000, kindSpeech)
	for _, tc := range []struct {
		name  string
		first any
		want  string
	}{
		{"other rate", connected(16000), "the service expects audio at 16000 Hz (config.sample_rate of its connected message), not the 8000 Hz asked for"},
		{"no config", map[string]any{"type": "connected"}, "names no sample rate"},
		{"not connected", map[string]any{"type": "processing"}, `first message is "processing", not connected`},
		{"error", map[string]any{"type": "error", "message": "lang_code is not enabled for this account", "timestamp": "x"}, "the service sent an error: lang_code is not enabled"},
	} {
		f := newFakeLive(t, func(conn *websocket.Conn, _ *http.Request) {
			_ = conn.WriteJSON(tc.first)
			_, _, _ = conn.ReadMessage()
		})
		_, err := f.client(t).TranscribeRealtime(context.Background(), bytes.NewReader(clip), liveFast("hi-IN", 8000))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		f.mu.Lock()
		if f.sessions != 1 {
			t.Errorf("%s: %d sessions, want 1", tc.name, f.sessions)
		}
		f.mu.Unlock()
	}
}

// TestLiveRealtimeErrorStopsTheAudio: an error message ends the session at
// once, even while paced audio is still to be sent and the service keeps
// the connection open, and the key it echoes is not shown.
func TestLiveRealtimeErrorStopsTheAudio(t *testing.T) {
	f := newFakeLive(t, func(conn *websocket.Conn, _ *http.Request) {
		_ = conn.WriteJSON(connected(16000))
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
		_ = conn.WriteJSON(map[string]any{"type": "error", "message": "Invalid key " + testKey, "timestamp": "x"})
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	})
	start := time.Now()
	_, err := f.client(t).TranscribeRealtime(context.Background(), bytes.NewReader(wavBytes(t, 1, 5, 16000, kindSpeech)),
		speechapi.RealtimeOptions{LanguageCode: "hi-IN"}) // paced: five seconds of audio
	var re *speechapi.RealtimeError
	if !errors.As(err, &re) || re.Message != "Invalid key [redacted]" {
		t.Errorf("got %v, want the service's message without the key", err)
	}
	noKey(t, err)
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the session lasted %v after the error", el)
	}
}

// TestLiveRealtimeWaitsWhileTheServiceTalks: after its last frame the
// client waits until the service has said nothing for the idle time, any
// message starting the wait again, then closes with 1000; the session is
// set up by headers alone.
func TestLiveRealtimeWaitsWhileTheServiceTalks(t *testing.T) {
	clip := wavBytes(t, 2, 0.32, 16000, kindSpeech) // 10 frames
	var header http.Header
	var query string
	f := newFakeLive(t, func(conn *websocket.Conn, r *http.Request) {
		header, query = r.Header.Clone(), r.URL.RawQuery
		_ = conn.WriteJSON(connected(16000))
		for i := 0; i < 10; i++ {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
		// Four messages 100 ms apart, each within the client's 200 ms,
		// then the transcript 400 ms after the audio.
		for _, typ := range []string{"speech_end", "vad_end", "processing", "processing"} {
			time.Sleep(100 * time.Millisecond)
			_ = conn.WriteJSON(map[string]any{"type": typ, "timestamp": "x"})
		}
		_ = conn.WriteJSON(map[string]any{"type": "transcript", "text": "late words", "audio_duration_ms": 320, "segment_id": "s-0", "detected_language": "hi-IN"})
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	})
	opts := liveFast("hi-IN", 16000)
	opts.RequestID, opts.IdleTimeout = "trace-7", 200*time.Millisecond
	res, err := f.client(t).TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Segments) != 1 || res.Segments[0].Text != "late words" || res.Closed {
		t.Errorf("segments %+v closed=%v, want the late transcript and the client's close", res.Segments, res.Closed)
	}
	deadline := time.Now().Add(time.Second)
	for {
		f.mu.Lock()
		closed := append([]int(nil), f.closed...)
		f.mu.Unlock()
		if len(closed) > 0 || time.Now().After(deadline) {
			if len(closed) != 1 || closed[0] != websocket.CloseNormalClosure {
				t.Errorf("the client closed with %v, want 1000", closed)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	want := map[string]string{"X-Api-Key-Id": testKey, "Lang_code": "hi-IN", "X-Sample-Rate": "16000", "X-Api-Request-Id": "trace-7"}
	for k, v := range want {
		if header.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, header.Get(k), v)
		}
	}
	if query != "" || header.Get("X-Format") != "" || header.Get("Itn_native_numerals") != "" {
		t.Errorf("query %q, x-format %q, itn_native_numerals %q: want none", query, header.Get("X-Format"), header.Get("Itn_native_numerals"))
	}
}
