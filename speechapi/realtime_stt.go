package speechapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
)

// RealtimeFrameBytes is the documented realtime frame: 512 samples of
// 16-bit mono PCM.
const RealtimeFrameBytes = 1024

// RealtimeOptions tune TranscribeRealtime.
type RealtimeOptions struct {
	// LanguageCode is sent as the language_code query parameter.
	LanguageCode string
	// SampleRate is 16000 (default) or 8000; it is sent as sample_rate.
	SampleRate int
	// Paced sends frames in real time (32 ms per 16 kHz frame); otherwise
	// as fast as the connection accepts them.
	Paced bool
	// IdleTimeout ends the session when no message came for this long
	// after the last frame was sent and at least one transcript message
	// arrived (0: 10 s). A server that sends nothing at all within
	// Config.Timeout of the end of the audio, and does not close, fails
	// the session.
	IdleTimeout time.Duration
}

// RealtimeMessage is a server transcript message.
type RealtimeMessage struct {
	Type             string `json:"type"`
	Timestamp        string `json:"timestamp"`
	Text             string `json:"text"`
	AudioDurationMS  int    `json:"audio_duration_ms"`
	SegmentID        string `json:"segment_id"`
	SegmentIndex     int    `json:"segment_index"`
	Latency          int    `json:"latency"`
	DetectedLanguage string `json:"detected_language"`
}

// RealtimeSegment is a transcript message placed on the audio's timeline
// (segments follow one another; each lasts its audio_duration_ms).
type RealtimeSegment struct {
	Index      int
	ID         string
	Start, End time.Duration
	Text       string
	Language   string
}

// RealtimeResult is a realtime session's outcome.
type RealtimeResult struct {
	Segments []RealtimeSegment
	Messages []RealtimeMessage
	// AudioSent is the duration of audio sent.
	AudioSent time.Duration
	// Closed is true when the server closed normally (1000), false when the
	// idle timeout ended the session.
	Closed bool
}

// TranscribeRealtime streams audio (WAV in any PCM, mu-law or A-law
// encoding, or MP3) over the realtime WebSocket: it decodes, downmixes and
// resamples it to 16-bit mono PCM at SampleRate, sends 1024-byte binary
// frames and an empty frame at the end, and collects transcript messages
// until the server closes with 1000 or the idle timeout passes. A server
// that stops reading the audio, or answers nothing within Config.Timeout,
// fails the session with an *IncompleteError wrapping a *TimeoutError. A
// message larger than MaxRealtimeMessageBytes, or messages larger than
// MaxTranscriptBytes together, end it with a *LimitError. A refused
// handshake, and a session cut short, are sent again (r from its start),
// counted among the retries.
func (c *Client) TranscribeRealtime(ctx context.Context, r io.ReadSeeker, opts RealtimeOptions) (*RealtimeResult, error) {
	if opts.LanguageCode == "" {
		return nil, errors.New("realtime transcription: language_code is required")
	}
	if opts.SampleRate == 0 {
		opts.SampleRate = contract.RealtimeDefaultRate
	}
	if err := contract.ProfileDocumented.CheckRealtimeRate(opts.SampleRate); err != nil {
		return nil, fmt.Errorf("realtime transcription: %w", err)
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 10 * time.Second
	}
	var res *RealtimeResult
	err := c.retry(ctx, c.wsURL(EndpointSTTRealtime), func(attempt int) error {
		if attempt > 0 {
			if _, err := r.Seek(0, io.SeekStart); err != nil {
				return final(fmt.Errorf("realtime transcription: rewind audio: %w", err))
			}
		}
		var err error
		res, err = c.transcribeRealtime(ctx, r, opts)
		return err
	})
	return res, err
}

// transcribeRealtime is one session of TranscribeRealtime.
func (c *Client) transcribeRealtime(ctx context.Context, r io.ReadSeeker, opts RealtimeOptions) (*RealtimeResult, error) {
	src, err := realtimeSource(r, opts.SampleRate)
	if err != nil {
		return nil, final(fmt.Errorf("realtime transcription: %w", err))
	}
	conn, err := c.dialRealtime(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("realtime transcription: %w", err)
	}
	defer conn.Close()
	conn.SetReadLimit(MaxRealtimeMessageBytes) // transcript messages, not audio
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	s := &rtSession{conn: conn, opts: opts, host: hostOf(c.wsURL(EndpointSTTRealtime)), limit: c.cfg.Timeout, res: &RealtimeResult{}, red: c.red}
	res, err := s.run(src)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("realtime transcription: %w", ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("realtime transcription: %w", err)
	}
	return res, nil
}

// realtimeSource decodes r to mono samples at rate.
func realtimeSource(r io.ReadSeeker, rate int) (audio.SampleSource, error) {
	d, err := audio.Decode(r)
	if err != nil {
		return nil, err
	}
	mono := audio.Mono(d.Samples)
	if d.Format.SampleRate == rate {
		return mono, nil
	}
	return audio.NewResampler(mono, d.Format.SampleRate, rate)
}

func (c *Client) dialRealtime(ctx context.Context, opts RealtimeOptions) (*websocket.Conn, error) {
	q := url.Values{"language_code": {opts.LanguageCode}, "sample_rate": {strconv.Itoa(opts.SampleRate)}}
	u := c.wsURL(EndpointSTTRealtime)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	d := &websocket.Dialer{HandshakeTimeout: c.cfg.Timeout, Proxy: http.ProxyFromEnvironment}
	return c.dial(ctx, d, u+sep+q.Encode())
}

// rtSession is one realtime transcription: a sender and a reader of
// messages.
type rtSession struct {
	conn  *websocket.Conn
	opts  RealtimeOptions
	host  string
	limit time.Duration // Config.Timeout
	res   *RealtimeResult
	red   redactor

	mu   sync.Mutex
	sent bool // the end frame went out: the session may end on silence
	got  int  // transcript messages received
}

// run sends the audio while a reader collects messages.
func (s *rtSession) run(src audio.SampleSource) (*RealtimeResult, error) {
	conn, opts, res := s.conn, s.opts, s.res
	readErr := make(chan error, 1)
	go func() { readErr <- s.collect() }()
	samples, err := sendFrames(conn, src, opts, s.limit)
	if err != nil {
		if isNetTimeout(err) {
			err = wsStalled(s.host, s.limit, whileWSSend)
		}
		// The service may have closed the stream with a reason (a refused
		// frame): give the reader a moment to see it, and prefer it.
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		var ce *closedError
		var le *LimitError
		if rerr := <-readErr; errors.As(rerr, &ce) || errors.As(rerr, &le) {
			return nil, rerr
		}
		return nil, err
	}
	s.mu.Lock()
	s.sent = true
	wait := opts.IdleTimeout
	if s.got == 0 {
		wait = s.limit // nothing yet: the server owes an answer within the timeout
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	s.mu.Unlock()
	if err := <-readErr; err != nil {
		return nil, err
	}
	res.AudioSent = time.Duration(float64(samples) / float64(opts.SampleRate) * float64(time.Second))
	var at time.Duration
	for _, m := range res.Messages {
		d := time.Duration(m.AudioDurationMS) * time.Millisecond
		res.Segments = append(res.Segments, RealtimeSegment{Index: m.SegmentIndex, ID: m.SegmentID,
			Start: at, End: at + d, Text: m.Text, Language: m.DetectedLanguage})
		at += d
	}
	return res, nil
}

// sendFrames writes 1024-byte binary frames (the last padded with
// silence), then the empty end-of-audio frame; a server that accepts no
// frame for longer than limit fails it. It returns the samples sent.
func sendFrames(conn *websocket.Conn, src audio.SampleSource, opts RealtimeOptions, limit time.Duration) (int64, error) {
	buf := make([]float64, RealtimeFrameBytes/2)
	frame := make([]byte, RealtimeFrameBytes)
	frameDur := time.Duration(float64(len(buf)) / float64(opts.SampleRate) * float64(time.Second))
	start := time.Now()
	var total int64
	for i := 0; ; i++ {
		n, err := fillSamples(src, buf)
		if n > 0 {
			for j := range buf {
				v := 0.0
				if j < n {
					v = buf[j]
				}
				binary.LittleEndian.PutUint16(frame[2*j:], uint16(toPCM16(v)))
			}
			if opts.Paced {
				time.Sleep(time.Until(start.Add(time.Duration(i) * frameDur)))
			}
			_ = conn.SetWriteDeadline(time.Now().Add(limit))
			if werr := conn.WriteMessage(websocket.BinaryMessage, frame); werr != nil {
				return total, fmt.Errorf("send audio: %w", werr)
			}
			total += int64(n)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, fmt.Errorf("decode audio: %w", err)
		}
	}
	_ = conn.SetWriteDeadline(time.Now().Add(limit))
	if err := conn.WriteMessage(websocket.BinaryMessage, []byte{}); err != nil {
		return total, fmt.Errorf("send end of audio: %w", err)
	}
	return total, nil
}

func toPCM16(v float64) int16 {
	v = math.Round(v * 32767)
	return int16(max(-32768, min(32767, v)))
}

// fillSamples reads until buf is full or the audio ends (io.EOF, possibly
// with n > 0).
func fillSamples(src audio.SampleSource, buf []float64) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := src.ReadSamples(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
		if k == 0 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

// collect reads transcript messages until a close or the idle timeout.
func (s *rtSession) collect() error {
	conn, res, idle := s.conn, s.res, s.opts.IdleTimeout
	var total int64
	for {
		kind, data, err := conn.ReadMessage()
		if errors.Is(err, websocket.ErrReadLimit) {
			return &LimitError{What: "realtime transcript message", Host: s.host, Limit: sizeText(MaxRealtimeMessageBytes)}
		}
		if total += int64(len(data)); total > MaxTranscriptBytes {
			return &LimitError{What: "realtime transcript", Host: s.host, Limit: sizeText(MaxTranscriptBytes)}
		}
		if err != nil {
			var ce *websocket.CloseError
			switch {
			case errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure:
				res.Closed = true
				return nil
			case errors.As(err, &ce) && ce.Code == websocket.CloseAbnormalClosure: // connection cut: worth a retry
				return &IncompleteError{What: "realtime transcription", Reason: fmt.Sprintf("the connection was cut: %d %s", ce.Code, s.red.text(ce.Text))}
			case errors.As(err, &ce):
				return &closedError{code: ce.Code, text: s.red.text(ce.Text)}
			}
			s.mu.Lock()
			armed, got := s.sent, s.got
			s.mu.Unlock()
			switch {
			case armed && isNetTimeout(err) && got > 0:
				return nil // idle timeout after the last frame: the session is over
			case armed && isNetTimeout(err):
				return wsStalled(s.host, s.limit, whileWSMessage)
			}
			return &IncompleteError{What: "realtime transcription", Reason: "connection ended without a close: " + err.Error()}
		}
		if kind != websocket.TextMessage {
			continue
		}
		var m RealtimeMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("invalid message from the service: %v", err)
		}
		if m.Type != "transcript" {
			continue // other message types are not documented
		}
		res.Messages = append(res.Messages, m)
		s.mu.Lock()
		s.got++
		if s.sent {
			_ = conn.SetReadDeadline(time.Now().Add(idle))
		}
		s.mu.Unlock()
	}
}

// closedError is a stream the service closed with a code other than 1000.
type closedError struct {
	code int
	text string
}

// Error says how the service closed the stream.
func (e *closedError) Error() string {
	return fmt.Sprintf("the service closed the stream: %d %s", e.code, e.text)
}
