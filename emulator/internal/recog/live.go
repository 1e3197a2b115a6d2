package recog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/emulator/internal/emu"
)

// Realtime recognition as the live service speaks it (Options.Profile
// live), at /stt/v3/stream: the session is set up by handshake headers,
// the server speaks first (connected, with the audio format it expects),
// transcripts come per speech segment while the audio streams, and no
// message ends the audio: the client closes when it has heard enough.
const (
	liveRoute = "GET /stt/v3/stream"
	// liveChunk is the frame the connected message announces: 512 samples
	// of 16-bit PCM.
	liveChunk = 512
	// vadLevel is the RMS of a frame above which it is speech (-40 dBFS).
	vadLevel = 0.01
	// vadHangover is how much silence, in audio, ends a speech segment.
	vadHangover = 0.5
	// liveQuiet is how long, in service time, no frame may arrive before
	// a segment in progress is transcribed as if silence followed (the
	// audio may have ended in speech); at least liveQuietMin of wall time.
	// Clients send frames in real time (32 ms apart at 16 kHz, 64 ms at 8
	// kHz) whatever the emulator's time scale, so the minimum leaves room
	// for a frame held up on a busy machine: a gap of 40 ms ended a
	// segment in mid-speech under load, and its words were cut in two.
	liveQuiet    = 500 * time.Millisecond
	liveQuietMin = 150 * time.Millisecond
	// liveIdle is how long, in service time, no frame may arrive before
	// the emulator closes the session with 1000; at least liveIdleMin.
	liveIdle    = 10 * time.Second
	liveIdleMin = time.Second
)

// liveRates are the x-sample-rate values the live service takes.
var liveRates = []int{8000, 16000, 44100, 48000}

// liveHeaders are the handshake headers that set up a session (besides
// the API key), as Options.Received sees them.
var liveHeaders = []string{"lang_code", "x-sample-rate", "x-format", "itn_native_numerals", "x-api-request-id"}

// liveConnected is the server's first message.
type liveConnected struct {
	Type      string     `json:"type"`
	Message   string     `json:"message"`
	Timestamp string     `json:"timestamp"`
	Config    liveConfig `json:"config"`
}

type liveConfig struct {
	SampleRate int `json:"sample_rate"`
	ChunkSize  int `json:"chunk_size"`
}

// liveEvent is an informational message (processing, speech_start,
// speech_end, vad_start, vad_end) and, with Message, the error message.
type liveEvent struct {
	Type      string `json:"type"`
	Message   string `json:"message,omitempty"`
	Timestamp string `json:"timestamp"`
}

// liveRealtime serves the live realtime WebSocket. The API key and the
// headers are checked after the upgrade: a problem is an error message
// {type: "error", message, timestamp}, then close 1008.
func (s *service) liveRealtime(w http.ResponseWriter, r *http.Request) {
	rq := map[string]any{}
	for _, h := range liveHeaders {
		if v := r.Header.Get(h); v != "" {
			rq[h] = v
		}
	}
	s.env.Receive(r.Pattern, rq)
	drop := emu.ShouldDrop(r.Context())
	conn, err := upgrader.Upgrade(w, r, w.Header()) // the handshake names the profile (emu.HeaderProfile)
	if err != nil {
		return // the upgrader answered
	}
	defer conn.Close()
	ls := &liveSession{s: s, conn: conn, drop: drop, id: s.id("rt"), hash: fnv.New64a()}
	if problem := ls.setUp(r.Header); problem != "" {
		ls.refuse(problem, nil)
		return
	}
	ls.run()
}

// liveSession is one live realtime session.
type liveSession struct {
	s    *service
	conn *websocket.Conn
	drop bool
	id   string
	opts textOptions
	rate int

	envl     *fineEnvelope // of the whole stream
	samples  int64         // received
	start    int64         // where the current segment's audio begins: the end of the previous one
	speaking bool
	short    int         // bytes of a frame shorter than liveChunk samples: the last one
	silence  int64       // samples of silence since the last speech
	hash     hash.Hash64 // of the current segment's audio (placeholder text)
	index    int         // of the next transcript
	said     float64     // seconds of a known recording already transcribed
}

// errDropped ends a session whose connection was cut on purpose.
var errDropped = errors.New("dropped")

// setUp checks the key and the headers and sends the connected message.
// It returns what is wrong with the handshake, if anything.
func (ls *liveSession) setUp(h http.Header) string {
	if msg := ls.s.env.KeyRefusal(h.Get("x-api-key-id")); msg != "" {
		return msg
	}
	lang := h.Get("lang_code")
	switch {
	case lang == "":
		return "lang_code header is required: one of " + strings.Join(restLanguages, ", ")
	case strings.Contains(lang, ","):
		return fmt.Sprintf("lang_code takes one language code, not %q", lang)
	case !restLanguage(lang):
		return fmt.Sprintf("unsupported lang_code %q: use one of %s", lang, strings.Join(restLanguages, ", "))
	}
	ls.opts.lang = lang
	v := h.Get("x-sample-rate")
	rate, err := strconv.Atoi(v)
	switch {
	case v == "":
		return "x-sample-rate header is required: 8000, 16000, 44100 or 48000"
	case err != nil || !slices.Contains(liveRates, rate):
		return fmt.Sprintf("unsupported x-sample-rate %q: use 8000, 16000, 44100 or 48000", v)
	}
	ls.rate = rate
	switch f := h.Get("x-format"); f {
	case "", "verbatim":
	case "transcribe":
		ls.opts.transcribe = true
	default:
		return fmt.Sprintf("x-format %q is not verbatim or transcribe", f)
	}
	if v := h.Get("itn_native_numerals"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Sprintf("itn_native_numerals must be true or false, not %q", v)
		}
		ls.opts.native = b
	}
	ls.envl = newFineEnvelope(rate)
	return ""
}

// refuse sends the error message and closes with 1008; in is the
// session's reader, if it has one.
func (ls *liveSession) refuse(msg string, in <-chan inbound) {
	_ = ls.send(liveEvent{Type: "error", Message: msg, Timestamp: ls.now()})
	if in == nil {
		closeWith(ls.conn, websocket.ClosePolicyViolation, msg)
		return
	}
	closeReading(ls.conn, in, websocket.ClosePolicyViolation, msg)
}

func (ls *liveSession) now() string { return ls.s.env.Now().UTC().Format(time.RFC3339Nano) }

func (ls *liveSession) send(v any) error {
	_ = ls.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return ls.conn.WriteJSON(v)
}

// inbound is one message from the client, or the error that ended them.
type inbound struct {
	kind int
	data []byte
	err  error
}

// run says connected, then reads frames until the client closes or falls
// silent for the idle time. One reader goroutine hands frames over, so
// that waiting for the next frame can end with a timer.
func (ls *liveSession) run() {
	conn, env := ls.conn, ls.s.env
	conn.SetReadLimit(64 << 10)
	hello := liveConnected{Type: "connected", Message: "connected to realtime transcription", Timestamp: ls.now(),
		Config: liveConfig{SampleRate: ls.rate, ChunkSize: liveChunk}}
	if ls.send(hello) != nil {
		return
	}
	in := make(chan inbound)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			kind, data, err := conn.ReadMessage()
			select {
			case in <- inbound{kind, data, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	quietFor, idleFor := max(env.Scaled(liveQuiet), liveQuietMin), max(env.Scaled(liveIdle), liveIdleMin)
	quiet, idle := time.NewTimer(quietFor), time.NewTimer(idleFor)
	defer quiet.Stop()
	defer idle.Stop()
	quiet.Stop()
	for {
		select {
		case m := <-in:
			if m.err != nil { // the client closed, or went away
				ls.bill()
				return
			}
			if problem, err := ls.frame(m.kind, m.data); problem != "" || err != nil {
				if problem != "" {
					ls.refuse(problem, in)
				}
				return
			}
			idle.Reset(idleFor)
			if ls.speaking {
				quiet.Reset(quietFor)
			} else {
				quiet.Stop()
			}
		case <-quiet.C:
			if err := ls.endSegment(); err != nil {
				return
			}
		case <-idle.C:
			ls.bill()
			closeReading(conn, in, websocket.CloseNormalClosure, "no audio for a while")
			return
		}
	}
}

// closeReading is closeWith for a connection whose messages a reader
// goroutine hands over on in: it sends a close frame and waits briefly
// for the client's.
func closeReading(conn *websocket.Conn, in <-chan inbound, code int, reason string) {
	if len(reason) > 120 {
		reason = reason[:120]
	}
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case m := <-in:
			if m.err != nil {
				return
			}
		case <-t.C:
			return
		}
	}
}

// bill records the audio received in a session that was not cut.
func (ls *liveSession) bill() {
	ls.s.env.Stats.BillAudioSeconds(float64(ls.samples) / float64(ls.rate))
}

// frame takes one frame of audio: a speech frame opens a segment (vad_start,
// speech_start); enough silence after speech ends it. problem is what is
// wrong with the frame; err ends the session without another word.
func (ls *liveSession) frame(kind int, data []byte) (problem string, err error) {
	if problem := ls.frameProblem(kind, len(data)); problem != "" {
		return problem, nil
	}
	if len(data) < 2*liveChunk {
		ls.short = len(data)
	}
	var sum float64
	for i := 0; i+1 < len(data); i += 2 {
		v := float64(int16(binary.LittleEndian.Uint16(data[i:]))) / 32768
		ls.envl.Add(v)
		sum += v * v
	}
	n := int64(len(data) / 2)
	ls.hash.Write(data)
	ls.samples += n
	if math.Sqrt(sum/float64(n)) >= vadLevel {
		ls.silence = 0
		if !ls.speaking {
			ls.speaking = true
			for _, t := range []string{"vad_start", "speech_start"} {
				if err := ls.send(liveEvent{Type: t, Timestamp: ls.now()}); err != nil {
					return "", err
				}
			}
		}
		return "", nil
	}
	if ls.speaking {
		ls.silence += n
		if float64(ls.silence)/float64(ls.rate) >= vadHangover {
			return "", ls.endSegment()
		}
	}
	return "", nil
}

// frameProblem says what is wrong with a frame of n bytes, if anything.
// Frames are liveChunk samples of 16-bit PCM; the last may be shorter (the
// service owner's client reads a file 1024 bytes at a time and sends what
// it read, and the live service takes it), but no frame follows a short
// one.
func (ls *liveSession) frameProblem(kind, n int) string {
	full := 2 * liveChunk
	switch {
	case kind != websocket.BinaryMessage:
		return "audio must be sent as binary frames of 16-bit PCM, never text or JSON"
	case n == 0:
		return fmt.Sprintf("frames must be %d bytes (%d samples of 16-bit PCM), got 0: no message ends the audio, close the connection instead", full, liveChunk)
	case ls.short > 0:
		return fmt.Sprintf("frames must be %d bytes (%d samples of 16-bit PCM); only the last may be shorter, and a frame of %d bytes came after one of %d", full, liveChunk, n, ls.short)
	case n > full:
		return fmt.Sprintf("frames must be %d bytes (%d samples of 16-bit PCM), got %d", full, liveChunk, n)
	case n%2 != 0:
		return fmt.Sprintf("frames hold whole 16-bit samples: a frame of %d bytes", n)
	}
	return ""
}

// endSegment ends the speech segment in progress (speech_end, vad_end)
// and, when it holds words, transcribes it (processing, transcript). Its
// audio runs from the end of the previous segment to here, so that the
// segments' durations add up to the audio.
func (ls *liveSession) endSegment() error {
	if !ls.speaking {
		return nil
	}
	at := time.Now()
	ls.speaking, ls.silence = false, 0
	for _, t := range []string{"speech_end", "vad_end"} {
		if err := ls.send(liveEvent{Type: t, Timestamp: ls.now()}); err != nil {
			return err
		}
	}
	from, to := ls.start, ls.samples
	text := ls.text(from, to)
	ls.start = to
	ls.hash.Reset()
	if text == "" {
		return nil
	}
	if ls.drop {
		ls.s.env.Stats.RouteFault(liveRoute, "drop")
		_ = ls.conn.NetConn().Close()
		return errDropped
	}
	if err := ls.send(liveEvent{Type: "processing", Timestamp: ls.now()}); err != nil {
		return err
	}
	m := rtMessage{Type: "transcript", Timestamp: ls.now(), Text: text,
		AudioDurationMS: int((to - from) * 1000 / int64(ls.rate)), SegmentID: fmt.Sprintf("%s-%d", ls.id, ls.index),
		SegmentIndex: ls.index, Latency: int(time.Since(at).Milliseconds()), DetectedLanguage: ls.opts.lang}
	ls.index++
	return ls.send(m)
}

// text is the transcript of the segment of audio from..to (samples). A
// recording the emulator synthesized is recognised from its beginning,
// and the segment gets its sentences whose middle falls in the audio
// heard since the last transcript; other audio gets placeholder words
// (none for silence or a steady tone).
func (ls *liveSession) text(from, to int64) string {
	var pieces []string
	// The last frame may end in the silence the client padded it with.
	trim := (liveChunk + ls.envl.per - 1) / ls.envl.per
	if sp, ok := ls.envl.lookupPrefix(ls.s.env, trim); ok {
		until := float64(to) / float64(ls.rate)
		pieces = piecesBetween(splitText(sp.Text), sp.Seconds, ls.said, until)
		ls.said = until
	} else {
		env := ls.envl.at(0)
		per := int64(ls.envl.per)
		lo, hi := min(int(from/per), len(env)), min(int(to/per), len(env))
		if silent, tone := noSpeech(env[lo:hi]); silent || tone {
			return ""
		}
		pieces = placeholder(ls.opts.lang, float64(to-from)/float64(ls.rate), ls.hash.Sum64())
	}
	if len(pieces) == 0 {
		return ""
	}
	return ls.opts.render(strings.Join(inScript(ls.opts.lang, pieces), " "))
}

// piecesBetween returns the pieces of a recording of seconds whose middle
// falls after from and up to until (seconds), the pieces spread over the
// recording by their length in characters.
func piecesBetween(pieces []string, seconds, from, until float64) []string {
	total := 0
	for _, p := range pieces {
		total += utf8.RuneCountInString(p)
	}
	var out []string
	done := 0
	for _, p := range pieces {
		n := utf8.RuneCountInString(p)
		mid := seconds * (float64(done) + float64(n)/2) / float64(max(total, 1))
		done += n
		if mid > from && mid <= until {
			out = append(out, p)
		}
	}
	return out
}
