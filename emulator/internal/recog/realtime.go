package recog

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Realtime framing (speech-recognition.md, "Realtime transcription"):
// binary frames of 1024 bytes, 512 samples of 16-bit mono PCM at 16 or
// 8 kHz. An empty binary frame ends the audio (SPEC section 8a).
const (
	rtFrameBytes = 1024
	rtIdle       = 60 * time.Second
)

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

type rtMessage struct {
	Type             string `json:"type"`
	Timestamp        string `json:"timestamp"`
	Text             string `json:"text"`
	AudioDurationMS  int    `json:"audio_duration_ms"`
	SegmentID        string `json:"segment_id"`
	SegmentIndex     int    `json:"segment_index"`
	Latency          int    `json:"latency"`
	DetectedLanguage string `json:"detected_language"`
}

// realtime serves the /stt/v3 WebSocket. Query parameters: language_code
// (required) and sample_rate (16000 default, or 8000).
func (s *service) realtime(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rq := map[string]any{}
	for k := range q {
		rq[k] = q.Get(k)
	}
	s.env.Receive(r.Pattern, rq)
	lang := q.Get("language_code")
	if !restLanguage(lang) {
		restInvalid(w, fmt.Sprintf("query parameter language_code %q is missing or unsupported: use one of bn-IN, en-IN, gu-IN, hi-IN, kn-IN, ml-IN, mr-IN, pa-IN, ta-IN, te-IN", lang))
		return
	}
	rate := 16000
	if v := q.Get("sample_rate"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || (n != 16000 && n != 8000) {
			restInvalid(w, "query parameter sample_rate must be 16000 or 8000")
			return
		}
		rate = n
	}
	conn, err := upgrader.Upgrade(w, r, w.Header()) // the handshake names the profile (emu.HeaderProfile)
	if err != nil {
		return // the upgrader answered
	}
	defer conn.Close()
	a, ended, reason := s.receive(conn, rate)
	if !ended {
		closeWith(conn, websocket.ClosePolicyViolation, reason)
		return
	}
	if emu.ShouldDrop(r.Context()) {
		s.env.Stats.RouteFault(r.Pattern, "drop")
		return // cut without transcripts or close frame
	}
	endAt := time.Now()
	segs := a.segments(lang, 1, 0)
	id := s.id("rt")
	for i, sg := range segs {
		m := rtMessage{Type: "transcript", Timestamp: s.env.Now().UTC().Format(time.RFC3339Nano), Text: sg.Text,
			AudioDurationMS: int((sg.End - sg.Start) * 1000), SegmentID: fmt.Sprintf("%s-%d", id, i),
			SegmentIndex: i, Latency: int(time.Since(endAt).Milliseconds()), DetectedLanguage: lang}
		if err := conn.WriteJSON(m); err != nil {
			return
		}
	}
	s.env.Stats.BillAudioSeconds(a.Seconds)
	closeWith(conn, websocket.CloseNormalClosure, "")
}

// receive reads audio frames until the empty end frame. ended is false
// with a reason when the client broke the framing rules or went away.
func (s *service) receive(conn *websocket.Conn, rate int) (a *analysis, ended bool, reason string) {
	conn.SetReadLimit(64 << 10)
	envl := newFineEnvelope(rate)
	h := fnv.New64a()
	var samples int64
	for {
		_ = conn.SetReadDeadline(time.Now().Add(rtIdle))
		kind, data, err := conn.ReadMessage()
		if err != nil {
			return nil, false, "read: " + err.Error()
		}
		if kind != websocket.BinaryMessage {
			return nil, false, "audio must be sent as binary frames, never text or JSON"
		}
		if len(data) == 0 {
			break
		}
		if len(data) != rtFrameBytes {
			return nil, false, fmt.Sprintf("frames must be %d bytes (512 samples), got %d", rtFrameBytes, len(data))
		}
		h.Write(data)
		for i := 0; i+1 < len(data); i += 2 {
			envl.Add(float64(int16(binary.LittleEndian.Uint16(data[i:]))) / 32768)
		}
		samples += int64(len(data) / 2)
	}
	a = &analysis{Container: "pcm", Rate: rate, Channels: 1, Decoded: true, Size: samples * 2,
		Seconds: float64(samples) / float64(rate), Seed: h.Sum64()}
	a.Spoken, a.Known = envl.lookup(s.env)
	if !a.Known {
		// The last frame was padded with silence, more than the lookup's
		// few windows of slack at 8 kHz: try without part of it.
		a.Spoken, a.Known = envl.find(s.env, s.env.Registry.Lookup, rtFrameBytes/2/envl.per)
	}
	if !a.Known {
		a.Silent, a.Tone = noSpeech(envl.at(0))
	}
	return a, true, ""
}

// closeWith sends a close frame and waits briefly for the client's.
func closeWith(conn *websocket.Conn, code int, reason string) {
	if len(reason) > 120 {
		reason = reason[:120]
	}
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}
