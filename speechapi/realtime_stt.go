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
	// LanguageCode is the one language of the audio, sent as the
	// language_code query parameter (the live service: the lang_code
	// header).
	LanguageCode string
	// SampleRate is the rate the audio is sent at: 16000 (0) or 8000, and
	// for the live service 44100 or 48000 too. It is sent as the
	// sample_rate query parameter (the live service: x-sample-rate).
	SampleRate int
	// Format is FormatVerbatim (default) or FormatTranscribe (ITN on), and
	// NativeNumerals asks for native digits with it: the live service
	// only (x-format and itn_native_numerals headers); the documents name
	// no realtime ITN, and the documented profile refuses it.
	Format         string
	NativeNumerals bool
	// RequestID, if set, is sent as x-api-request-id (the live service).
	RequestID string
	// Pace is how fast the audio is sent, as a multiple of real time: 1
	// sends each 512-sample frame when its time comes (32 ms apart at
	// 16 kHz), 4 four times as fast, and PaceUnlimited (any negative
	// value) as fast as the connection takes them. 0 is Config.RealtimePace,
	// or else the profile's pace: real time for the live service, whose
	// speech detection expects audio as it is spoken, unlimited for the
	// documented one.
	Pace float64
	// IdleTimeout ends the session when no message came for this long
	// after the last frame was sent. The documented service must have
	// sent a transcript by then (0: 10 s): one that sends nothing at all
	// within Config.Timeout of the end of the audio, and does not close,
	// fails the session. The live service owes nothing (silence has no
	// transcript): any message starts the wait again, and at its end the
	// client closes normally (0: DefaultLiveIdle).
	IdleTimeout time.Duration
}

// PaceUnlimited sends realtime audio as fast as the connection takes it
// (RealtimeOptions.Pace).
const PaceUnlimited = contract.PaceUnlimited

// DefaultLiveIdle is how long the client waits for more messages after
// its last frame to the live service, as the service owner's client does.
const DefaultLiveIdle = time.Second

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
// resamples it to 16-bit mono PCM at SampleRate and sends it in 1024-byte
// binary frames.
//
// To the documented service it sends an empty frame at the end, and
// collects transcript messages until the server closes with 1000 or the
// idle timeout passes. To the live service (Config.Profile) it sends the
// handshake headers, checks the connected message the service opens with
// (its sample rate must be the one asked for), paces the frames in real
// time, sends no end of audio, and collects the transcripts of each speech
// segment as they come until no message came for the idle timeout after
// the last frame; then it closes with 1000. An error message of the live
// service is a *RealtimeError, not sent again.
//
// A server that stops reading the audio, or answers nothing within
// Config.Timeout, fails the session with an *IncompleteError wrapping a
// *TimeoutError. A message larger than MaxRealtimeMessageBytes, or
// messages larger than MaxTranscriptBytes together, end it with a
// *LimitError. A refused handshake, and a session cut short, are sent
// again (r from its start), counted among the retries.
func (c *Client) TranscribeRealtime(ctx context.Context, r io.ReadSeeker, opts RealtimeOptions) (*RealtimeResult, error) {
	opts, err := c.realtimeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("realtime transcription: %w", err)
	}
	var res *RealtimeResult
	err = c.retry(ctx, c.wsURL(EndpointSTTRealtime), func(attempt int) error {
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

// realtimeOptions checks opts against the profile and fills its defaults.
func (c *Client) realtimeOptions(opts RealtimeOptions) (RealtimeOptions, error) {
	live := c.cfg.Profile == contract.ProfileLive
	if err := checkTextOptions(opts.LanguageCode, opts.Format); err != nil {
		return opts, err
	}
	if !live && (opts.Format == FormatTranscribe || opts.NativeNumerals) {
		return opts, errors.New("format transcribe and itn_native_numerals are not in the documented realtime interface (the live service takes them)")
	}
	if opts.SampleRate == 0 {
		opts.SampleRate = contract.RealtimeDefaultRate
	}
	if err := c.cfg.Profile.CheckRealtimeRate(opts.SampleRate); err != nil {
		return opts, err
	}
	if opts.Pace == 0 {
		opts.Pace = c.cfg.RealtimePace
	}
	switch {
	case opts.Pace == 0 && live:
		opts.Pace = 1
	case opts.Pace == 0, opts.Pace < 0:
		opts.Pace = PaceUnlimited
	}
	switch {
	case opts.IdleTimeout > 0:
	case live:
		opts.IdleTimeout = DefaultLiveIdle
	default:
		opts.IdleTimeout = 10 * time.Second
	}
	return opts, nil
}

// transcribeRealtime is one session of TranscribeRealtime.
func (c *Client) transcribeRealtime(ctx context.Context, r io.ReadSeeker, opts RealtimeOptions) (*RealtimeResult, error) {
	src, err := realtimeSource(r, opts.SampleRate)
	if err != nil {
		return nil, final(fmt.Errorf("realtime transcription: %w", err))
	}
	live := c.cfg.Profile == contract.ProfileLive
	var conn *websocket.Conn
	if live {
		conn, err = c.dialLive(ctx, opts)
	} else {
		conn, err = c.dialRealtime(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("realtime transcription: %w", err)
	}
	defer conn.Close()
	conn.SetReadLimit(MaxRealtimeMessageBytes) // transcript messages, not audio
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	s := &rtSession{conn: conn, opts: opts, live: live, host: hostOf(c.wsURL(EndpointSTTRealtime)), limit: c.cfg.Timeout,
		res: &RealtimeResult{}, red: c.red, readDone: make(chan struct{})}
	if live {
		err = s.connected()
	}
	var res *RealtimeResult
	if err == nil {
		res, err = s.run(src)
	}
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
	return c.dial(ctx, d, u+sep+q.Encode(), nil)
}

// rtSession is one realtime transcription: a sender and a reader of
// messages.
type rtSession struct {
	conn  *websocket.Conn
	opts  RealtimeOptions
	live  bool // the live service's protocol
	host  string
	limit time.Duration // Config.Timeout
	res   *RealtimeResult
	red   redactor
	// readDone is closed when the reader stops: the sender stops too.
	readDone chan struct{}

	mu   sync.Mutex
	sent bool // the last frame went out: the session may end on silence
	got  int  // transcript messages received
}

// run sends the audio while a reader collects messages.
func (s *rtSession) run(src audio.SampleSource) (*RealtimeResult, error) {
	conn, opts, res := s.conn, s.opts, s.res
	readErr := make(chan error, 1)
	go func() {
		err := s.collect()
		close(s.readDone)
		readErr <- err
	}()
	samples, err := s.send(src)
	if err != nil {
		if isNetTimeout(err) {
			err = wsStalled(s.host, s.limit, whileWSSend)
		}
		// The service may have closed the stream with a reason (a refused
		// frame) or said what is wrong: give the reader a moment to see
		// it, and prefer it.
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		rerr := <-readErr
		if errors.Is(err, errReaderStopped) {
			if rerr == nil {
				rerr = &IncompleteError{What: "realtime transcription", Reason: "the service closed the stream before all the audio was sent"}
			}
			return nil, rerr
		}
		var ce *closedError
		var le *LimitError
		var re *RealtimeError
		if errors.As(rerr, &ce) || errors.As(rerr, &le) || errors.As(rerr, &re) {
			return nil, rerr
		}
		return nil, err
	}
	s.mu.Lock()
	s.sent = true
	wait := opts.IdleTimeout
	if s.got == 0 && !s.live {
		wait = s.limit // nothing yet: the server owes an answer within the timeout
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	s.mu.Unlock()
	if err := <-readErr; err != nil {
		return nil, err
	}
	if s.live && !res.Closed {
		// The service owes no end: the client ends the session.
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
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

// send writes 1024-byte binary frames (the last padded with silence) at
// the session's pace, then, to the documented service, the empty
// end-of-audio frame; a server that accepts no frame for longer than the
// timeout fails it, and it stops when the reader does. It returns the
// samples sent.
func (s *rtSession) send(src audio.SampleSource) (int64, error) {
	conn, opts := s.conn, s.opts
	buf := make([]float64, RealtimeFrameBytes/2)
	frame := make([]byte, RealtimeFrameBytes)
	frameDur := time.Duration(float64(len(buf)) / float64(opts.SampleRate) * float64(time.Second) / opts.Pace)
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
			if werr := s.wait(start.Add(time.Duration(i) * frameDur)); werr != nil {
				return total, werr
			}
			_ = conn.SetWriteDeadline(time.Now().Add(s.limit))
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
	if s.live {
		return total, nil // the live service takes no end of audio
	}
	_ = conn.SetWriteDeadline(time.Now().Add(s.limit))
	if err := conn.WriteMessage(websocket.BinaryMessage, []byte{}); err != nil {
		return total, fmt.Errorf("send end of audio: %w", err)
	}
	return total, nil
}

// errReaderStopped stops the sender of a session whose reader stopped.
var errReaderStopped = errors.New("the session ended while sending audio")

// wait waits until a paced frame's time (at once when unpaced), or until
// the reader stops.
func (s *rtSession) wait(until time.Time) error {
	select {
	case <-s.readDone:
		return errReaderStopped
	default:
	}
	if s.opts.Pace < 0 {
		return nil
	}
	d := time.Until(until)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.readDone:
		return errReaderStopped
	}
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

// collect reads messages until a close or the idle timeout.
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
			return s.ended(err)
		}
		if kind != websocket.TextMessage {
			continue
		}
		m, err := s.message(data)
		if err != nil {
			return err
		}
		s.mu.Lock()
		if m != nil {
			res.Messages = append(res.Messages, *m)
			s.got++
		}
		if s.sent && (m != nil || s.live) { // the live service: any message shows it at work
			_ = conn.SetReadDeadline(time.Now().Add(idle))
		}
		s.mu.Unlock()
	}
}

// message reads one text message: a transcript, or nil for a message of
// another type. The documented service sends only transcripts; the live
// one also says how the session goes (processing, speech_start,
// speech_end, vad_start, vad_end), which is passed over, and sends error
// messages, which end the session.
func (s *rtSession) message(data []byte) (*RealtimeMessage, error) {
	var head struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("invalid message from the service: %v", err)
	}
	switch {
	case head.Type == "transcript":
		var m RealtimeMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("invalid transcript message from the service: %v", err)
		}
		return &m, nil
	case head.Type == "error" && s.live:
		return nil, &RealtimeError{Message: s.red.quote(head.Message)}
	}
	return nil, nil
}

// ended decides what the read error that ended the messages means.
func (s *rtSession) ended(err error) error {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure:
		s.res.Closed = true
		return nil
	case errors.As(err, &ce) && ce.Code == websocket.CloseAbnormalClosure: // connection cut: worth a retry
		return &IncompleteError{What: "realtime transcription", Reason: fmt.Sprintf("the connection was cut: %d %s", ce.Code, s.red.quote(ce.Text))}
	case errors.As(err, &ce):
		return &closedError{code: ce.Code, text: s.red.quote(ce.Text)}
	}
	s.mu.Lock()
	armed, got := s.sent, s.got
	s.mu.Unlock()
	switch {
	case armed && isNetTimeout(err) && (got > 0 || s.live):
		return nil // idle timeout after the last frame: the session is over
	case armed && isNetTimeout(err):
		return wsStalled(s.host, s.limit, whileWSMessage)
	}
	return &IncompleteError{What: "realtime transcription", Reason: "connection ended without a close: " + err.Error()}
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
