package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/speechapi"
)

// fakeWS runs serve for each realtime connection, after reading the
// request message into got.
func fakeWS(t *testing.T, timeout time.Duration, serve func(c *websocket.Conn)) (*speechapi.Client, chan map[string]any) {
	t.Helper()
	got := make(chan map[string]any, 1)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key-id") != testKey {
			t.Errorf("handshake without x-api-key-id")
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		typ, msg, err := c.ReadMessage()
		if err != nil || typ != websocket.TextMessage {
			t.Errorf("first message: type %d, %v", typ, err)
			return
		}
		var m map[string]any
		_ = json.Unmarshal(msg, &m)
		got <- m
		serve(c)
	}))
	t.Cleanup(srv.Close)
	c, err := speechapi.New(speechapi.Config{BaseURL: srv.URL, APIKey: testKey, Retries: -1, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c, got
}

func closeWith(c *websocket.Conn, code int) {
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
	_, _, _ = c.ReadMessage()
}

func jsonFrame(c *websocket.Conn, typ string, data any) {
	_ = c.WriteJSON(map[string]any{"type": typ, "data": data})
}

var wsReq = &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: "hello", Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "raw", SampleRate: 8000}}}

// conformance: TTS-068
func TestSynthesizeRealtimeAcceptsEveryFrameForm(t *testing.T) {
	a, b := bytes.Repeat([]byte{1, 0}, 800), bytes.Repeat([]byte{2, 0}, 800)
	cases := []struct {
		name  string
		serve func(c *websocket.Conn)
	}{
		{"binary then close 1000", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a)
			_ = c.WriteMessage(websocket.BinaryMessage, b)
			closeWith(c, websocket.CloseNormalClosure)
		}},
		{"binary whole WAV frames", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, wavPiece(nil))
			_ = c.WriteMessage(websocket.BinaryMessage, wavPiece(a))
			_ = c.WriteMessage(websocket.BinaryMessage, wavPiece(b))
			closeWith(c, websocket.CloseNormalClosure)
		}},
		{"json frames, last piece in complete", func(c *websocket.Conn) {
			jsonFrame(c, "start", map[string]any{})
			jsonFrame(c, "audio", map[string]any{"audio": b64(wavPiece(nil)), "chunk_index": 1, "is_final": false})
			jsonFrame(c, "audio", map[string]any{"audio": b64(wavPiece(a)), "chunk_index": 2, "is_final": false})
			jsonFrame(c, "complete", map[string]any{"audio": b64(wavPiece(b)), "chunk_index": 3, "is_final": true})
			_, _, _ = c.ReadMessage()
		}},
		{"json raw pieces, empty complete", func(c *websocket.Conn) {
			jsonFrame(c, "audio", map[string]any{"audio": b64(a), "chunk_index": 1})
			jsonFrame(c, "audio", map[string]any{"audio": b64(b), "chunk_index": 2})
			jsonFrame(c, "complete", map[string]any{"audio": "", "chunk_index": 3, "is_final": true})
			_, _, _ = c.ReadMessage()
		}},
	}
	want := append(append([]byte{}, a...), b...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, got := fakeWS(t, 5*time.Second, c.serve)
			var out bytes.Buffer
			if _, err := client.SynthesizeRealtime(context.Background(), wsReq, &out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("got %d bytes, want %d", out.Len(), len(want))
			}
			m := <-got
			if m["text"] != "hello" || m["voice"] != "Kaveri" || m["model"] != "tts-v2.5" || m["language"] != "en-IN" {
				t.Fatalf("request message %v", m)
			}
		})
	}
}

func TestSynthesizeRealtimeFailures(t *testing.T) {
	a := bytes.Repeat([]byte{1, 0}, 800)
	cases := []struct {
		name    string
		serve   func(c *websocket.Conn)
		service bool // an *Error rather than an *IncompleteError
	}{
		{"cut without close", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a)
			_ = c.NetConn().Close()
		}, false},
		{"silence, no close", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a)
			_, _, _ = c.ReadMessage() // hold the connection until the client's 200 ms idle timeout gives up
		}, false},
		{"close 1011", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a)
			closeWith(c, websocket.CloseInternalServerErr)
		}, false},
		{"close 1000 too short for the text", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a[:16])
			closeWith(c, websocket.CloseNormalClosure)
		}, false},
		{"close 1000 half a frame", func(c *websocket.Conn) {
			_ = c.WriteMessage(websocket.BinaryMessage, a[:801])
			closeWith(c, websocket.CloseNormalClosure)
		}, false},
		{"json gap", func(c *websocket.Conn) {
			jsonFrame(c, "audio", map[string]any{"audio": b64(a), "chunk_index": 1})
			jsonFrame(c, "audio", map[string]any{"audio": b64(a), "chunk_index": 3})
			jsonFrame(c, "complete", map[string]any{"chunk_index": 4, "is_final": true})
		}, false},
		{"json closed before complete", func(c *websocket.Conn) {
			jsonFrame(c, "audio", map[string]any{"audio": b64(a), "chunk_index": 1})
			closeWith(c, websocket.CloseNormalClosure)
		}, false},
		{"json error", func(c *websocket.Conn) {
			jsonFrame(c, "error", map[string]any{"type": "INVALID_REQUEST_ERROR", "message": "voice not supported"})
			closeWith(c, websocket.ClosePolicyViolation)
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, _ := fakeWS(t, 200*time.Millisecond, c.serve)
			_, err := client.SynthesizeRealtime(context.Background(), wsReq, &bytes.Buffer{})
			var ie *speechapi.IncompleteError
			var se *speechapi.Error
			if c.service && (!errors.As(err, &se) || se.StatusCode != 400) || !c.service && !errors.As(err, &ie) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// conformance: TTS-038, TTS-039
func TestSynthesizeRealtimeWritesG711Itself(t *testing.T) {
	pcm := []byte{0x00, 0x10, 0xff, 0x7f, 0x00, 0x80, 0x34, 0x12}
	for _, container := range []string{"mulaw", "alaw"} {
		client, got := fakeWS(t, 5*time.Second, func(c *websocket.Conn) {
			for i := 0; i < 400; i++ {
				_ = c.WriteMessage(websocket.BinaryMessage, pcm[i%2*3:i%2*3+5]) // frames split mid-sample
			}
			closeWith(c, websocket.CloseNormalClosure)
		})
		req := *wsReq
		req.AudioConfig = &speechapi.AudioConfig{Container: container}
		var out bytes.Buffer
		_, err := client.SynthesizeRealtime(context.Background(), &req, &out)
		if err != nil {
			t.Fatal(err)
		}
		<-got
		var stream []byte
		for i := 0; i < 400; i++ {
			stream = append(stream, pcm[i%2*3:i%2*3+5]...)
		}
		var want []byte
		for i := 0; i+1 < len(stream); i += 2 {
			s := int16(uint16(stream[i]) | uint16(stream[i+1])<<8)
			if container == "mulaw" {
				want = append(want, audio.MuLawEncode(s))
			} else {
				want = append(want, audio.ALawEncode(s))
			}
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%s: %d bytes, want %d", container, out.Len(), len(want))
		}
	}
}

func TestSynthesizeRealtimeRefusesContainersItCannotWrite(t *testing.T) {
	client, _ := fakeWS(t, time.Second, func(c *websocket.Conn) {})
	for _, c := range []string{"mp3", "ogg"} {
		req := *wsReq
		req.AudioConfig = &speechapi.AudioConfig{Container: c}
		if _, err := client.SynthesizeRealtime(context.Background(), &req, &memFile{}); err == nil {
			t.Errorf("%s over websocket: want an error", c)
		}
	}
	req := *wsReq
	req.AudioConfig = &speechapi.AudioConfig{Container: "wav"}
	if _, err := client.SynthesizeRealtime(context.Background(), &req, &bytes.Buffer{}); err == nil {
		t.Error("wav over websocket to a plain writer: want an error")
	}
}
