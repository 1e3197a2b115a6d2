package speechapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
)

// The live service's realtime recognition (contract.ProfileLive), as its
// owner's published client (0.7.x) speaks it: the handshake headers set up
// the session, the service opens with a connected message naming the
// audio format it expects, and then says how the session goes
// (processing, speech_start, speech_end, vad_start, vad_end), sends a
// transcript message per speech segment while the audio streams, and an
// error message when something is wrong. No message ends the audio.

// RealtimeError is an error message of the live realtime service
// ({"type": "error", "message": ..., "timestamp": ...}): it refused the
// handshake's headers (key, language, sample rate) or the audio. It names
// no error type or status, and the client does not send the session
// again.
type RealtimeError struct {
	// Message is the service's message, without the API key.
	Message string
}

// Error says what the service said.
func (e *RealtimeError) Error() string {
	return "the service sent an error: " + e.Message
}

// liveHeaders are the handshake headers of a live session, spelled as the
// service's own client spells them (besides the API key).
func liveHeaders(opts RealtimeOptions) http.Header {
	h := http.Header{
		"lang_code":     {opts.LanguageCode},
		"x-sample-rate": {strconv.Itoa(opts.SampleRate)},
	}
	if opts.RequestID != "" {
		h["x-api-request-id"] = []string{opts.RequestID}
	}
	if opts.Format == FormatTranscribe {
		h["x-format"] = []string{FormatTranscribe}
		if opts.NativeNumerals {
			h["itn_native_numerals"] = []string{"true"}
		}
	}
	return h
}

// dialLive opens a live session: the key in x-api-key-id, the rest in
// the handshake headers.
func (c *Client) dialLive(ctx context.Context, opts RealtimeOptions) (*websocket.Conn, error) {
	d := &websocket.Dialer{HandshakeTimeout: c.cfg.Timeout, Proxy: http.ProxyFromEnvironment}
	return c.dial(ctx, d, c.wsURL(EndpointSTTRealtime), liveHeaders(opts))
}

// liveConnected is the live service's first message.
type liveConnected struct {
	Type   string `json:"type"`
	Config *struct {
		SampleRate int `json:"sample_rate"`
	} `json:"config"`
}

// connected reads the message a live session opens with, within
// Config.Timeout: connected, with the sample rate asked for. An error
// message instead is a *RealtimeError.
func (s *rtSession) connected() error {
	conn := s.conn
	_ = conn.SetReadDeadline(time.Now().Add(s.limit))
	var data []byte
	for {
		kind, d, err := conn.ReadMessage()
		if errors.Is(err, websocket.ErrReadLimit) {
			return &LimitError{What: "realtime message", Host: s.host, Limit: sizeText(MaxRealtimeMessageBytes)}
		}
		if err != nil {
			if isNetTimeout(err) {
				return wsStalled(s.host, s.limit, whileWSMessage)
			}
			if err := s.ended(err); err != nil {
				return err
			}
			return &IncompleteError{What: "realtime transcription", Reason: "the service closed the stream before its connected message"}
		}
		if kind == websocket.TextMessage {
			data = d
			break
		}
	}
	if _, err := s.message(data); err != nil {
		return err // an error message, or not JSON
	}
	var m liveConnected
	_ = json.Unmarshal(data, &m)
	switch {
	case m.Type != "connected":
		return fmt.Errorf("the service's first message is \"%s\", not connected", s.red.quote(m.Type))
	case m.Config == nil || m.Config.SampleRate == 0:
		return fmt.Errorf("the service's connected message names no sample rate (config.sample_rate); %d Hz was asked for", s.opts.SampleRate)
	case m.Config.SampleRate != s.opts.SampleRate:
		return fmt.Errorf("the service expects audio at %d Hz (config.sample_rate of its connected message), not the %d Hz asked for in x-sample-rate",
			m.Config.SampleRate, s.opts.SampleRate)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return nil
}
