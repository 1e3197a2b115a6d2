package speechapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/voxform/voxform/audio"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/untrusted"
)

// minSecondsPerChar is the least audio a spoken character can take: a
// stream that closes normally with less than this is implausibly short.
const minSecondsPerChar = 0.01

// SynthesizeRealtime synthesizes over the /api/v1/tts WebSocket: it sends
// the request as one JSON text message and receives raw PCM in binary
// frames, ended by the server's close 1000 (SPEC section 8a), or the live
// service's JSON text frames ({type: start|audio|complete|error, data:
// {audio, chunk_index, is_final}}), where a frame or base64 piece may be a
// whole WAV file. voxform writes the container itself: wav (which needs w
// to be an io.WriteSeeker, to patch the header), raw, mulaw and alaw
// (G.711 from the PCM); mp3 and ogg cannot be produced this way.
//
// Any other close, silence longer than Config.Timeout, a gap in chunk
// indexes or an implausibly short stream is an *IncompleteError. A
// refused handshake is retried like an HTTP request, and a session cut
// short is sent again from an empty w when w is a Truncater (counted
// among the retries).
func (c *Client) SynthesizeRealtime(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	return c.synthesisAttempts(ctx, c.wsURL(EndpointTTSRealtime), req, w, c.synthesizeRealtime)
}

// synthesizeRealtime is one session of SynthesizeRealtime.
func (c *Client) synthesizeRealtime(ctx context.Context, req *SynthesisRequest, w io.Writer) (*SynthesisResult, error) {
	cfg := resolved(req.AudioConfig)
	out, err := newPCMSink(cfg, w)
	if err != nil {
		return nil, final(fmt.Errorf("synthesize realtime: %w", err))
	}
	conn, err := c.dialWS(ctx, EndpointTTSRealtime)
	if err != nil {
		return nil, fmt.Errorf("synthesize realtime: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.NetConn().Close() })
	defer stop()
	res := &SynthesisResult{Container: cfg.Container}
	err = c.realtimeExchange(conn, hostOf(c.wsURL(EndpointTTSRealtime)), req, out, res)
	res.Bytes = out.bytesWritten()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return res, fmt.Errorf("synthesize realtime: %w", c.red.scrub(err))
	}
	return res, nil
}

// realtimeExchange sends the request and reads the audio until the end.
// The server must accept the request, and then deliver each message, with
// no silence longer than Config.Timeout.
func (c *Client) realtimeExchange(conn *websocket.Conn, host string, req *SynthesisRequest, out *pcmSink, res *SynthesisResult) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	_ = conn.SetWriteDeadline(time.Now().Add(c.cfg.Timeout))
	if err := conn.WriteMessage(websocket.TextMessage, body); err != nil {
		if isNetTimeout(err) {
			return wsStalled(host, c.cfg.Timeout, whileWSSend)
		}
		return &IncompleteError{What: "websocket", Reason: "send request: " + err.Error()}
	}
	rs := &realtimeState{out: out, res: res, host: host, limit: c.cfg.Timeout, red: c.red}
	var buf bytes.Buffer
	for {
		typ, msg, err := readFrame(conn, &buf, c.cfg.Timeout)
		if err != nil {
			return rs.ended(err, req)
		}
		done, err := rs.message(typ, msg)
		if err != nil {
			return err
		}
		if done {
			_ = conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return out.finish()
		}
	}
}

// MaxFrameBytes bounds one WebSocket message the client accepts: audio
// arrives in frames of a second or so (the live service's JSON frames may
// hold a whole WAV file of a long text, tens of megabytes in base64), and a
// larger message ends the session with an error rather than exhausting
// memory.
const MaxFrameBytes = 128 << 20

// readFrame reads the next message into buf, reusing its storage, so that
// a long stream does not allocate a buffer for every frame. The message is
// valid until the next call. The message must begin within idle, and each
// read of a long message must deliver within idle.
func readFrame(conn *websocket.Conn, buf *bytes.Buffer, idle time.Duration) (int, []byte, error) {
	_ = conn.SetReadDeadline(time.Now().Add(idle))
	typ, r, err := conn.NextReader()
	if err != nil {
		return typ, nil, err
	}
	buf.Reset()
	if _, err := buf.ReadFrom(&idleReader{r: r, conn: conn, idle: idle}); err != nil {
		return typ, nil, err
	}
	return typ, buf.Bytes(), nil
}

// idleReader renews a connection's read deadline before each read.
type idleReader struct {
	r    io.Reader
	conn *websocket.Conn
	idle time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	_ = r.conn.SetReadDeadline(time.Now().Add(r.idle))
	return r.r.Read(p)
}

// wsStalled is the error of a WebSocket session whose server fell silent
// (or stopped reading) for longer than limit.
func wsStalled(host string, limit time.Duration, while string) *IncompleteError {
	te := &TimeoutError{Host: host, Limit: limit, While: while}
	return &IncompleteError{What: "websocket", Reason: te.Error(), Err: te}
}

// hostOf is the host (and port) of a URL, for messages.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return withoutQuery(raw)
}

// realtimeState follows one realtime synthesis.
type realtimeState struct {
	out    *pcmSink
	res    *SynthesisResult
	order  chunkOrder
	json   bool // the server speaks in JSON text frames
	binary bool
	failed error // an error message the server sent
	host   string
	limit  time.Duration // Config.Timeout
	red    redactor
}

// wsMessage is a JSON text frame of the live service's form.
type wsMessage struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// message handles one frame; done reports the completion message.
func (rs *realtimeState) message(typ int, msg []byte) (done bool, err error) {
	if typ == websocket.BinaryMessage {
		rs.binary = true
		rs.res.Chunks++
		return false, rs.out.add(msg)
	}
	rs.json = true
	// The type first (encoding/json skips the rest without copying it),
	// then the audio decoded from base64 straight into its bytes: a frame
	// of tens of megabytes is held once, and its audio once.
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(msg, &head); err != nil {
		return false, fmt.Errorf("websocket text frame is not JSON: %s", untrusted.Body(rs.red.bytes(msg)))
	}
	switch head.Type {
	case "error":
		var m wsMessage
		_ = json.Unmarshal(msg, &m)
		rs.failed = rs.red.streamError(m.Data)
		return false, rs.failed
	case "audio", "chunk", "complete", "completed":
		var m struct {
			Data *wsAudio `json:"data"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			var ce base64.CorruptInputError
			if errors.As(err, &ce) {
				return false, fmt.Errorf("websocket audio is not base64: %v", err)
			}
			return false, fmt.Errorf("websocket %s message: %v", head.Type, err)
		}
		ch := m.Data
		if ch == nil {
			ch = &wsAudio{}
		}
		final := head.Type == "complete" || head.Type == "completed" || ch.IsFinal
		if ch.ChunkIndex != nil {
			check := rs.order.next
			if final && len(ch.Audio) == 0 {
				check = rs.order.final
			}
			if err := check(*ch.ChunkIndex, "websocket"); err != nil {
				return false, err
			}
		}
		if len(ch.Audio) > 0 {
			rs.res.Chunks++
			if err := rs.out.add(ch.Audio); err != nil {
				return false, err
			}
		}
		return final, nil
	}
	return false, nil // start and other status messages
}

// wsAudio is the data of a JSON audio message.
type wsAudio struct {
	ChunkIndex *int   `json:"chunk_index"`
	Audio      []byte `json:"audio"` // base64 in the message
	IsFinal    bool   `json:"is_final"`
}

// ended decides what a read error means: the server's close 1000 ends a
// binary stream; anything else is incomplete.
func (rs *realtimeState) ended(err error, req *SynthesisRequest) error {
	if rs.failed != nil {
		return rs.failed
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure && !rs.json {
		if err := rs.out.plausible(req.Text); err != nil {
			return err
		}
		return rs.out.finish()
	}
	if errors.As(err, &ce) {
		reason := fmt.Sprintf("closed with %d %s", ce.Code, rs.red.quote(ce.Text))
		if rs.json {
			reason += " before the complete message"
		}
		return &IncompleteError{What: "websocket", Reason: reason}
	}
	if isNetTimeout(err) {
		return wsStalled(rs.host, rs.limit, whileWSMessage)
	}
	if errors.Is(err, websocket.ErrReadLimit) {
		return &LimitError{What: "websocket message", Host: rs.host, Limit: sizeText(MaxFrameBytes)}
	}
	return &IncompleteError{What: "websocket", Reason: "connection ended without a close: " + err.Error()}
}

// dialWS opens a synthesis WebSocket (see dial).
func (c *Client) dialWS(ctx context.Context, endpoint string) (*websocket.Conn, error) {
	d := &websocket.Dialer{HandshakeTimeout: c.cfg.Timeout, ReadBufferSize: 64 << 10, WriteBufferSize: 16 << 10, Proxy: http.ProxyFromEnvironment}
	return c.dial(ctx, d, c.wsURL(endpoint), nil)
}

// dial opens a WebSocket with the key in x-api-key-id and the extra
// headers, once: a refused handshake is the service's *Error (a
// *RetryLaterError when its Retry-After asks for longer than
// RetryAfterMax), a silent host a *TimeoutError, and the session's retry
// sends it again as HTTP requests are. extra's names go on the wire as
// they are spelled.
func (c *Client) dial(ctx context.Context, d *websocket.Dialer, rawURL string, extra http.Header) (*websocket.Conn, error) {
	h := http.Header{}
	h.Set(strings.ToLower(HeaderAPIKey), c.cfg.APIKey)
	h.Set("User-Agent", "voxform")
	for k, v := range extra {
		h[k] = v
	}
	conn, resp, err := d.DialContext(ctx, rawURL, h)
	switch {
	case err == nil:
		conn.SetReadLimit(MaxFrameBytes)
		return conn, nil
	case resp != nil:
		return nil, c.responseError(resp)
	case ctx.Err() == nil && isNetTimeout(err): // Dialer.HandshakeTimeout passed
		return nil, &TimeoutError{Host: hostOf(rawURL), Limit: c.cfg.Timeout, While: whileWSOpen}
	}
	return nil, c.red.scrub(err)
}

// spokenChars counts the characters of text outside <tags>.
func spokenChars(text string) int {
	n, inTag := 0, false
	for _, r := range text {
		switch {
		case r == '<':
			inTag = true
		case r == '>' && inTag:
			inTag = false
		case !inTag && r != ' ':
			n++
		}
	}
	return n
}

// plausible checks that a normally closed binary stream carried whole
// frames and at least minSecondsPerChar of audio per spoken character.
func (p *pcmSink) plausible(text string) error {
	fb := int64(p.in.BlockAlign())
	if p.received == 0 {
		return &IncompleteError{What: "websocket", Reason: "closed before any audio"}
	}
	if p.received%fb != 0 {
		return &IncompleteError{What: "websocket", Reason: fmt.Sprintf("%d bytes is not a whole number of %d-byte frames", p.received, fb)}
	}
	got := float64(p.received/fb) / float64(p.in.SampleRate)
	want := minSecondsPerChar * float64(min(spokenChars(text), utf8.RuneCountInString(text)))
	if got < want {
		return &IncompleteError{What: "websocket", Reason: fmt.Sprintf("%.2f s of audio is too short for %d characters", got, spokenChars(text))}
	}
	return nil
}

// wsPCMFormat is the PCM the socket carries for a resolved config: the
// requested rate, channels and width; 16-bit for mulaw and alaw (at 8000
// Hz), which voxform encodes itself.
func wsPCMFormat(cfg contract.Format) audio.Format {
	bits := 8 * cfg.SampleWidth
	if cfg.Container == ContainerMuLaw || cfg.Container == ContainerALaw {
		bits = 16
	}
	return audio.Format{SampleRate: cfg.SampleRate, Channels: cfg.NumChannels, BitsPerSample: bits, Encoding: audio.PCM}
}
