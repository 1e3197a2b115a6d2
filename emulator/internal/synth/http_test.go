package synth

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voxform/voxform/emulator/internal/emu"
)

func newServer(t *testing.T, opts emu.Options) (*httptest.Server, *emu.Env) {
	t.Helper()
	env := emu.NewEnv(opts)
	m := emu.NewMux(env)
	Register(m, env)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv, env
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-API-Key-ID", "k")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// conformance: TTS-034, TTS-035, TTS-036, TTS-037, TTS-038, TTS-039, TTS-063, TTS-060, TTS-076
func TestInferenceContentTypesAndBilling(t *testing.T) {
	srv, env := newServer(t, emu.Options{NoEspeak: true})
	want := map[string]string{"wav": "audio/wav", "raw": "application/octet-stream", "mp3": "audio/mpeg",
		"ogg": "audio/ogg", "mulaw": "audio/basic", "alaw": "audio/alaw"}
	text := "<laugh> नमस्ते <sigh>"
	for c, ct := range want {
		resp := post(t, srv.URL+routeInference[len("POST "):], `{"text": "`+text+`", "model": "tts-v3.0", "voice": "Shivani", "language": "hi-IN", "audio_config": {"container": "`+c+`"}}`)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ct || len(body) == 0 {
			t.Errorf("%s: %d %q, %d bytes", c, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	var s struct {
		BilledCharacters int64 `json:"billed_characters"`
		Syntheses        int64 `json:"syntheses"`
	}
	b, _ := env.Stats.MarshalJSON()
	_ = json.Unmarshal(b, &s)
	if per := int64(utf8.RuneCountInString(text)); s.BilledCharacters != 6*per || s.Syntheses != 6 {
		t.Fatalf("billed %d characters for 6 syntheses of %d code points (tags included)", s.BilledCharacters, per)
	}
}

// conformance: TTS-061, TTS-064, TTS-065, TTS-069, TTS-070, TTS-071, TTS-072, TTS-074
func TestSSEEventShapes(t *testing.T) {
	srv, _ := newServer(t, emu.Options{NoEspeak: true})
	for _, c := range []string{"wav", "ogg"} {
		resp := post(t, srv.URL+"/api/v1/tts/sse", `{"text": "A long enough sentence for a few chunks of audio at this rate.", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "`+c+`"}}`)
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
		}
		type event struct {
			name string
			data map[string]any
		}
		var events []event
		sc := bufio.NewReader(resp.Body)
		for {
			line, err := sc.ReadString('\n')
			if err != nil {
				break
			}
			if !strings.HasPrefix(line, "event: ") {
				continue
			}
			data, _ := sc.ReadString('\n')
			if !strings.HasPrefix(data, "data: ") {
				t.Fatalf("event line not followed by a data line: %q", data)
			}
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &d); err != nil {
				t.Fatal(err)
			}
			events = append(events, event{strings.TrimSpace(strings.TrimPrefix(line, "event: ")), d})
		}
		if len(events) < 3 || events[0].name != "start" || events[0].data["status"] != "streaming_started" || !strings.HasPrefix(events[0].data["text"].(string), "A long") {
			t.Fatalf("%s: start event %+v", c, events)
		}
		chunks := events[1 : len(events)-1]
		if c == "ogg" && len(chunks) != 1 {
			t.Fatalf("ogg must arrive as one chunk, got %d", len(chunks))
		}
		if c == "wav" && len(chunks) < 3 {
			t.Fatalf("wav should stream in several chunks, got %d", len(chunks))
		}
		for i, ch := range chunks {
			audio, err := base64.StdEncoding.DecodeString(ch.data["audio"].(string))
			if ch.name != "chunk" || ch.data["chunk_index"] != float64(i+1) || ch.data["is_final"] != false || err != nil || len(audio) == 0 {
				t.Fatalf("%s: chunk %d: %s %v", c, i, ch.name, ch.data["chunk_index"])
			}
		}
		last := events[len(events)-1]
		if last.name != "complete" || last.data["audio"] != "" || last.data["is_final"] != true || last.data["chunk_index"] != float64(len(chunks)+1) {
			t.Fatalf("%s: complete event %+v", c, last)
		}
	}
}

func TestCompressedContainersNeedFFmpeg(t *testing.T) {
	srv, env := newServer(t, emu.Options{NoEspeak: true})
	t.Setenv("PATH", t.TempDir())
	for _, c := range []string{"mp3", "ogg"} {
		resp := post(t, srv.URL+"/api/v1/tts/inference", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "`+c+`"}}`)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 503 || !strings.Contains(string(body), "SERVICE_UNAVAILABLE") || !strings.Contains(string(body), "ffmpeg") {
			t.Errorf("%s without ffmpeg: %d %s", c, resp.StatusCode, body)
		}
	}
	if b, _ := env.Stats.MarshalJSON(); !strings.Contains(string(b), `"billed_characters":0`) {
		t.Errorf("unavailable work was billed: %s", b)
	}
	resp := post(t, srv.URL+"/api/v1/tts/inference", `{"text": "hi", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "wav"}}`)
	if resp.StatusCode != 200 {
		t.Errorf("wav needs no ffmpeg: %d", resp.StatusCode)
	}
}

// BenchmarkInferenceShort is the emulator's cost of one short synthesis
// over HTTP with the synthetic voice and the default audio_config (48 kHz
// WAV): the budget of SPEC target P4 (10,000
// syntheses in 15 s in all) leaves it about a millisecond.
func BenchmarkInferenceShort(b *testing.B) {
	env := emu.NewEnv(emu.Options{NoEspeak: true})
	m := emu.NewMux(env)
	Register(m, env)
	srv := httptest.NewServer(m)
	defer srv.Close()
	client := srv.Client()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := `{"text": "Menu prompt number ` + strconv.Itoa(i) + `", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN"}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/tts/inference", strings.NewReader(body))
		req.Header.Set("X-API-Key-ID", "k")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// conformance: TTS-062
func TestEncoderFailureMidStream(t *testing.T) {
	srv, _ := newServer(t, emu.Options{NoEspeak: true})
	dir := t.TempDir()
	fake := "#!/bin/sh\nprintf 'ID3 partial'\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "ffmpeg"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	body := `{"text": "hello there", "model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "mp3"}}`
	resp := post(t, srv.URL+"/api/v1/tts/sse", body)
	events, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(events), "event: error\ndata: {\"message\":") || !strings.Contains(string(events), `"type":"API_ERROR"`) ||
		strings.Contains(string(events), "event: complete") {
		t.Fatalf("want an error event and no complete, got:\n%s", events)
	}
	resp = post(t, srv.URL+"/api/v1/tts/inference", body)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(b), "API_ERROR") {
		t.Fatalf("an encoder failing at once: want 500 API_ERROR, got %d %s", resp.StatusCode, b)
	}
}
