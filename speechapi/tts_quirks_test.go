package speechapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// TestSynthesisLiveQuirksGiveTheSameFiles: the live profile's streams
// (WAV-per-chunk SSE, JSON WebSocket frames) give the files the documented
// ones do, its model named by its live name (timbre-v2.5 is tts-v2.5).
//
// conformance: TTS-075, TTS-073, TTS-061, TTS-069
func TestSynthesisLiveQuirksGiveTheSameFiles(t *testing.T) {
	quirky := newEmu(t, emulator.Options{Profile: emulator.ProfileLive, NoEspeak: true}, speechapi.Config{})
	plain := newEmu(t, emulator.Options{NoEspeak: true}, speechapi.Config{})
	forms := map[string]bool{}
	odd := false
	for i := 0; i < 4; i++ {
		text := fmt.Sprintf("Welcome to branch %d%s.", i, strings.Repeat("a", i)) // lengths of both parities
		for _, c := range []string{"wav", "raw", "mulaw"} {
			req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: c, SampleRate: 16000}}}
			for _, tr := range transports {
				var got, want memFile
				if _, err := tr.call(quirky.client, context.Background(), liveNamed(req), &got); err != nil {
					t.Fatalf("%s %s quirks: %v", tr.name, c, err)
				}
				if _, err := tr.call(plain.client, context.Background(), req, &want); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s %s: live-quirk output differs (%d vs %d bytes)", tr.name, c, len(got.Bytes()), len(want.Bytes()))
				}
			}
		}
		// 8-bit mono WAV: an odd number of frames has a RIFF pad byte,
		// which is not audio.
		req := &speechapi.SynthesisRequest{SynthesisRequest: contract.SynthesisRequest{Text: text, Model: "tts-v2.5", Voice: "Kaveri", Language: "en-IN", AudioConfig: &speechapi.AudioConfig{Container: "wav", SampleRate: 22050, SampleWidth: 1}}}
		var got, want memFile
		if _, err := quirky.client.SynthesizeStream(context.Background(), liveNamed(req), &got); err != nil {
			t.Fatalf("8-bit wav with quirks: %v", err)
		}
		if _, err := plain.client.Synthesize(context.Background(), req, &want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("8-bit wav: live-quirk stream differs from the file")
		}
		if _, data, err := audio.ParseWAV(want.Bytes()); err == nil && len(data)%2 == 1 {
			odd = true
		}
		body := rawSSE(t, quirky.srv.URL, fmt.Sprintf(`{"text": %q, "model": "timbre-v2.5", "voice": "Kaveri", "language": "en-IN"}`, text))
		forms[sseForm(t, body)] = true
	}
	if !odd {
		t.Error("no 8-bit file had an odd number of frames: the pad byte case was not exercised")
	}
	if !forms["quick-start"] || !forms["reference"] {
		t.Errorf("live quirks should use both event forms across requests, saw %v", forms)
	}
}

// liveNamed is req with its model named as the live service names it.
func liveNamed(req *speechapi.SynthesisRequest) *speechapi.SynthesisRequest {
	r := *req
	r.Model = contract.ProfileLive.WireModel(contract.CanonicalModel(r.Model))
	return &r
}

// rawSSE posts a synthesis request body and returns the event stream.
func rawSSE(t *testing.T, base, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/tts/sse", strings.NewReader(body))
	req.Header.Set("X-API-Key-ID", testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("sse answer %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// sseForm checks a live-quirk stream: every audio piece a whole WAV file,
// the first header-only; it returns which event form the stream used.
func sseForm(t *testing.T, body string) string {
	t.Helper()
	form := "reference"
	var pieces [][]byte
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		lines := strings.SplitN(block, "\n", 2)
		name, data := strings.TrimPrefix(lines[0], "event: "), strings.TrimPrefix(lines[1], "data: ")
		switch name {
		case "audio_chunk":
			form = "quick-start"
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, b)
		case "chunk":
			var ch struct{ Audio string }
			_ = json.Unmarshal([]byte(data), &ch)
			b, _ := base64.StdEncoding.DecodeString(ch.Audio)
			pieces = append(pieces, b)
		case "completed":
			if data != `{"status":"success"}` {
				t.Errorf("completed data %s", data)
			}
		}
	}
	if len(pieces) < 2 || len(pieces[0]) != 44 {
		t.Fatalf("want a header-only first piece then audio, got %d pieces", len(pieces))
	}
	for i, p := range pieces {
		if !bytes.HasPrefix(p, []byte("RIFF")) {
			t.Fatalf("piece %d is not a whole WAV file", i)
		}
	}
	return form
}

// conformance: TTS-066, TTS-067, TTS-068
func TestSynthesisRealtimeFramesOnTheWire(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		e := newEmu(t, emulator.Options{LiveQuirks: quirks}, speechapi.Config{})
		model := "tts-v2.5"
		if quirks {
			model = "timbre-v2.5"
		}
		h := http.Header{}
		h.Set("x-api-key-id", testKey)
		conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(e.srv.URL, "http")+"/api/v1/tts", h)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("handshake status %d", resp.StatusCode)
		}
		msg := `{"text": "Hello there", "voice": "Kaveri", "model": "` + model + `", "language": "en-IN", "audio_config": {"sample_rate": 16000}}`
		if err := conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		var binary, text int
		for {
			typ, _, err := conn.ReadMessage()
			if err != nil {
				if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					t.Fatalf("quirks %v: stream ended with %v, want close 1000", quirks, err)
				}
				break
			}
			if typ == websocket.BinaryMessage {
				binary++
			} else {
				text++
			}
		}
		conn.Close()
		if quirks && (binary != 0 || text < 3) || !quirks && (binary == 0 || text != 0) {
			t.Errorf("quirks %v: %d binary and %d text frames", quirks, binary, text)
		}
	}
}
