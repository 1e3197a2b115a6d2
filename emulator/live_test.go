package emulator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/emulator"
)

// The live service's wire as the emulator speaks it (Options.Profile
// live), checked with raw HTTP and WebSocket clients.

// liveHeaders are a live realtime handshake's headers, spelled as the
// service's own client spells them.
func liveHeaders(key, lang, rate string) http.Header {
	h := http.Header{}
	for k, v := range map[string]string{"x-api-key-id": key, "lang_code": lang, "x-sample-rate": rate} {
		if v != "" {
			h[k] = []string{v}
		}
	}
	return h
}

// dialLive opens /stt/v3/stream with h (and query) and checks that the
// handshake is accepted: the live service answers in messages.
func dialLive(t *testing.T, s *service, query string, h http.Header) *websocket.Conn {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.url, "http")+"/stt/v3/stream"+query, h)
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d", resp.StatusCode)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// readJSON reads one text message as an object, within two seconds.
func readJSON(t *testing.T, conn *websocket.Conn) map[string]any {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	kind, data, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("read message: %v", err)
	}
	if kind != websocket.TextMessage {
		t.Fatalf("a binary message of %d bytes", len(data))
	}
	return object(t, data)
}

func keysOf(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

func sameKeys(m map[string]any, want ...string) bool {
	slices.Sort(want)
	return slices.Equal(keysOf(m), want)
}

// closeCode reads until the stream ends and returns its close code.
func closeCode(t *testing.T, conn *websocket.Conn) int {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		_, data, err := conn.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		if err != nil {
			t.Fatalf("stream ended without a close: %v", err)
		}
		t.Logf("message before the close: %s", data)
	}
}

// TestLiveRealtimeConnected: the live service speaks first, with the
// format it expects: connected, its config the rate asked for and 512
// samples a frame. Only the live profile serves /stt/v3/stream.
func TestLiveRealtimeConnected(t *testing.T) {
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive})
	for _, rate := range []string{"8000", "16000", "44100", "48000"} {
		conn := dialLive(t, s, "", liveHeaders("k", "hi-IN", rate))
		m := readJSON(t, conn)
		cfg, _ := m["config"].(map[string]any)
		if !sameKeys(m, "type", "message", "timestamp", "config") || m["type"] != "connected" || m["timestamp"] != "2025-03-04T05:06:07Z" ||
			!sameKeys(cfg, "sample_rate", "chunk_size") || cfg["sample_rate"] != json.Number(rate) || cfg["chunk_size"] != json.Number("512") {
			t.Errorf("rate %s: first message %v", rate, m)
		}
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		if err := conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if code := closeCode(t, conn); code != websocket.CloseNormalClosure {
			t.Errorf("rate %s: closed with %d after the client's 1000", rate, code)
		}
	}
	doc := newService(t, emulator.Options{})
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(doc.url, "http")+"/stt/v3/stream", liveHeaders("k", "hi-IN", "16000"))
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("documented emulator at /stt/v3/stream: %v", err)
	}
}

// TestLiveRealtimeRefusals: a bad handshake header, or a frame the live
// service does not take, gets an error message {type, message, timestamp}
// and close 1008; the handshake itself is accepted.
func TestLiveRealtimeRefusals(t *testing.T) {
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive, Keys: []string{"k"}})
	with := func(h http.Header, k, v string) http.Header { h[k] = []string{v}; return h }
	headers := []struct {
		name  string
		query string
		h     http.Header
		want  string
	}{
		{"no key", "", liveHeaders("", "hi-IN", "16000"), "missing API key"},
		{"other key", "", liveHeaders("other", "hi-IN", "16000"), "API key is not valid"},
		{"no language", "", liveHeaders("k", "", "16000"), "lang_code header is required"},
		{"two languages", "", liveHeaders("k", "hi-IN,en-IN", "16000"), "one language code"},
		{"bn-BD", "", liveHeaders("k", "bn-BD", "16000"), `unsupported lang_code "bn-BD"`},
		{"no rate", "", liveHeaders("k", "hi-IN", ""), "x-sample-rate header is required"},
		{"22050 Hz", "", liveHeaders("k", "hi-IN", "22050"), `unsupported x-sample-rate "22050"`},
		{"bad format", "", with(liveHeaders("k", "hi-IN", "16000"), "x-format", "pretty"), `x-format "pretty"`},
		{"bad numerals", "", with(liveHeaders("k", "hi-IN", "16000"), "itn_native_numerals", "yes"), "itn_native_numerals must be true or false"},
		{"documented query", "?language_code=hi-IN&sample_rate=16000", liveHeaders("k", "", ""), "lang_code header is required"},
	}
	for _, tc := range headers {
		conn := dialLive(t, s, tc.query, tc.h)
		m := readJSON(t, conn)
		if !sameKeys(m, "type", "message", "timestamp") || m["type"] != "error" || !strings.Contains(m["message"].(string), tc.want) {
			t.Errorf("%s: %v, want an error message saying %q", tc.name, m, tc.want)
		}
		if code := closeCode(t, conn); code != websocket.ClosePolicyViolation {
			t.Errorf("%s: closed with %d, want 1008", tc.name, code)
		}
	}
	// Only the last frame may be short: a frame after a short one, a long
	// one or half a sample is refused.
	frames := []struct {
		name   string
		before [][]byte
		kind   int
		data   []byte
		want   string
	}{
		{"json", nil, websocket.TextMessage, []byte(`{"audio": "AAAA"}`), "binary frames"},
		{"after a short one", [][]byte{make([]byte, 100)}, websocket.BinaryMessage, make([]byte, 1024), "only the last may be shorter, and a frame of 1024 bytes came after one of 100"},
		{"two short ones", [][]byte{make([]byte, 1024), make([]byte, 512)}, websocket.BinaryMessage, make([]byte, 512), "only the last may be shorter"},
		{"long", nil, websocket.BinaryMessage, make([]byte, 2048), "frames must be 1024 bytes (512 samples of 16-bit PCM), got 2048"},
		{"half a sample", nil, websocket.BinaryMessage, make([]byte, 101), "whole 16-bit samples: a frame of 101 bytes"},
		{"end of audio", nil, websocket.BinaryMessage, nil, "no message ends the audio"},
		{"end of audio after a short frame", [][]byte{make([]byte, 100)}, websocket.BinaryMessage, nil, "no message ends the audio"},
	}
	for _, tc := range frames {
		conn := dialLive(t, s, "", liveHeaders("k", "hi-IN", "16000"))
		if m := readJSON(t, conn); m["type"] != "connected" {
			t.Fatalf("%s: first message %v", tc.name, m)
		}
		sendFrames(t, conn, tc.before)
		if err := conn.WriteMessage(tc.kind, tc.data); err != nil {
			t.Fatal(err)
		}
		m := readJSON(t, conn)
		if m["type"] != "error" || !strings.Contains(m["message"].(string), tc.want) {
			t.Errorf("%s: %v, want an error message saying %q", tc.name, m, tc.want)
		}
		if code := closeCode(t, conn); code != websocket.ClosePolicyViolation {
			t.Errorf("%s: closed with %d, want 1008", tc.name, code)
		}
	}
	if b := billed(t, s); b != 0 {
		t.Errorf("billed %.2f s for refused sessions", b)
	}
}

func billed(t *testing.T, s *service) float64 {
	t.Helper()
	var st struct {
		Billed float64 `json:"billed_audio_seconds"`
	}
	if err := json.Unmarshal(s.srv.StatsJSON(), &st); err != nil {
		t.Fatal(err)
	}
	return st.Billed
}

// pcmFrames is seconds of 16 kHz audio in 1024-byte frames: noise at
// about -14 dBFS RMS (speech to the emulator), or digital silence.
func pcmFrames(seed uint64, seconds float64, speech bool) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	n := int(math.Ceil(seconds * 16000 / 512))
	frames := make([][]byte, n)
	for i := range frames {
		f := make([]byte, 1024)
		if speech {
			for j := 0; j < 512; j++ {
				binary.LittleEndian.PutUint16(f[2*j:], uint16(int16(12000*(rng.Float64()*2-1))))
			}
		}
		frames[i] = f
	}
	return frames
}

func sendFrames(t *testing.T, conn *websocket.Conn, frames [][]byte) {
	t.Helper()
	for _, f := range frames {
		if err := conn.WriteMessage(websocket.BinaryMessage, f); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLiveRealtimeSegments: transcripts come per speech segment while the
// audio streams, with no end of audio: a segment opens on speech
// (vad_start, speech_start) and ends after half a second of silence
// (speech_end, vad_end, processing, transcript), or when no audio comes
// for a while; then the client closes, and the audio it sent is billed.
func TestLiveRealtimeSegments(t *testing.T) {
	// A quiet time of 250 ms: frames sent back to back never fall quiet.
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive, TimeScale: 2})
	conn := dialLive(t, s, "", liveHeaders("k", "en-IN", "16000"))
	if m := readJSON(t, conn); m["type"] != "connected" {
		t.Fatalf("first message %v", m)
	}
	// One second of speech, then 0.6 s of silence: the segment ends 0.5 s
	// into the silence, while the audio is still coming.
	sendFrames(t, conn, pcmFrames(1, 1, true))
	sendFrames(t, conn, pcmFrames(0, 0.6, false))
	var types []string
	var tr map[string]any
	for tr == nil {
		m := readJSON(t, conn)
		types = append(types, m["type"].(string))
		if m["type"] == "transcript" {
			tr = m
		} else if !sameKeys(m, "type", "timestamp") || m["timestamp"] != "2025-03-04T05:06:07Z" {
			t.Errorf("informational message %v", m)
		}
	}
	if want := []string{"vad_start", "speech_start", "speech_end", "vad_end", "processing", "transcript"}; !slices.Equal(types, want) {
		t.Errorf("messages %v, want %v", types, want)
	}
	if !sameKeys(tr, "type", "timestamp", "text", "audio_duration_ms", "segment_id", "segment_index", "latency", "detected_language") ||
		tr["segment_index"] != json.Number("0") || tr["detected_language"] != "en-IN" || tr["text"] == "" {
		t.Errorf("transcript %v", tr)
	}
	// 32 frames of speech (1.024 s) and 16 of silence (0.512 s).
	if d, _ := tr["audio_duration_ms"].(json.Number).Int64(); d != 1536 {
		t.Errorf("audio_duration_ms %d, want 1536", d)
	}
	// Half a second of speech, then nothing: the segment in progress is
	// transcribed once no audio came for the quiet time.
	sendFrames(t, conn, pcmFrames(2, 0.5, true))
	types = nil
	for tr = nil; tr == nil; {
		m := readJSON(t, conn)
		types = append(types, m["type"].(string))
		if m["type"] == "transcript" {
			tr = m
		}
	}
	if tr["segment_index"] != json.Number("1") || len(types) != 6 {
		t.Errorf("second segment: messages %v, transcript %v", types, tr)
	}
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	if err := conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if code := closeCode(t, conn); code != websocket.CloseNormalClosure {
		t.Errorf("closed with %d after the client's 1000", code)
	}
	sent := float64(len(pcmFrames(1, 1, true))+len(pcmFrames(0, 0.6, false))+len(pcmFrames(2, 0.5, true))) * 512 / 16000
	eventually(t, "billing", func() bool { return math.Abs(billed(t, s)-sent) < 1e-6 })
}

// TestLiveRealtimeSilenceAndIdle: silence opens no segment and gets no
// message; a session with no audio for the idle time (a second at this
// time scale) is closed by the emulator with 1000.
func TestLiveRealtimeSilenceAndIdle(t *testing.T) {
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive, TimeScale: 1000})
	conn := dialLive(t, s, "", liveHeaders("k", "ta-IN", "16000"))
	if m := readJSON(t, conn); m["type"] != "connected" {
		t.Fatalf("first message %v", m)
	}
	sendFrames(t, conn, pcmFrames(0, 1, false))
	start := time.Now()
	if code := closeCode(t, conn); code != websocket.CloseNormalClosure {
		t.Errorf("closed with %d, want 1000", code)
	}
	if el := time.Since(start); el < 900*time.Millisecond {
		t.Errorf("closed after %v of quiet, want about a second", el)
	}
}

// TestLiveRealtimeITN: the x-format and itn_native_numerals headers apply
// ITN to the transcripts, as the REST form fields do.
func TestLiveRealtimeITN(t *testing.T) {
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive, TimeScale: 100, NoEspeak: true})
	status, wav := s.send(http.MethodPost, "/api/v1/tts/inference", "k", "application/json",
		jsonBody(`{"text": "मुझे दो लाख रुपये मिले।", "model": "timbre-v2.5", "voice": "Nalini", "language": "hi-IN", "audio_config": {"sample_rate": 16000}}`))
	if status != 200 {
		t.Fatalf("synthesis: %d %s", status, wav)
	}
	pcm := wav[44:]
	var frames [][]byte
	for i := 0; i < len(pcm); i += 1024 {
		f := make([]byte, 1024)
		copy(f, pcm[i:])
		frames = append(frames, f)
	}
	for _, tc := range []struct {
		format, native, want string
	}{
		{"", "", "मुझे दो लाख रुपये मिले।"},
		{"transcribe", "", "मुझे ₹2,00,000 मिले।"},
		{"transcribe", "true", "मुझे ₹२,००,००० मिले।"},
	} {
		h := liveHeaders("k", "hi-IN", "16000")
		if tc.format != "" {
			h["x-format"] = []string{tc.format}
		}
		if tc.native != "" {
			h["itn_native_numerals"] = []string{tc.native}
		}
		conn := dialLive(t, s, "", h)
		readJSON(t, conn) // connected
		sendFrames(t, conn, frames)
		var text []string
		for {
			m := readJSON(t, conn)
			if m["type"] == "transcript" {
				text = append(text, m["text"].(string))
			}
			if m["type"] == "transcript" && strings.HasSuffix(m["text"].(string), "।") {
				break
			}
		}
		if got := strings.Join(text, " "); got != tc.want {
			t.Errorf("x-format %q, itn_native_numerals %q: %q, want %q", tc.format, tc.native, got, tc.want)
		}
	}
}

// TestLiveRealtimeShortLastFrame: the service owner's client streams a
// file as it reads it, 1,024 bytes at a time, so its last frame is short;
// the live service takes it. The emulator transcribes the whole recording,
// bills every sample sent, the short frame's included, and closes normally
// when the client does.
func TestLiveRealtimeShortLastFrame(t *testing.T) {
	s := newService(t, emulator.Options{Profile: emulator.ProfileLive, TimeScale: 100, NoEspeak: true})
	const spoken = "मुझे दो लाख रुपये मिले।"
	status, wav := s.send(http.MethodPost, "/api/v1/tts/inference", "k", "application/json",
		jsonBody(`{"text": "`+spoken+`", "model": "timbre-v2.5", "voice": "Nalini", "language": "hi-IN", "audio_config": {"sample_rate": 16000}}`))
	if status != 200 {
		t.Fatalf("synthesis: %d %s", status, wav)
	}
	pcm := wav[44:]
	if len(pcm)%1024 == 0 {
		pcm = pcm[:len(pcm)-300] // the end of the recording is silence
	}
	var frames [][]byte
	for rest := pcm; len(rest) > 0; rest = rest[min(len(rest), 1024):] {
		frames = append(frames, rest[:min(len(rest), 1024)])
	}
	if last := len(frames[len(frames)-1]); last == 1024 {
		t.Fatalf("the last frame is %d bytes, want it short", last)
	}
	conn := dialLive(t, s, "", liveHeaders("k", "hi-IN", "16000"))
	readJSON(t, conn) // connected
	sendFrames(t, conn, frames)
	var text []string
	for !strings.HasSuffix(strings.Join(text, " "), "।") {
		m := readJSON(t, conn)
		switch m["type"] {
		case "transcript":
			text = append(text, m["text"].(string))
		case "error":
			t.Fatalf("error message after a short last frame: %v", m)
		}
	}
	if got := strings.Join(text, " "); got != spoken {
		t.Errorf("transcript %q, want %q", got, spoken)
	}
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	if err := conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if code := closeCode(t, conn); code != websocket.CloseNormalClosure {
		t.Errorf("closed with %d after the client's 1000, want 1000", code)
	}
	sent := float64(len(pcm)/2) / 16000
	eventually(t, "billing", func() bool { return math.Abs(billed(t, s)-sent) < 1e-6 })
}

// TestLiveSynthesisRules: the live service knows tts-v2.0 and tts-v2.5
// by their live names only (timbre-v2.0, also vachana-voice-v3, and
// timbre-v2.5), has its own timbre-v2.5 voices, takes speed with
// timbre-v2.5 only, and its Opus is container raw with encoding oggopus;
// the documented service is as its documents say.
func TestLiveSynthesisRules(t *testing.T) {
	live := newService(t, emulator.Options{Profile: emulator.ProfileLive, NoEspeak: true})
	doc := newService(t, emulator.Options{NoEspeak: true})
	const hello = `"text": "Hello there."`
	for _, tc := range []struct {
		s      *service
		name   string
		body   string
		status int
		want   string // in the error message, or the Content-Type
	}{
		{live, "timbre-v2.5", `"model": "timbre-v2.5", "voice": "Yashvi", "language": "hi-IN"`, 200, "audio/wav"},
		{live, "timbre-v2.0", `"model": "timbre-v2.0", "voice": "Shubhra"`, 200, "audio/wav"},
		{live, "vachana-voice-v3", `"model": "vachana-voice-v3", "voice": "Pranav"`, 200, "audio/wav"},
		{live, "tts-v2.5", `"model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN"`, 400, `model "tts-v2.5" is not supported: use one of timbre-v2.5, timbre-v2.0, tts-v3.0, vc-v1`},
		{live, "tts-v2.0", `"model": "tts-v2.0", "voice": "Pranav"`, 400, `model "tts-v2.0" is not supported`},
		{live, "tts-v3.0 stays", `"model": "tts-v3.0", "voice": "Shivani"`, 200, "audio/wav"},
		{live, "unknown voice", `"model": "timbre-v2.5", "voice": "Aditi", "language": "en-IN"`, 400, `voice "Aditi" is not supported by timbre-v2.5`},
		{live, "speed with timbre-v2.0", `"model": "timbre-v2.0", "voice": "Pranav", "speed": 1.1`, 400, "speed is not supported by timbre-v2.0 (timbre-v2.5 only)"},
		{live, "container ogg", `"model": "timbre-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "ogg"}`, 400, "container raw with encoding oggopus"},
		{live, "ogg oggopus", `"model": "timbre-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "ogg", "encoding": "oggopus"}`, 400, "container raw with encoding oggopus"},
		{live, "raw oggopus", `"model": "timbre-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "raw", "encoding": "oggopus"}`, 200, "audio/ogg"},
		{doc, "documented tts-v2.5", `"model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN"`, 200, "audio/wav"},
		{doc, "a tts-v2.5 voice beyond the documents' examples", `"model": "tts-v2.5", "voice": "Asmita", "language": "ta-IN"`, 200, "audio/wav"},
		{doc, "unknown voice", `"model": "tts-v2.5", "voice": "Aditi", "language": "en-IN"`, 400, `voice "Aditi" is not supported by tts-v2.5`},
		{doc, "documented timbre-v2.5", `"model": "timbre-v2.5", "voice": "Kaveri", "language": "en-IN"`, 400, `model "timbre-v2.5" is not supported: use one of tts-v2.5, tts-v2.0, tts-v3.0, vc-v1`},
		{doc, "documented container ogg", `"model": "tts-v2.5", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "ogg"}`, 200, "audio/ogg"},
	} {
		req, _ := http.NewRequest(http.MethodPost, tc.s.url+"/api/v1/tts/inference", strings.NewReader("{"+hello+", "+tc.body+"}"))
		req.Header.Set("X-API-Key-ID", "k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, body.Bytes()[:min(body.Len(), 200)], tc.status)
			continue
		}
		if tc.status == 200 {
			if ct := resp.Header.Get("Content-Type"); ct != tc.want {
				t.Errorf("%s: Content-Type %s, want %s", tc.name, ct, tc.want)
			}
			if tc.want == "audio/ogg" && !bytes.Contains(body.Bytes()[:min(body.Len(), 64)], []byte("OpusHead")) {
				t.Errorf("%s: not an Ogg Opus file", tc.name)
			}
			continue
		}
		m := object(t, body.Bytes())
		e, _ := m["error"].(map[string]any)
		if m["success"] != false || e["type"] != "INVALID_REQUEST_ERROR" || !strings.Contains(e["message"].(string), tc.want) {
			t.Errorf("%s: %v, want INVALID_REQUEST_ERROR saying %q", tc.name, m, tc.want)
		}
	}
}

// TestLiveNamesGiveTheSameAudio: a live name is the documented model, and
// vachana-voice-v3 is timbre-v2.0: the same request gives the same bytes.
func TestLiveNamesGiveTheSameAudio(t *testing.T) {
	live := newService(t, emulator.Options{Profile: emulator.ProfileLive, NoEspeak: true})
	doc := newService(t, emulator.Options{NoEspeak: true})
	synth := func(s *service, model string) []byte {
		status, b := s.send(http.MethodPost, "/api/v1/tts/inference", "k", "application/json",
			jsonBody(`{"text": "Your order has shipped.", "model": "`+model+`", "voice": "Pranav", "audio_config": {"sample_rate": 8000}}`))
		if status != 200 {
			t.Fatalf("%s: %d %s", model, status, b)
		}
		return b
	}
	want := synth(doc, "tts-v2.0")
	for _, m := range []string{"timbre-v2.0", "vachana-voice-v3"} {
		if !bytes.Equal(synth(live, m), want) {
			t.Errorf("%s differs from tts-v2.0", m)
		}
	}
}

// TestLiveRESTAnswer: the live REST answer has no timestamp and names the
// model and the time the work took; the documented one is as documented.
// Both take one language code.
func TestLiveRESTAnswer(t *testing.T) {
	clip := speech(t, 3, 1, 16000, 1)
	for _, tc := range []struct {
		profile string
		keys    []string
	}{
		{emulator.ProfileLive, []string{"success", "request_id", "transcript", "model", "processing_time", "end_to_end_latency"}},
		{emulator.ProfileDocumented, []string{"success", "request_id", "timestamp", "transcript"}},
	} {
		s := newService(t, emulator.Options{Profile: tc.profile})
		body, ctype := form(t, map[string]string{"language_code": "hi-IN"}, formFile{"audio_file", "a.wav", clip})
		status, b := s.send(http.MethodPost, "/stt/v3", "k", ctype, body)
		m := object(t, b)
		if status != 200 || !sameKeys(m, tc.keys...) || m["success"] != true {
			t.Errorf("%s: %d %v, want the fields %v", tc.profile, status, m, tc.keys)
		}
		if tc.profile == emulator.ProfileLive {
			p, perr := m["processing_time"].(json.Number).Float64()
			e2e, eerr := m["end_to_end_latency"].(json.Number).Float64()
			if model, _ := m["model"].(string); model == "" || perr != nil || eerr != nil || p < 0 || e2e < p {
				t.Errorf("live answer %v", m)
			}
		}
		body, ctype = form(t, map[string]string{"language_code": "hi-IN,en-IN"}, formFile{"audio_file", "a.wav", clip})
		status, b = s.send(http.MethodPost, "/stt/v3", "k", ctype, body)
		if status != 400 || !strings.Contains(string(b), "one language code per request") {
			t.Errorf("%s, two languages: %d %s", tc.profile, status, b)
		}
	}
}

// TestStartRefusesAnUnknownProfile: a profile is live or documented.
func TestStartRefusesAnUnknownProfile(t *testing.T) {
	r, err := emulator.Start(emulator.Options{Profile: "staging"}, "127.0.0.1:0")
	if err == nil {
		r.Shutdown(t.Context())
		t.Fatal("profile staging started")
	}
	if !strings.Contains(err.Error(), `profile "staging"`) {
		t.Errorf("error %v", err)
	}
}

// TestEveryAnswerNamesTheProfile: whatever the emulator answers (a
// synthesis, a refusal, an unknown route, its own routes, a WebSocket
// handshake of either realtime API) names the profile it serves in
// X-Emulator-Profile, and GET /_emulator/profile says it in its body: a
// client speaking the other profile can tell. LiveQuirks is the live one.
func TestEveryAnswerNamesTheProfile(t *testing.T) {
	for _, tc := range []struct {
		opts emulator.Options
		want string
	}{
		{emulator.Options{}, "documented"},
		{emulator.Options{Profile: emulator.ProfileDocumented}, "documented"},
		{emulator.Options{Profile: emulator.ProfileLive}, "live"},
		{emulator.Options{LiveQuirks: true}, "live"},
	} {
		s := newService(t, tc.opts)
		get := func(method, path, key, body string) *http.Response {
			t.Helper()
			req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
			if key != "" {
				req.Header.Set("X-API-Key-ID", key)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		model := map[string]string{"documented": "tts-v2.5", "live": "timbre-v2.5"}[tc.want]
		answers := map[string]*http.Response{
			"synthesis":    get("POST", "/api/v1/tts/inference", "k", `{"text": "Hi.", "model": "`+model+`", "voice": "Kaveri", "language": "en-IN", "audio_config": {"container": "wav"}}`),
			"refused":      get("POST", "/api/v1/tts/inference", "", `{}`),
			"unknown path": get("GET", "/no/such/route", "", ""),
			"stats":        get("GET", "/_emulator/stats", "", ""),
			"discovery":    get("GET", "/_emulator/profile", "", ""),
		}
		if r := answers["synthesis"]; r.StatusCode != http.StatusOK {
			t.Errorf("%s: synthesis with %s: %d", tc.want, model, r.StatusCode)
		}
		ws := "ws" + strings.TrimPrefix(s.url, "http")
		h := liveHeaders("k", "hi-IN", "16000")
		realtime := map[string]string{"documented": "/stt/v3?language_code=hi-IN", "live": "/stt/v3/stream"}[tc.want]
		for name, url := range map[string]string{"realtime": ws + realtime, "synthesis websocket": ws + "/api/v1/tts"} {
			conn, resp, err := websocket.DefaultDialer.Dial(url, h)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.want, name, err)
			}
			conn.Close()
			answers[name] = resp
		}
		for name, r := range answers {
			if got := r.Header.Get(emulator.HeaderProfile); got != tc.want {
				t.Errorf("%+v: %s answered %d with %s %q, want %q", tc.opts, name, r.StatusCode, emulator.HeaderProfile, got, tc.want)
			}
		}
		_, body := s.send("GET", "/_emulator/profile", "", "", nil)
		if got := object(t, body); !sameKeys(got, "profile") || got["profile"] != tc.want {
			t.Errorf("%+v: GET /_emulator/profile: %s", tc.opts, body)
		}
	}
}
