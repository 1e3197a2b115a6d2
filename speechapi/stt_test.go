package speechapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/emulator"
	"github.com/voxform/voxform/speechapi"
)

// conformance: STT-003, STT-004, STT-005, STT-028
func TestTranscribeREST(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	clip := wavBytes(t, 1, 4, 16000, kindSpeech)
	res, err := e.client.Transcribe(ctx, writeAudioFile(t, dir, "a.wav", clip), speechapi.TranscribeOptions{LanguageCode: "en-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.RequestID == "" || res.Transcript == "" {
		t.Errorf("result %+v", res)
	}
	var raw map[string]any
	if err := json.Unmarshal(res.Raw, &raw); err != nil || raw["transcript"] != res.Transcript || raw["success"] != true {
		t.Errorf("raw body %s: %v", res.Raw, err)
	}
	if _, err := time.Parse("20060102_150405.000", res.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", res.Timestamp, err)
	}
	// A one-shot reader streams the same clip: same deterministic text.
	res2, err := e.client.Transcribe(ctx, speechapi.ReaderSource("b.wav", bytes.NewReader(clip), -1), speechapi.TranscribeOptions{LanguageCode: "en-IN"})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Transcript != res.Transcript || res2.RequestID == res.RequestID {
		t.Errorf("same clip gave %q (id %s) then %q (id %s)", res.Transcript, res.RequestID, res2.Transcript, res2.RequestID)
	}
	if got := e.stats(t).Requests["POST /stt/v3"]; got != 2 {
		t.Errorf("POST /stt/v3 requests = %d, want 2", got)
	}
}

// conformance: STT-001, STT-029, STT-030, STT-031, STT-032, STT-033, STT-034, ERR-013, ERR-014, ERR-015, ERR-016, ERR-009, ERR-012
func TestTranscribeRESTRejects(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	tests := []struct {
		name string
		data []byte
		lang string
		want string // substring of the 400 message
	}{
		{"too long", wavBytes(t, 2, 61, 8000, kindSpeech), "hi-IN", "60 seconds"},
		{"rate too high", wavBytes(t, 3, 1, 48000, kindSpeech), "hi-IN", "8000 to 44100"},
		{"not audio", []byte("hello, this is text and not audio at all"), "hi-IN", "unsupported audio format"},
		{"bn-BD", wavBytes(t, 4, 1, 16000, kindSpeech), "bn-BD", "unsupported language_code"},
		{"empty", nil, "hi-IN", "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.Transcribe(ctx, writeAudioFile(t, dir, tc.name+".wav", tc.data), speechapi.TranscribeOptions{LanguageCode: tc.lang})
			se := serviceError(t, err)
			if se.StatusCode != 400 || se.Type != speechapi.TypeInvalidRequest || !strings.Contains(se.Message, tc.want) || se.Deviation != "" {
				t.Errorf("got %v, want 400 INVALID_REQUEST_ERROR containing %q in the documented body", se, tc.want)
			}
		})
	}
	t.Run("accepted edges", func(t *testing.T) {
		for _, c := range []struct {
			sec  float64
			rate int
		}{{60, 8000}, {1, 44100}, {1, 8000}} {
			src := writeAudioFile(t, dir, "edge.wav", wavBytes(t, 5, c.sec, c.rate, kindSpeech))
			if _, err := e.client.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "ta-IN"}); err != nil {
				t.Errorf("%.0f s at %d Hz: %v", c.sec, c.rate, err)
			}
		}
	})
	t.Run("no audio_file", func(t *testing.T) {
		status, body := rawMultipart(t, e.http.URL+"/stt/v3", map[string]string{"language_code": "hi-IN"}, "audio_file", 0, nil)
		if status != 400 || !strings.Contains(body, "audio_file is required") {
			t.Errorf("no audio_file: %d %s", status, body)
		}
		status, body = rawMultipart(t, e.http.URL+"/stt/v3", map[string]string{"language_code": "hi-IN", "format": "pretty"}, "audio_file", 1, wavBytes(t, 8, 1, 16000, kindSpeech))
		if status != 400 || !strings.Contains(body, "verbatim or transcribe") {
			t.Errorf("format pretty: %d %s", status, body)
		}
	})
	t.Run("bad format option", func(t *testing.T) {
		_, err := e.client.Transcribe(ctx, writeAudioFile(t, dir, "x.wav", wavBytes(t, 6, 1, 16000, kindSpeech)), speechapi.TranscribeOptions{LanguageCode: "hi-IN", Format: "pretty"})
		if err == nil || !strings.Contains(err.Error(), "pretty") {
			t.Errorf("format pretty: %v", err)
		}
	})
	t.Run("no key", func(t *testing.T) {
		c := newRecogClient(t, e.http.URL, "")
		_, err := c.Transcribe(ctx, writeAudioFile(t, dir, "k.wav", wavBytes(t, 7, 1, 16000, kindSpeech)), speechapi.TranscribeOptions{LanguageCode: "hi-IN"})
		if se := serviceError(t, err); se.StatusCode != 403 || se.Type != speechapi.TypeForbidden || se.Deviation != "" {
			t.Errorf("no key: %v, want 403 FORBIDDEN in the documented body", se)
		}
	})
}

// conformance: RT-001, RT-002, RT-003, RT-004, RT-005, RT-006, RT-007, RT-008, RT-009, RT-010, RT-011, RT-012, RT-013, RT-014, ERR-010
func TestTranscribeRealtime(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	ctx := context.Background()
	for _, rate := range []int{16000, 8000} {
		// 22.05 kHz input: decoded and resampled by the client; the
		// emulator closes the stream on any frame that is not 1024 bytes
		// or not binary, so success proves the framing.
		clip := wavBytes(t, 11, 3, 22050, kindSpeech)
		res, err := e.client.TranscribeRealtime(ctx, bytes.NewReader(clip), speechapi.RealtimeOptions{LanguageCode: "hi-IN", SampleRate: rate})
		if err != nil {
			t.Fatalf("rate %d: %v", rate, err)
		}
		if !res.Closed || len(res.Segments) == 0 {
			t.Fatalf("rate %d: closed=%v segments=%d", rate, res.Closed, len(res.Segments))
		}
		if d := res.AudioSent - 3*time.Second; d < -40*time.Millisecond || d > 40*time.Millisecond {
			t.Errorf("audio sent %v, want 3s", res.AudioSent)
		}
		last := res.Segments[len(res.Segments)-1]
		if d := last.End - 3*time.Second; d < -10*time.Millisecond || d > 70*time.Millisecond { // the last frame is padded
			t.Errorf("segments end at %v, want about 3s", last.End)
		}
		for i, m := range res.Messages {
			if m.Type != "transcript" || m.SegmentIndex != i || m.SegmentID == "" || m.Text == "" || m.DetectedLanguage != "hi-IN" {
				t.Errorf("message %d: %+v", i, m)
			}
			if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil {
				t.Errorf("message %d timestamp %q: %v", i, m.Timestamp, err)
			}
		}
	}
	if got := e.stats(t).Requests["GET /stt/v3"]; got != 2 {
		t.Errorf("GET /stt/v3 = %d, want 2", got)
	}
	t.Run("bad language is a handshake error", func(t *testing.T) {
		_, err := e.client.TranscribeRealtime(ctx, bytes.NewReader(wavBytes(t, 1, 1, 16000, kindSpeech)), speechapi.RealtimeOptions{LanguageCode: "bn-BD"})
		if se := serviceError(t, err); se.StatusCode != 400 {
			t.Errorf("got %v", se)
		}
	})
	t.Run("paced", func(t *testing.T) {
		start := time.Now()
		_, err := e.client.TranscribeRealtime(ctx, bytes.NewReader(wavBytes(t, 12, 0.5, 16000, kindSpeech)), speechapi.RealtimeOptions{LanguageCode: "en-IN", Pace: 1})
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 400*time.Millisecond {
			t.Errorf("paced 0.5 s of audio took %v", el)
		}
	})
}

// TestTranscribeRealtimeCustomPath checks that the realtime path is the
// profile's (/stt/v3 documented, /stt/v3/stream live) unless Config.Paths
// names another: the documented emulator does not serve /stt/v3/stream,
// and the live service's client sent to /stt/v3 meets the documented
// protocol, which wants its language in the query.
// conformance: RT-010, ERR-010
func TestTranscribeRealtimeCustomPath(t *testing.T) {
	clip := wavBytes(t, 1, 1, 16000, kindSpeech)
	for _, tc := range []struct {
		profile  contract.Profile
		path     string
		status   int // of the handshake; 0: the session works
		endpoint string
	}{
		{contract.ProfileDocumented, "", 0, "GET /stt/v3"},
		{contract.ProfileDocumented, "/stt/v3/stream", http.StatusNotFound, ""},
		{contract.ProfileLive, "", 0, "GET /stt/v3/stream"},
		{contract.ProfileLive, "/stt/v3", http.StatusBadRequest, "GET /stt/v3"},
	} {
		e := newRecogEmu(t, emulator.Options{Profile: string(tc.profile)})
		cfg := speechapi.Config{BaseURL: e.http.URL, APIKey: "k", Profile: tc.profile, Retries: -1}
		if tc.path != "" {
			cfg.Paths = map[string]string{speechapi.EndpointSTTRealtime: tc.path}
		}
		c, err := speechapi.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		opts := speechapi.RealtimeOptions{LanguageCode: "en-IN", Pace: speechapi.PaceUnlimited, IdleTimeout: 200 * time.Millisecond}
		_, err = c.TranscribeRealtime(context.Background(), bytes.NewReader(clip), opts)
		var se *speechapi.Error
		switch {
		case tc.status == 0 && err != nil:
			t.Errorf("%s %q: %v", tc.profile, tc.path, err)
		case tc.status != 0 && (!errors.As(err, &se) || se.StatusCode != tc.status):
			t.Errorf("%s %q: %v, want %d", tc.profile, tc.path, err, tc.status)
		}
		if req := e.stats(t).Requests; tc.endpoint != "" && req[tc.endpoint] != 1 {
			t.Errorf("%s %q: requests %v, want %s", tc.profile, tc.path, req, tc.endpoint)
		}
	}
}

// TestTranscribeRealtimeDropped checks that a stream cut without a close
// is an incomplete result, never a short transcript.
func TestTranscribeRealtimeDropped(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{DropRate: 1})
	_, err := e.client.TranscribeRealtime(context.Background(), bytes.NewReader(wavBytes(t, 1, 1, 16000, kindSpeech)), speechapi.RealtimeOptions{LanguageCode: "en-IN"})
	var ie *speechapi.IncompleteError
	if !errors.As(err, &ie) || !speechapi.IsTemporary(err) {
		t.Fatalf("dropped stream: %v", err)
	}
}

// ffmpegConvert converts WAV bytes with ffmpeg; the test fails loudly
// when ffmpeg is missing.
func ffmpegConvert(t *testing.T, wav []byte, dir, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatalf("ffmpeg is required (scripts/deps.sh installs it): %v", err)
	}
	in := filepath.Join(dir, "in-"+name+".wav")
	out := filepath.Join(dir, name)
	if err := os.WriteFile(in, wav, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-y", "-i", in}, args...), out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %s: %v\n%s", name, err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// conformance: STT-030, STT-031, STT-032, ERR-016
func TestTranscribeRESTFormats(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	dir := t.TempDir()
	ctx := context.Background()
	clip := wavBytes(t, 71, 3, 16000, kindSpeech)
	long := wavBytes(t, 72, 62, 16000, kindSpeech)
	formats := []struct {
		name string
		args []string
	}{
		{"a.mp3", []string{"-c:a", "libmp3lame"}},
		{"a.ogg", []string{"-c:a", "libvorbis"}},
		{"a.opus", []string{"-c:a", "libopus"}},
		{"a.flac", []string{"-c:a", "flac"}},
		{"a.aac", []string{"-c:a", "aac", "-f", "adts"}},
		{"a.m4a", []string{"-c:a", "aac"}},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			src := writeAudioFile(t, dir, f.name, ffmpegConvert(t, clip, dir, f.name, f.args...))
			res, err := e.client.Transcribe(ctx, src, speechapi.TranscribeOptions{LanguageCode: "kn-IN"})
			if err != nil || res.Transcript == "" {
				t.Fatalf("%s: %v %+v", f.name, err, res)
			}
			switch f.name {
			case "a.m4a":
				return // the emulator cannot read an m4a duration: no 60 s check
			case "a.mp3":
				return // decoding a minute of mp3 is slow under -race; WAV covers the limit
			}
			over := writeAudioFile(t, dir, "long-"+f.name, ffmpegConvert(t, long, dir, "long-"+f.name, f.args...))
			_, err = e.client.Transcribe(ctx, over, speechapi.TranscribeOptions{LanguageCode: "kn-IN"})
			if se := serviceError(t, err); se.StatusCode != 400 || !strings.Contains(se.Message, "60 seconds") {
				t.Errorf("62 s %s: %v", f.name, se)
			}
		})
	}
}

// TestRealtimeEmulatorRejectsBadFrames checks the emulator side of the
// framing rules with a raw WebSocket client: JSON text frames and frames
// that are not 1024 bytes end the stream with 1008.
// conformance: RT-011, RT-013, RT-010
func TestRealtimeEmulatorRejectsBadFrames(t *testing.T) {
	e := newRecogEmu(t, emulator.Options{})
	url := "ws" + strings.TrimPrefix(e.http.URL, "http") + "/stt/v3?language_code=hi-IN"
	for name, send := range map[string]func(*websocket.Conn) error{
		"json": func(c *websocket.Conn) error {
			return c.WriteMessage(websocket.TextMessage, []byte(`{"audio":"AAAA"}`))
		},
		"short":      func(c *websocket.Conn) error { return c.WriteMessage(websocket.BinaryMessage, make([]byte, 100)) },
		"two frames": func(c *websocket.Conn) error { return c.WriteMessage(websocket.BinaryMessage, make([]byte, 2048)) },
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{"X-Api-Key-Id": {"k"}}
			conn, _, err := websocket.DefaultDialer.Dial(url, h)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := send(conn); err != nil {
				t.Fatal(err)
			}
			_, _, err = conn.ReadMessage()
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
				t.Errorf("got %v, want close 1008", err)
			}
		})
	}
	// Without the key the handshake is refused.
	_, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("handshake without key: %v", err)
	}
}
